"""level_aware_pair.py's report, from what its runs left in the work
directory: the live SSTs' filters (filters-CONFIG.txt), the reads' db_bench
outputs and the fills' levelstats. Writes the tables' inputs next to them
(perlevel-CONFIG.txt, summary.txt, e2e.txt, filter-bytes.txt), which
level_aware_score.py and the smoke tests read."""
import glob
import os
import subprocess
import sys

import dbbench_output as dbo
import e2e_report
import pair_report
import rocksdb_tools
from rocksdb_tools import read_text


def _path(args, name):
    return os.path.join(args.workdir, name)


def emit(lines):
    for line in lines:
        print(line)


def save_filters(args, config):
    """filters-CONFIG.txt: "level entries bytes" per live SST."""
    rows = rocksdb_tools.sst_filters(_path(args, "db-" + config), args.plugin, args.ldb, args.sst_dump)
    with open(_path(args, "filters-%s.txt" % config), "w") as f:
        f.writelines("%d %d %d\n" % (level, entries, size) for level, _, entries, size in rows)


def read_filters(path):
    with open(path) as f:
        return [tuple(int(x) for x in line.split()[:3]) for line in f if line.strip()]


def ops_of(path, bench):
    return dbo.ops_per_sec(read_text(path), bench)


def write_counts(path, counts):
    with open(path, "w") as f:
        f.writelines("%d %d %d %d %d\n" % (level, *counts[level]) for level in sorted(counts))


def level_bound(args, stdin, *flags):
    """linebloom-level-bound's output on STDIN's levels; a failure stops the
    report (its message is on stderr)."""
    done = subprocess.run([args.level_bound, *flags], input=stdin, stdout=subprocess.PIPE, text=True)
    if done.returncode != 0:
        sys.exit("%s exited with %d" % (args.level_bound, done.returncode))
    return done.stdout


def warn_unread(args):
    """Every live SST must have been read (the report sums their filters)."""
    for config in args.configs:
        want = dbo.levelstats_files(read_text(_path(args, "fill-%s.out" % config)))
        got = len(read_text(_path(args, "filters-%s.txt" % config)).splitlines())
        if want != got:
            print("WARNING: %s: levelstats lists %d SSTs, properties read for %d" % (config, want, got),
                  file=sys.stderr)


def per_level_and_totals(args, filters, counts):
    print("\nPer level (live SSTs; bits/key = 8 * filter bytes / filter entries; checks and")
    print("false-positive rate of the level's filters during readmissing, from the perf context):")
    print("%-12s %5s %6s %10s %12s %8s %12s %9s" %
          ("config", "level", "files", "entries", "filter_bytes", "bits/key", "checks", "fpr%"))
    for config in args.configs:
        emit(pair_report.per_level_lines(config, filters[config], counts[config]))
    print("\nTotals (readmissing: %d lookups of absent keys):" % args.reads)
    print("%-12s %12s %12s %10s %12s %14s %12s" %
          ("config", "filter_bytes", "entries", "bits/key", "checks/lookup", "false_pos", "fp/lookup"))
    summary = [pair_report.totals_line(c, filters[c], read_text(_path(args, "read-%s.out" % c)), args.reads)
               for c in args.configs]
    print("\n".join(summary))
    with open(_path(args, "summary.txt"), "w") as f:
        f.writelines(line + "\n" for line in summary)
    return summary


def versus(args, summary, counts):
    """level_aware against the others; separate trees: its per-level rates
    on the others' trees (a shared tree is checked alike in every
    configuration -- an absent key descends through all levels whatever the
    filters say -- so there is nothing to cross-check); the policy's last
    logged estimate, what the newest files were built with."""
    if not any(line.split()[0] == "level_aware" for line in summary):
        return
    print("\nlevel_aware vs the others (% change; negative = fewer):")
    print("\n".join(pair_report.versus_lines(summary)))
    if args.separate_trees:
        print("level_aware's per-level FPRs on the other trees (checks/lookup of that tree):")
        for config in args.configs:
            if config != "level_aware":
                print(pair_report.cross_check_line(config, counts[config], counts["level_aware"], args.reads))
    for config in ("level_aware", "cache_aware"):
        logs = [read_text(p) for p in glob.glob(_path(args, "db-%s/LOG*" % config)) if os.path.isfile(p)]
        last = pair_report.last_allocation(logs)
        if last:
            print("%s's last allocation (DB LOG):\n  %s" % (config, last))


def bound_per_tree(args, filters, counts):
    """On each tree, the best expected false positives per lookup any
    per-level bits could reach at 10 bits/key on average, knowing each
    level's coverage (checks / lookups) exactly, vs 10 everywhere -- same
    blocked-Bloom model for both. A level-aware policy cannot beat "best" on
    that tree; if "best" is above -30 %, no allocation at equal memory
    reaches the target there. (L0 files are one run here: the perf context
    counts them together.)"""
    print("\nBound per tree (expected FP/lookup at 10 bits/key: uniform vs the best per-level bits):")
    for config in args.configs:
        stdin = pair_report.bound_input(filters[config], counts[config])
        sys.stdout.write("  %-12s " % config + level_bound(args, stdin, "--lookups", str(args.reads), "--bits", "10"))


def shapes(args):
    if args.separate_trees:
        print("\nLSM shapes (level:files), from db_bench levelstats after the fill (seed %d):" % args.fill_seed)
    else:
        print("\nLSM shape (level:files), from db_bench levelstats after the shared fill (seed %d;" % args.fill_seed)
        print("every configuration's copy refiltered, level_aware in %d pass(es), entries per level checked):" %
              args.passes)
    for config in args.configs:
        print("%-12s %s" % (config, dbo.lsm_shape(read_text(_path(args, "fill-%s.out" % config)))))


def run_files(args, bench, config):
    return sorted(glob.glob(_path(args, "%s-%s-*.out" % (bench, config))))


def end_to_end(args, filters):
    lines = []
    for bench in args.benches:
        for config in args.configs:
            runs = run_files(args, bench, config)
            if runs:
                lines.append(e2e_report.summarize_runs(bench, config, read_text(_path(args, "open-%s.out" % config)),
                                                       [read_text(r) for r in runs], args.reads))
    with open(_path(args, "e2e.txt"), "w") as f:
        f.writelines(line + "\n" for line in lines)
    if not lines:
        return False
    version = dbo.rocksdb_version_line(read_text(_path(args, "open-%s.out" % args.configs[0])))
    print("\n" + version if version else "")
    print("End to end (%s run(s) per configuration, alternating; %d absent keys per run;" %
          (lines[0].split()[2], args.reads))
    print("block cache %s MB, direct reads %s; x = ratio to builtin;" %
          ("db_bench default" if args.cache_mb is None else args.cache_mb, "on" if args.direct_reads else "off"))
    print("counters per lookup, pooled over the runs; filter bytes of the live SSTs, sst_dump):")
    filter_bytes = {c: sum(f[2] for f in filters[c]) for c in args.configs}
    with open(_path(args, "filter-bytes.txt"), "w") as f:
        f.writelines("%s %d\n" % (c, filter_bytes[c]) for c in args.configs)
    print("\n".join(e2e_report.end_to_end_tables(lines, filter_bytes)))
    if "builtin" in args.configs:
        paired(args)
    for bench in args.benches:
        print("\nPer level, %s (perf context, per lookup, pooled over the runs):" % bench)
        print("%-12s %5s %9s %9s %9s %9s %8s" % ("config", "level", "checks", "fp", "cache_hit", "data_miss", "miss%"))
        for config in args.configs:
            runs = run_files(args, bench, config)
            if runs:
                counts = dbo.per_level_counts(read_text(r) for r in runs)
                emit(e2e_report.per_level_lines(config, counts, len(runs) * args.reads))
    return True


def _ops_cpu(args, bench, config, r):
    text = read_text(_path(args, "%s-%s-%d.out" % (bench, config, r)))
    return float(dbo.ops_per_sec(text, bench)), float(dbo.cpu_seconds(text))


def paired(args):
    print("\nPaired with builtin's run of the same repetition (median of the per-repetition ratios; runs in order):")
    open_builtin = float(dbo.cpu_seconds(read_text(_path(args, "open-builtin.out"))))
    for bench in args.benches:
        for config in args.configs:
            if config == "builtin":
                continue
            pairs, r = [], 1
            while all(os.path.isfile(_path(args, "%s-%s-%d.out" % (bench, c, r))) for c in (config, "builtin")):
                pairs.append(_ops_cpu(args, bench, config, r) + _ops_cpu(args, bench, "builtin", r))
                r += 1
            own = float(dbo.cpu_seconds(read_text(_path(args, "open-%s.out" % config))))
            line = e2e_report.paired_line(bench, config, pairs, own, open_builtin)
            if line:
                print(line)


def miss_bound(args, filters):
    """The bound weighted by storage reads: a level's checks times the
    fraction of its false positives that missed the block cache with the
    built-in filter (readmissing), i.e. the expected data misses per lookup
    at uniform 10 bits/key vs the best per-level bits if those miss
    fractions held. A level whose blocks stay cached barely counts. (Fewer
    false positives at a level also leave fewer of its blocks cached, so
    this is a guide, not a strict bound.)"""
    runs = run_files(args, "readmissing", "builtin")
    if not runs:
        return
    entries = {}
    for level, n, _ in filters["builtin"]:
        entries[level] = entries.get(level, 0) + n
    counts = dbo.per_level_counts(read_text(r) for r in runs)
    sys.stdout.write("\nBound on data misses/lookup (readmissing, built-in per-level miss fractions):\n  ")
    sys.stdout.write(level_bound(args, e2e_report.miss_bound_input(counts, entries), "--lookups",
                                 str(len(runs) * args.reads), "--bits", "10"))


def report(args):
    warn_unread(args)
    filters = {c: read_filters(_path(args, "filters-%s.txt" % c)) for c in args.configs}
    counts = {}
    for config in args.configs:
        counts[config] = dbo.per_level_counts([read_text(_path(args, "read-%s.out" % config))])
        write_counts(_path(args, "perlevel-%s.txt" % config), counts[config])
    summary = per_level_and_totals(args, filters, counts)
    versus(args, summary, counts)
    has_bound = os.access(args.level_bound, os.X_OK)
    if has_bound:
        bound_per_tree(args, filters, counts)
    shapes(args)
    sys.stdout.flush()
    if end_to_end(args, filters) and has_bound and "builtin" in args.configs:
        miss_bound(args, filters)
