#!/usr/bin/env python3
"""db_bench readmissing, linebloom vs RocksDB's built-in Bloom filter, both at
10 bits/key (builtin.OPTIONS = bloomfilter:10 at format_version 5, i.e. what
-bloom_bits=10 builds), with otherwise identical OPTIONS files.

Besides db_bench's wall-clock ops/s, the CPU time (user + sys) of each read
process is reported per lookup: on a shared machine the wall-clock rate
mostly measures how much of a core the run was given.

Each policy gets its own DB (a fill, then flush and compact with waits for
background work, so both DBs end in the same LSM shape and every missing key
consults one filter); then the read benchmark runs --repeats times per
policy, alternating, so drift on a shared machine hits both. Prints ops/s
and the false-positive rate from db_bench's statistics (full.positive /
(useful + full.positive)), and per policy the medians of ops/s and CPU per
lookup and the pooled false-positive rate.

PLUGIN is preloaded into db_bench for both policies (both runs execute the
same binary image; only the OPTIONS file differs); "-" preloads nothing, for
a db_bench with linebloom built in (ROCKSDB_PLUGINS). Filters beyond the L3
cache: at 10 bits/key each key costs 1.25 bytes of filter, so --num 64000000
gives ~80 MiB of filters.
"""
import argparse
import os
import shutil
import sys

import dbbench_output as dbo
from dbbench_output import median
from rocksdb_tools import children_cpu, read_text, run_logged

POLICIES = ("linebloom", "builtin")


def build_parser():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("plugin", help="liblinebloom_rocksdb.so, or - for none")
    p.add_argument("--num", type=int, default=1000000, help="keys (default %(default)s)")
    p.add_argument("--reads", type=int, help="lookups per run (default: --num)")
    p.add_argument("--repeats", type=int, default=5, help="runs per policy (default %(default)s)")
    p.add_argument("--bench", choices=("readmissing", "multireadrandom"), default="readmissing",
                   help="readmissing, or multireadrandom: batched MultiGet of --multiget-batch keys, what reaches "
                        "the filters' batched MayMatch")
    p.add_argument("--multiget-batch", type=int, default=32, help="default %(default)s")
    p.add_argument("--fill", choices=("fillrandom", "fillseq"), default="fillrandom",
                   help="fillseq is much faster for a large --num; every key is written once, and readmissing still "
                        "asks for keys between them")
    p.add_argument("--value-size", type=int, default=100, help="default %(default)s (db_bench's)")
    p.add_argument("--skip-fill", action="store_true",
                   help="reuse the DBs of an earlier run (filling is not timed; the reads are)")
    p.add_argument("--workdir", default="/tmp/linebloom-readmissing")
    p.add_argument("--db-bench", default="db_bench")
    return p


def run_row(policy, run, text, cpu, reads, bench):
    """One run: policy run ops/s cpu-ns/op useful positive fpr%."""
    t = dbo.tickers(text)
    useful = t.get("rocksdb.bloom.filter.useful", 0)
    positive = t.get("rocksdb.bloom.filter.full.positive", 0)
    ops = float(dbo.ops_per_sec(text, bench) or 0)
    return "%-10s %4d %12d %12.0f %10d %10d %9.4f" % (policy, run, ops, 1e9 * cpu / reads, useful, positive,
                                                       100 * positive / (useful + positive))


def medians(rows):
    """Per policy, medians of ops/s and CPU per lookup and the pooled
    false-positive rate, from the run rows; then linebloom against the
    built-in."""
    ops, cpu, useful, positive = {}, {}, {}, {}
    for f in (row.split() for row in rows):
        ops.setdefault(f[0], []).append(float(f[2]))
        cpu.setdefault(f[0], []).append(float(f[3]))
        useful[f[0]] = useful.get(f[0], 0) + int(f[4])
        positive[f[0]] = positive.get(f[0], 0) + int(f[5])
    out = []
    for k in sorted(ops):
        checks = useful[k] + positive[k]
        out.append("%-10s median %9.0f ops/s  %6.0f cpu-ns/op  pooled FPR %.4f %% (%d of %d lookups)" %
                   (k, median(ops[k]), median(cpu[k]), 100 * positive[k] / checks, positive[k], checks))
    if median(ops.get("builtin", [])) > 0:
        out.append("linebloom / builtin: throughput %.3f, cpu per lookup %.3f" %
                   (median(ops["linebloom"]) / median(ops["builtin"]),
                    median(cpu["linebloom"]) / median(cpu["builtin"])))
    return out


def db_bench(args, policy, benchmarks):
    here = os.path.dirname(os.path.abspath(__file__))
    return [args.db_bench, "--db=" + os.path.join(args.workdir, "db-" + policy),
            "--options_file=" + os.path.join(here, policy + ".OPTIONS"), "--benchmarks=" + benchmarks,
            "--num=%d" % args.num, "--value_size=%d" % args.value_size, "--threads=1", "--statistics"]


def fill(args, preload):
    for policy in POLICIES:
        shape_file = os.path.join(args.workdir, "shape-%s.txt" % policy)
        if args.skip_fill and os.path.exists(shape_file) and os.path.getsize(shape_file):
            print("  %s LSM shape (level:files, reused): %s" % (policy, read_text(shape_file).rstrip("\n")),
                  file=sys.stderr)
            continue
        shutil.rmtree(os.path.join(args.workdir, "db-" + policy), ignore_errors=True)
        print("filling %s (%d keys)..." % (policy, args.num), file=sys.stderr)
        out = os.path.join(args.workdir, "fill-%s.out" % policy)
        run_logged(db_bench(args, policy, args.fill + ",flush,waitforcompaction,compact,waitforcompaction,levelstats")
                   + ["--seed=1"], out, preload)
        # Files per level, e.g. "L2:5" -- must match between the two policies.
        shape = dbo.lsm_shape(read_text(out))
        with open(shape_file, "w") as f:
            f.write(shape + "\n")
        print("  %s LSM shape (level:files): %s" % (policy, shape), file=sys.stderr)


def main(argv=None):
    args = build_parser().parse_args(argv)
    if args.plugin != "-" and not os.access(args.plugin, os.R_OK):
        sys.exit("no plugin at %s" % args.plugin)
    preload = "" if args.plugin == "-" else args.plugin
    reads = args.num if args.reads is None else args.reads
    extra = [] if args.bench == "readmissing" else ["--multiread_batched=true", "--batch_size=%d" % args.multiget_batch]
    os.makedirs(args.workdir, exist_ok=True)
    fill(args, preload)
    fill_out = os.path.join(args.workdir, "fill-linebloom.out")
    version = dbo.rocksdb_version_line(read_text(fill_out)) if os.path.exists(fill_out) else None
    if version:
        print(version, file=sys.stderr)
    print("%-10s %4s %12s %12s %10s %10s %9s" % ("policy", "run", "ops/s", "cpu-ns/op", "useful", "positive", "fpr%"))
    rows = []
    for r in range(1, args.repeats + 1):
        for policy in POLICIES:
            out = os.path.join(args.workdir, "%s-%s-%d.out" % (args.bench, policy, r))
            before = children_cpu()
            run_logged(db_bench(args, policy, args.bench) + ["--use_existing_db=1", "--reads=%d" % reads,
                                                             "--seed=%d" % (100 + r)] + extra, out, preload)
            rows.append(run_row(policy, r, read_text(out), children_cpu() - before, reads, args.bench))
            print(rows[-1], flush=True)
    with open(os.path.join(args.workdir, "summary-%s.txt" % args.bench), "w") as f:
        f.writelines(row + "\n" for row in rows)
    for line in medians(rows):
        print(line)


if __name__ == "__main__":
    main()
