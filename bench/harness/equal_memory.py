#!/usr/bin/env python3
# Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
#
# Reads the sweep.csv that `linebloom-harness --svg DIR` writes and compares
# two configurations at equal real memory: at every real bits/key in
# [--from, --to] where both curves are defined (at each point of either
# curve), the first's measured false-positive rate against the second's,
# each interpolated log-linearly between its neighbouring points; where a
# curve has several points at one bits/key (RocksDB's filters round up to
# whole 64-byte lines, so several settings share a size), its best rate
# there. Exit status 1 if the first curve is above the second anywhere.
#
#   bench/harness/equal_memory.py DIR/sweep.csv [--from 4 --to 20]

import argparse
import csv
import math
import sys


def curve(rows, name):
    best = {}
    for r in rows:
        if r["config"] != name:
            continue
        x, y = float(r["real_bits_per_key"]), float(r["measured_fpr"])
        best[x] = min(y, best.get(x, y))
    return sorted(best.items())


def at(points, x):
    """The curve's rate at x, or None outside its range."""
    if not points or x < points[0][0] or x > points[-1][0]:
        return None
    for (x0, y0), (x1, y1) in zip(points, points[1:]):
        if x0 <= x <= x1:
            t = (x - x0) / (x1 - x0) if x1 > x0 else 0.0
            if y0 > 0 and y1 > 0:
                return math.exp(math.log(y0) + t * (math.log(y1) - math.log(y0)))
            return y0 + t * (y1 - y0)
    return points[-1][1]


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("csv")
    ap.add_argument("--ours", default="linebloom/per-block")
    ap.add_argument("--theirs", default="rocksdb-builtin/per-block")
    ap.add_argument("--from", dest="lo", type=float, default=4)
    ap.add_argument("--to", dest="hi", type=float, default=20)
    args = ap.parse_args()
    with open(args.csv) as f:
        rows = list(csv.DictReader(f))
    ours, theirs = curve(rows, args.ours), curve(rows, args.theirs)
    xs = sorted({x for x, _ in ours + theirs if args.lo <= x <= args.hi})
    worse = 0
    compared = 0
    print(f"{'bits/key':>9} {args.ours:>22} {args.theirs:>26} {'ratio':>7}")
    for x in xs:
        a, b = at(ours, x), at(theirs, x)
        if a is None or b is None:
            continue
        compared += 1
        ratio = a / b if b > 0 else (1.0 if a == 0 else math.inf)
        flag = "" if a <= b else "  ABOVE"
        worse += a > b
        print(f"{x:9.3f} {100 * a:21.5f}% {100 * b:25.5f}% {ratio:7.3f}{flag}")
    print(f"{compared} bits/key values in [{args.lo:g}, {args.hi:g}] where both curves are defined; "
          f"{args.ours} above at {worse}")
    return 1 if worse else 0


if __name__ == "__main__":
    sys.exit(main())
