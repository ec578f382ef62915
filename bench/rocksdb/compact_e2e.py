#!/usr/bin/env python3
"""db_bench end to end at equal filter bytes: RocksDB's Bloom filter
everywhere (builtin), its Ribbon filter everywhere (ribbon:
NewRibbonFilterPolicy(b, -1)), its hybrid (hybrid: Bloom above the last
level, Ribbon at it, bloom_before_level = 6) and level-aware linebloom over
both kinds (la_compact: compact_from_level = 6), on several fills.

Per fill (seed), in WORKDIR/fill-SEED, level_aware_pair.py's end-to-end
setup (e2e_direct.sh's flags): one fillrandom, then a copy per configuration
whose every live SST is rewritten at its own level with that configuration's
filter (linebloom-refilter). builtin at 10 bits per key is the reference; every
other configuration's bits-per-key setting is searched (compact_report.
next_bits) until its live filter bytes (sst_dump) are within --tolerance of
builtin's, each try a fresh copy refiltered. Then the filter-build CPU: each
copy is refiltered again in place --cpu-repeats times, configurations
alternating, and the refilter's --time-builds line of the last pass counts
(thread CPU time in the policy's builds; see build_timer.h). Then the reads
(level_aware_pair.read_all: alternating runs, medians) and
level_aware_pair.py's report, and a compact.txt per fill.

After all fills: the table of every fill and the done-when targets
(compact_report.summary), also written to WORKDIR/compact-summary.md.
Stage "report" re-reads the fills' outputs and prints the table only.
"""
import argparse
import os
import sys

import compact_report
import level_aware_pair as lap
import pair_output
import rocksdb_tools
from rocksdb_tools import read_text, run_logged

CONFIGS = ["builtin", "ribbon", "hybrid", "la_compact"]
BITS_ARG = {"ribbon": "ribbon_bits", "hybrid": "hybrid_bits", "la_compact": "lac_bits"}


def build_parser():
    stage = argparse.ArgumentParser(add_help=False)
    stage.add_argument("stage", choices=("run", "report"), help="run: fills, search, reads; report: table only")
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     parents=[stage, lap.common_parser(one_tree=False)])
    parser.add_argument("--workdir", default="/tmp/linebloom-compact-e2e")
    parser.add_argument("--fill-seeds", default="1,2,3", help="one fill per seed (default 1,2,3)")
    parser.add_argument("--tolerance", type=float, default=0.005,
                        help="filter bytes within this fraction of builtin's (default 0.005)")
    # The level-aware policy's bytes jump 2-3.5 % between settings 0.01
    # bits/key apart on some trees (docs/bench/compact-e2e.md), so a
    # tighter bound would refill most seeds.
    parser.add_argument("--max-off", type=float, default=0.025,
                        help="if no try is within the tolerance, the closest, if within this (default 0.025)")
    parser.add_argument("--max-tries", type=int, default=10, help="bits-per-key tries per configuration")
    parser.add_argument("--refills", type=int, default=2,
                        help="fills again when a configuration has no bits per key within --max-off (default 2)")
    parser.add_argument("--reuse-fill", action="store_true", help="keep a fill already in a fill's directory")
    parser.add_argument("--cpu-repeats", type=int, default=3, help="refilter timings per configuration")
    return parser


def try_bits(args, config, target, steps):
    lap.refilter_copy(args, config)
    got = compact_report.refilter_bytes(read_text(lap.work(args, "refilter-%s.out" % config)))
    bits = getattr(args, BITS_ARG[config])
    steps.append((float(bits), got))
    print("  %s bits %s: %d filter bytes (%.4f x builtin)" % (config, bits, got, got / target), file=sys.stderr)


def match_bytes(args, config, target):
    """CONFIG's bits per key whose live filter bytes are within --tolerance
    of TARGET, or else the closest try within --max-off (a level-aware
    policy's bytes jump where the planner moves a level to the next
    setting); every try in match-CONFIG.txt. Returns whether the bits
    kept are within --max-off."""
    steps = []
    attr = BITS_ARG[config]
    for _ in range(args.max_tries):
        try_bits(args, config, target, steps)
        if abs(steps[-1][1] / target - 1) <= args.tolerance or compact_report.jump(steps, target):
            break
        setattr(args, attr, "%g" % compact_report.next_bits(steps, target))
    best = compact_report.closest(steps, target)
    if best != steps[-1]:
        setattr(args, attr, "%g" % best[0])
        try_bits(args, config, target, steps)
    with open(lap.work(args, "match-%s.txt" % config), "w") as f:
        f.writelines("%g %d\n" % s for s in steps)
    if abs(steps[-1][1] / target - 1) > args.max_off:
        print("%s: no bits per key within %g of builtin's filter bytes in %d tries" %
              (config, args.max_off, len(steps)), file=sys.stderr)
        return False
    return True


def match_all(args):
    """Every configuration's bits per key at builtin's filter bytes on this
    fill's tree; False if one has none within --max-off."""
    for config in CONFIGS:
        if config == "builtin":
            lap.refilter_copy(args, config)
            target = compact_report.refilter_bytes(read_text(lap.work(args, "refilter-builtin.out")))
        elif not match_bytes(args, config, target):
            return False
    return True


def time_builds(args):
    """The refilter again on every copy, CPU_REPEATS times, alternating,
    each with --passes passes (the last pass counts: one-time costs of the
    process, such as a first touch of memory, fall in the first)."""
    for r in range(1, args.cpu_repeats + 1):
        k = (r - 1) % len(CONFIGS)
        for config in CONFIGS[k:] + CONFIGS[:k]:
            out = lap.work(args, "build-%s-%d.out" % (config, r))
            lap.refilter_in_place(args, config, out, args.passes)
            print("  build %s run %d: %.3f cpu s" % (config, r, compact_report.build_cpu(read_text(out))[0]),
                  file=sys.stderr)


def build_seconds(args, config):
    """CONFIG's median filter-build CPU seconds over the repetitions, and
    the setup seconds of that run (the lower middle one if even)."""
    texts = [read_text(lap.work(args, "build-%s-%d.out" % (config, r))) for r in range(1, args.cpu_repeats + 1)]
    runs = sorted((compact_report.build_cpu(t)[0], compact_report.setup_cpu(t)) for t in texts)
    return compact_report.median([run[0] for run in runs]), runs[(len(runs) - 1) // 2][1]


def one_fill(args):
    """One fill's table row per configuration. A level-aware policy's bytes
    jump by about 2 % where many files' built-in budgets cross a 64-byte
    line together (docs/bench/compact-e2e.md), so a tree can have no setting
    within --max-off of builtin's bytes: the seed is filled again (the trees
    of one seed differ run to run), up to --refills times."""
    if not (args.reuse_fill and os.path.isdir(lap.work(args, "db-fill")) and os.path.isfile(lap.work(args, "fill.out"))):
        lap.fill_shared(args)
    for refill in range(args.refills + 1):
        if match_all(args):
            break
        if refill == args.refills:
            sys.exit("fill seed %d: no equal-bytes setting on %d fills" % (args.fill_seed, args.refills + 1))
        print("fill seed %d: filling again (%d of %d)" % (args.fill_seed, refill + 1, args.refills), file=sys.stderr)
        lap.fill_shared(args)
    time_builds(args)
    for config in CONFIGS:
        pair_output.save_filters(args, config)
        lap.run_read(args, config, "levelstats", 1, lap.work(args, "open-%s.out" % config))
    lap.relay_copies(args)
    lap.read_all(args)
    pair_output.report(args)
    write_rows(args)


def write_rows(args):
    e2e = {line.split()[1]: line for line in read_text(lap.work(args, "e2e.txt")).splitlines()
           if line.startswith("readmissing ")}
    size = {c: sum(r[2] for r in pair_output.read_filters(lap.work(args, "filters-%s.txt" % c))) for c in CONFIGS}
    with open(lap.work(args, "compact.txt"), "w") as f:
        for config in CONFIGS:
            bits = "10" if config == "builtin" else getattr(args, BITS_ARG[config])
            if abs(size[config] / size["builtin"] - 1) > args.tolerance:
                print("WARNING: %s: sst_dump's filter bytes %.4f x builtin's" %
                      (config, size[config] / size["builtin"]), file=sys.stderr)
            f.write(compact_report.fill_row(config, bits, e2e[config], size[config], *build_seconds(args, config)) +
                    "\n")


def seeds(args):
    return [int(s) for s in args.fill_seeds.replace(",", " ").split()]


def main(argv=None):
    args = build_parser().parse_args(argv)
    rocksdb_tools.resolve_geometry(args)
    root = args.workdir
    args.configs = CONFIGS
    if args.stage == "run":
        # Each fill's search starts from the bits the one before matched.
        for seed in seeds(args):
            args.workdir, args.fill_seed = os.path.join(root, "fill-%d" % seed), seed
            os.makedirs(args.workdir, exist_ok=True)
            lap.check_tools(args)
            one_fill(args)
    fills = [(seed, compact_report.parse_rows(read_text(os.path.join(root, "fill-%d" % seed, "compact.txt"))))
             for seed in seeds(args)]
    lines = compact_report.summary(fills, CONFIGS)
    with open(os.path.join(root, "compact-summary.md"), "w") as f:
        f.writelines(line + "\n" for line in lines)
    print("\nEqual filter bytes, all fills (%d keys, %d lookups per run, %d runs):" %
          (args.num, args.reads, args.repeats))
    print("\n".join(lines))
    parts = build_parts_table(args, root)
    if parts:
        print("\nFilter-build CPU by part (medians of the repetitions):")
        print("\n".join(parts))


def build_parts_table(args, root):
    """parts_table over the fills' build outputs; empty if a refilter
    printed no parts."""
    fills = []
    for seed in seeds(args):
        runs = {c: [compact_report.build_parts(read_text(os.path.join(root, "fill-%d" % seed,
                                                                       "build-%s-%d.out" % (c, r))))
                    for r in range(1, args.cpu_repeats + 1)] for c in CONFIGS}
        if any(p is None for c in CONFIGS for p in runs[c]):
            return []
        fills.append((seed, runs))
    return compact_report.parts_table(fills, CONFIGS)


if __name__ == "__main__":
    main()
