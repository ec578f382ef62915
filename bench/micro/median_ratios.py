#!/usr/bin/env python3
"""Medians over runs of the ratios linebloom-bench measured within each run.

  median_ratios.py run-1.json run-2.json ...

Each run's ratio (filter ns / built-in ns, same size and op) is taken within
that run, then the median over runs is printed with the smallest and
largest, so drift between runs cancels. False-positive rates are pooled:
they do not depend on timing.
"""
import json
import statistics
import sys

OPS = [("build", "build ns/key"), ("neg", "single negative query"), ("batch32", "negative batch of 32, per key")]
FILTERS = [("linebloom-plugin", "plugin, through RocksDB's calls"), ("linebloom", "API (custom engine)")]


def main():
    runs = [json.load(open(path)) for path in sys.argv[1:]]
    if not runs:
        sys.exit("usage: median_ratios.py run-1.json ...")
    label = runs[0]["reference_label"]
    ratios, mem = {}, {}
    fpr = {}
    for run in runs:
        for r in run["results"]:
            key = (r["size_mb"], r["metric"], r["filter"])
            if r["filter"] in dict(FILTERS):
                ratios.setdefault(key, []).append(r["vs_builtin"])
            if r["filter"] == "rocksdb-bloom":
                mem.setdefault(key, []).append(r["vs_mem_indep"])
        for q in run["quality"]:
            fpr.setdefault((q["size_mb"], q["filter"]), []).append(q["fpr"])
    sizes = sorted({k[0] for k in ratios})
    print(f"Ratios to {label}: median over {len(runs)} alternating runs (min-max in brackets).\n")
    print("| op | filter | " + " | ".join(f"{s:g} MiB" for s in sizes) + " |")
    print("|---|---|" + "---|" * len(sizes))
    for op, op_name in OPS:
        for filt, filt_name in FILTERS:
            cells = []
            for s in sizes:
                v = ratios.get((s, op, filt))
                cells.append(f"{statistics.median(v):.2f} ({min(v):.2f}-{max(v):.2f})" if v else "-")
            print(f"| {op_name} | {filt_name} | " + " | ".join(cells) + " |")
    print("\nFalse-positive rate (%), pooled over runs:\n")
    print("| filter | " + " | ".join(f"{s:g} MiB" for s in sizes) + " |")
    print("|---|" + "---|" * len(sizes))
    for filt in ["linebloom-plugin", "linebloom", "rocksdb-bloom"]:
        cells = []
        for s in sizes:
            v = fpr.get((s, filt))
            cells.append(f"{100 * statistics.mean(v):.3f}" if v else "-")
        print(f"| {filt} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
