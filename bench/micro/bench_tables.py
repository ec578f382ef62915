#!/usr/bin/env python3
"""Prints BENCHMARKS.md's tables (markdown) from linebloom-bench --json output.

  bench_tables.py sizes.json [fpr_sweep_dir]
"""
import glob
import json
import math
import os
import sys

FILTERS = ["linebloom", "linebloom-plugin", "rocksdb-bloom", "rocksdb-legacy-bloom", "rocksdb-ribbon"]
METRICS = [("build", "build ns/key"), ("neg", "negative query ns"), ("pos", "positive query ns"),
           ("batch8", "batch 8 ns/key"), ("batch32", "batch 32 ns/key"), ("batch128", "batch 128 ns/key")]


def main():
    doc = json.load(open(sys.argv[1]))
    res = {(r["size_mb"], r["metric"], r["filter"]): r for r in doc["results"]}
    sizes = sorted({r["size_mb"] for r in doc["results"]})
    # Which built-in the × ratios are against (version, portable or AVX2).
    builtin = doc.get("reference_label", "RocksDB's built-in Bloom (version not recorded)")
    print(f"Ratios (×) are to {doc['reference']} = {builtin}.")
    for size in sizes:
        ind = res.get((size, "mem_indep", "memory"), {}).get("ns", 0)
        dep = res.get((size, "mem_dep", "memory"), {}).get("ns", 0)
        print(f"\n**{size:g} MiB filters** (memory baseline: independent random 64-byte read "
              f"{ind:.1f} ns, dependent {dep:.1f} ns)\n")
        present = [f for f in FILTERS if any(k[2] == f and k[0] == size for k in res)]
        print("| metric | " + " | ".join(present) + " |")
        print("|---|" + "---|" * len(present))
        for metric, label in METRICS:
            cells = []
            for f in present:
                r = res.get((size, metric, f))
                if not r:
                    cells.append("-")
                    continue
                cell = f"{r['ns']:.1f} ({r['vs_builtin']:.2f}×"
                if metric != "build" and ind:
                    cell += f", {r['vs_mem_indep']:.2f}× mem"
                cells.append(cell + ")")
            print(f"| {label} | " + " | ".join(cells) + " |")
        q = {x["filter"]: x for x in doc["quality"] if x["size_mb"] == size}
        cells = []
        for f in present:
            if f in q:
                # binomial sd over the 2^20 absent keys each build is checked against
                p, n = q[f]["fpr"], 1 << 20
                cells.append(f"{100 * p:.3f} % ± {100 * math.sqrt(p * (1 - p) / n):.3f} ({q[f]['bits_per_key']:.2f} b/key)")
            else:
                cells.append("-")
        print("| false-positive rate | " + " | ".join(cells) + " |")
    if len(sys.argv) > 2:
        print("\n| bits/key | linebloom FPR | rocksdb-bloom FPR |\n|---|---|---|")
        rows = []
        for path in glob.glob(os.path.join(sys.argv[2], "fpr_*.json")):
            b = float(os.path.basename(path)[4:-5])
            q = {x["filter"]: x["fpr"] for x in json.load(open(path))["quality"]}
            rows.append((b, q.get("linebloom"), q.get("rocksdb-bloom")))
        for b, lb, rb in sorted(rows):
            fmt = lambda p: "-" if p is None else f"{100 * p:.4f} %"
            print(f"| {b:g} | {fmt(lb)} | {fmt(rb)} |")


if __name__ == "__main__":
    main()
