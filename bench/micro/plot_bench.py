#!/usr/bin/env python3
"""Draws BENCHMARKS.md's plots from linebloom-bench --json output (stdlib only).

  plot_bench.py sizes.json fpr_sweep_dir out_dir

sizes.json:     one full run (several --sizes_mb)            -> query_ns_vs_size.svg
fpr_sweep_dir:  fpr_<bits>.json, one run per --bits_per_key  -> fpr_vs_bits.svg
The theory curve is the 512-bit blocked-Bloom false-positive rate (exact form,
see filter_policy/include/linebloom/bloom_math.h), recomputed here.
"""
import glob
import json
import math
import os
import sys

COLORS = {"linebloom": "#d62728", "linebloom-plugin": "#ff7f0e", "rocksdb-bloom": "#1f77b4",
          "rocksdb-legacy-bloom": "#9467bd", "rocksdb-ribbon": "#2ca02c",
          "memory, independent reads": "#555555", "memory, dependent reads": "#aaaaaa",
          "theory (blocked, exact)": "#000000", "theory (blocked, classic)": "#999999"}


def blocked_fpr(c, k, B=512):
    """Poisson mixture over keys per block of P(k probes all hit set bits)."""
    lam = B / c
    stir = [[0] * (k + 1) for _ in range(k + 1)]
    stir[0][0] = 1
    for n in range(1, k + 1):
        for t in range(1, n + 1):
            stir[n][t] = t * stir[n - 1][t] + stir[n - 1][t - 1]
    cover = [0.0] * (k + 1)
    for t in range(1, k + 1):
        falling = 1.0
        for r in range(t):
            falling *= (B - r) / B
        cover[t] = falling * stir[k][t] / B ** (k - t)
    total = 0.0
    lo = max(0, int(lam - 12 * math.sqrt(lam) - 20))
    for i in range(lo, int(lam + 12 * math.sqrt(lam) + 20)):
        pmf = math.exp(i * math.log(lam) - lam - math.lgamma(i + 1))
        m = k * i
        hit = sum(cover[t] * sum((-1) ** s * math.comb(t, s) * (1 - s / B) ** m for s in range(t + 1))
                  for t in range(1, k + 1))
        total += pmf * hit
    return total


def best_fpr(c):
    return min(blocked_fpr(c, k) for k in range(max(1, int(0.6 * c) - 2), int(0.6 * c) + 3))


class Plot:
    """A minimal SVG line chart with log axes where asked."""

    def __init__(self, title, xlabel, ylabel, logx=False, logy=False, w=800, h=440):
        self.title, self.xlabel, self.ylabel = title, xlabel, ylabel
        self.logx, self.logy, self.w, self.h = logx, logy, w, h
        self.series = []

    def add(self, name, points, dashed=False):
        self.series.append((name, sorted(points), dashed))

    def render(self):
        L, R, T, B = 80, 250, 40, 60
        xs = [x for _, pts, _ in self.series for x, _ in pts]
        ys = [y for _, pts, _ in self.series for _, y in pts]
        fx = (lambda v: math.log10(v)) if self.logx else (lambda v: v)
        fy = (lambda v: math.log10(v)) if self.logy else (lambda v: v)
        x0, x1 = fx(min(xs)), fx(max(xs))
        y0, y1 = fy(min(ys)), fy(max(ys))
        if self.logy:
            y0, y1 = math.floor(y0), math.ceil(y1)
        else:
            y0, y1 = 0, y1 * 1.1
        x1 = x1 if x1 > x0 else x0 + 1
        px = lambda v: L + (fx(v) - x0) / (x1 - x0) * (self.w - L - R)
        py = lambda v: self.h - B - (fy(v) - y0) / (y1 - y0) * (self.h - T - B)
        out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{self.w}" height="{self.h}" '
               f'font-family="sans-serif" font-size="12">',
               f'<rect width="{self.w}" height="{self.h}" fill="white"/>',
               f'<text x="{self.w / 2}" y="20" text-anchor="middle" font-size="15">{self.title}</text>',
               f'<line x1="{L}" y1="{self.h - B}" x2="{self.w - R}" y2="{self.h - B}" stroke="black"/>',
               f'<line x1="{L}" y1="{T}" x2="{L}" y2="{self.h - B}" stroke="black"/>',
               f'<text x="{(L + self.w - R) / 2}" y="{self.h - 15}" text-anchor="middle">{self.xlabel}</text>',
               f'<text transform="translate(20,{(T + self.h - B) / 2}) rotate(-90)" text-anchor="middle">'
               f'{self.ylabel}</text>']
        for v in sorted(set(xs)):
            out.append(f'<text x="{px(v):.1f}" y="{self.h - B + 16}" text-anchor="middle">{v:g}</text>')
        ticks = ([10 ** e for e in range(int(y0), int(y1) + 1)] if self.logy
                 else [y1 * i / 5 for i in range(6)])
        for v in ticks:
            out.append(f'<line x1="{L - 4}" y1="{py(v):.1f}" x2="{self.w - R}" y2="{py(v):.1f}" '
                       f'stroke="#ddd"/><text x="{L - 6}" y="{py(v) + 4:.1f}" text-anchor="end">{v:g}</text>')
        for i, (name, pts, dashed) in enumerate(self.series):
            color = COLORS.get(name, "#333333")
            path = " ".join(f"{px(x):.1f},{py(y):.1f}" for x, y in pts)
            dash = ' stroke-dasharray="6,4"' if dashed else ""
            out.append(f'<polyline points="{path}" fill="none" stroke="{color}" stroke-width="2"{dash}/>')
            for x, y in pts:
                out.append(f'<circle cx="{px(x):.1f}" cy="{py(y):.1f}" r="3" fill="{color}"/>')
            ly = T + 10 + 18 * i
            out.append(f'<line x1="{self.w - R + 10}" y1="{ly}" x2="{self.w - R + 30}" y2="{ly}" '
                       f'stroke="{color}" stroke-width="2"{dash}/><text x="{self.w - R + 35}" y="{ly + 4}">'
                       f'{name}</text>')
        out.append("</svg>")
        return "\n".join(out)


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    sizes_json, sweep_dir, out_dir = sys.argv[1:]
    os.makedirs(out_dir, exist_ok=True)

    results = json.load(open(sizes_json))["results"]
    for metric, title in (("neg", "single negative query"), ("batch32", "negative query, batches of 32")):
        plot = Plot(f"{title}: ns per key vs filter size (10 bits/key)", "filter size (MiB)",
                    "ns per key", logx=True, logy=True)
        by_filter = {}
        for r in results:
            if r["metric"] == metric:
                by_filter.setdefault(r["filter"], []).append((r["size_mb"], r["ns"]))
        for f, pts in sorted(by_filter.items()):
            plot.add(f, pts)
        for m, label in (("mem_indep", "memory, independent reads"),
                         ("mem_dep", "memory, dependent reads")):
            pts = [(r["size_mb"], r["ns"]) for r in results if r["metric"] == m]
            if pts:
                plot.add(label, pts, dashed=True)
        open(os.path.join(out_dir, f"query_{metric}_vs_size.svg"), "w").write(plot.render())

    plot = Plot("false-positive rate vs bits per key", "bits per key", "false-positive rate",
                logy=True)
    by_filter = {}
    bits_seen = []
    for path in sorted(glob.glob(os.path.join(sweep_dir, "fpr_*.json"))):
        doc = json.load(open(path))
        for q in doc["quality"]:
            if q["filter"] in ("linebloom", "rocksdb-bloom"):
                # nominal bits/key: the run's own setting, from the file name
                b = float(os.path.basename(path)[4:-5])
                by_filter.setdefault(q["filter"], []).append((b, q["fpr"]))
                bits_seen.append(b)
    for f, pts in sorted(by_filter.items()):
        plot.add(f, pts)
    bits_seen = sorted(set(bits_seen))
    plot.add("theory (blocked, exact)", [(b, best_fpr(b)) for b in bits_seen], dashed=True)
    open(os.path.join(out_dir, "fpr_vs_bits.svg"), "w").write(plot.render())


if __name__ == "__main__":
    main()
