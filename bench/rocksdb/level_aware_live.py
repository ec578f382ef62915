#!/usr/bin/env python3
"""db_bench: the level-aware linebloom policy with RocksDB's own flushes and
compactions building every filter (no refiltering), under random writes
followed by overwrites of the same key space, so that trivial moves,
compactions and file deletions happen while the policy tracks the tree. One
db_bench process runs both phases (the policy's books live in the process):
fillrandom, overwrite, flush, waitforcompaction, levelstats.

Measures, over the live SSTs afterwards (sst_dump table properties): per
level and in total, files, filter entries, linebloom's real filter bytes
("filter block size") and the bytes RocksDB's built-in Bloom filter
(format_version 5, 10 bits/key) takes for the same entries,
    5 + 64 * ceil(ceil(n * 10000 / 8000) / 64)   per file of n entries,
and their ratio; the same split by how the file got to its level: written
there by a compaction (or flush) vs. moved there unrewritten (trivial move),
from the DB LOG's events; the trivial moves and the policy's lines in the
LOG (live_report.py).

--reads N > 0: then readmissing on the live tree and on copies of it
refiltered (linebloom-refilter) with uniform linebloom and with the built-in
Bloom filter, both at 10 bits/key: false positives per absent-key lookup from
rocksdb.bloom.filter.{full.positive,full.true.positive}, per level from the
perf context (perf_level 2), and the built-in copy's real filter bytes, which
checks the formula above; and the live filters scored against the best
per-level allocation of the built-in's bytes on this tree
(linebloom-level-bound --filters, as level_aware_score.py scores).

Stages (subcommands): run (everything), reads (keep the DBs of an earlier
run, --reads > 0, and redo the reads), report (keep the DBs and outputs of an
earlier run and report again).
"""
import argparse
import glob
import os
import shutil
import subprocess
import sys
import time

import dbbench_output as dbo
import live_report
import pair_report
import rocksdb_tools
from rocksdb_tools import read_text, run_logged

LA_POLICY = "{id=linebloom;bits_per_key=10;level_aware=true;size_ratio=10}"
REFERENCES = (("uniform", "{id=linebloom;bits_per_key=10}"), ("builtin", "bloomfilter:10:false"))


def build_parser():
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("plugin", help="path to liblinebloom_rocksdb.so (preloaded into db_bench and the tools)")
    common.add_argument("--num", type=int, default=2000000, help="keys of each phase (default %(default)s)")
    common.add_argument("--no-overwrite", action="store_true", help="the fill alone, no overwrites")
    common.add_argument("--value-size", type=int, default=100, help="default %(default)s")
    rocksdb_tools.add_geometry_args(common, 131072)
    common.add_argument("--la-policy", default=LA_POLICY, help="default %(default)s")
    common.add_argument("--fill-seed", type=int, default=1, help="default %(default)s")
    common.add_argument("--reads", type=int, default=0, help="absent-key lookups per readmissing run (default 0)")
    common.add_argument("--workdir", default="/tmp/linebloom-level-aware-live")
    common.add_argument("--db-bench", default="db_bench")
    common.add_argument("--sst-dump", default="sst_dump")
    common.add_argument("--ldb", default="ldb")
    common.add_argument("--refilter", help="linebloom-refilter (default: built next to the plugin)")
    common.add_argument("--level-bound", help="linebloom-level-bound (default: built next to the plugin)")
    common.add_argument("--no-listener", action="store_true",
                        help="without linebloom's level-aware listener (listeners={id=linebloom_level_aware}, "
                             "which hands the policy the live files after every compaction)")
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="stage", required=True, metavar="STAGE")
    for stage, text in (("run", "fill, report, and read if --reads > 0"),
                        ("reads", "reuse the DBs of an earlier run; read and report"),
                        ("report", "reuse the DBs and outputs of an earlier run; report")):
        sub.add_parser(stage, parents=[common], help=text, description=text)
    return parser


def listener_line(args):
    return "" if args.no_listener else "listeners={id=linebloom_level_aware}"


def write_options(args, path, policy, disable):
    rocksdb_tools.write_lsm_options(path, args, policy, disable, db_line=listener_line(args))


def work(args, name):
    return os.path.join(args.workdir, name)


def fill(args):
    """Both phases in one db_bench process; --num is the key space and each
    phase's writes. flush: no WAL left, so a later open writes no recovery
    L0 file."""
    write_options(args, work(args, "live.OPTIONS"), args.la_policy, False)
    shutil.rmtree(work(args, "db-live"), ignore_errors=True)
    benchmarks = ("fillrandom" + ("" if args.no_overwrite else ",overwrite") +
                  ",flush,waitforcompaction,levelstats,stats")
    print("fill of %d keys%s in one process..." % (args.num, "" if args.no_overwrite else
                                                     ", then %d overwrites" % args.num), file=sys.stderr)
    start = time.time()
    run_logged([args.db_bench, "--db=" + work(args, "db-live"), "--options_file=" + work(args, "live.OPTIONS"),
                "--benchmarks=" + benchmarks, "--num=%d" % args.num, "--key_size=16",
                "--value_size=%d" % args.value_size, "--compression_ratio=0.5", "--threads=1", "--statistics",
                "--seed=%d" % args.fill_seed], work(args, "live.out"), args.plugin)
    print("  done in %d s" % (time.time() - start), file=sys.stderr)


def save_filters(args, config):
    rows = rocksdb_tools.sst_filters(work(args, "db-" + config), args.plugin, args.ldb, args.sst_dump)
    with open(work(args, "filters-%s.txt" % config), "w") as f:
        f.writelines("%d %d %d %d\n" % row for row in rows)
    return rows


def log_text(db):
    paths = sorted(glob.glob(os.path.join(db, "LOG.old.*"))) + [os.path.join(db, "LOG")]
    return "".join(read_text(p) for p in paths if os.path.isfile(p))


def live_tree(args):
    filters = save_filters(args, "live")
    log = log_text(work(args, "db-live"))
    written = live_report.written_levels(log)
    with open(work(args, "written-live.txt"), "w") as f:
        f.writelines("%d %d\n" % item for item in written.items())
    out = read_text(work(args, "live.out"))
    version = dbo.rocksdb_version_line(out)
    if version:
        print(version)
    print("fill %d keys%s (16-byte keys, %d-byte values), write buffer %d," %
          (args.num, "" if args.no_overwrite else " + overwrite %d keys" % args.num, args.value_size,
           args.write_buffer))
    print("target file %d, level base %d, dynamic level bytes; policy %s; listener: %s" %
          (args.target_file, args.level_base, args.la_policy, listener_line(args) or "none"))
    print("LSM shape (level:files), db_bench levelstats at the end:")
    print(dbo.lsm_shape(out))
    print("\nLive SSTs (written = built at this level by RocksDB; moved = trivially moved here from above):")
    print("%-6s %-8s %6s %10s %12s %12s %7s %8s" %
          ("level", "how", "files", "entries", "linebloom_B", "builtin_B", "ratio", "bits/key"))
    emit(live_report.sst_table(filters, written))
    print()
    emit(live_report.log_summary(log))


def emit(lines):
    for line in lines:
        print(line)


def refiltered_copies(args):
    """Copies of the live tree refiltered (same files, same levels) for
    reference."""
    write_options(args, work(args, "read-live.OPTIONS"), args.la_policy, True)
    filters = {}
    for config, policy in REFERENCES:
        write_options(args, work(args, config + ".OPTIONS"), policy, True)
        shutil.copy(work(args, config + ".OPTIONS"), work(args, "read-%s.OPTIONS" % config))
        if args.stage == "run":
            rocksdb_tools.copy_db(work(args, "db-live"), work(args, "db-" + config))
            run_logged([args.refilter, "--db=" + work(args, "db-" + config),
                        "--options=" + work(args, config + ".OPTIONS"), "--passes=1"],
                       work(args, "refilter-%s.out" % config), None)
        filters[config] = save_filters(args, config)
    return filters


def reads(args, filters):
    configs = ["live"] + [c for c, _ in REFERENCES]
    print("\nreadmissing, %d absent keys (fp = full.positive - full.true.positive; bytes: live SSTs, sst_dump):" %
          args.reads)
    print("%-10s %12s %12s %9s %10s %12s %10s" %
          ("config", "filter_B", "builtin_fml", "x_fml", "checks/lk", "fp", "fp/lookup"))
    texts = {}
    for config in configs:
        out = work(args, "readmissing-%s.out" % config)
        if args.stage != "report":
            run_logged([args.db_bench, "--db=" + work(args, "db-" + config),
                        "--options_file=" + work(args, "read-%s.OPTIONS" % config), "--benchmarks=readmissing",
                        "--num=%d" % args.num, "--key_size=16", "--value_size=%d" % args.value_size, "--threads=1",
                        "--statistics", "--perf_level=2", "--use_existing_db=1", "--reads=%d" % args.reads,
                        "--seed=2"], out, args.plugin)
        texts[config] = read_text(out)
        print(live_report.readmissing_line(config, filters[config], texts[config], args.reads))
    print("\nreadmissing per level (perf context): checks and false positives per lookup, FPR of the level's filters:")
    print("%-10s %5s %9s %10s %8s %9s" % ("config", "level", "checks", "fp/lookup", "fpr%", "bits/key"))
    for config in configs:
        counts = dbo.per_level_counts([texts[config]])
        emit(live_report.per_level_lines(config, filters[config], counts, args.reads))
    return texts


def score(args, filters, texts):
    """The live level-aware filters against the best per-level allocation of
    the built-in's bytes on this tree (linebloom-level-bound --filters, the
    scorer of level_aware_score.py): entries per level from the built-in
    copy's filters, lookups reaching each level from its per-level answers."""
    print("\nlive level-aware against the best per-level allocation at the built-in's bytes (linebloom-level-bound):")
    counts = dbo.per_level_counts([texts["builtin"]])
    with open(work(args, "perlevel-builtin.txt"), "w") as f:
        f.writelines("%d %d %d %d %d\n" % (level, *counts[level]) for level in sorted(counts))
    stdin = pair_report.bound_input([(level, n, b) for level, _, n, b in filters["builtin"]], counts)
    fp = {c: "%.6f" % (live_report.false_positives(texts[c])[1] / args.reads) for c in ("live", "builtin")}
    size = {c: str(sum(f[3] for f in filters[c])) for c in ("live", "builtin")}
    sys.stdout.flush()
    subprocess.run([args.level_bound, "--lookups", str(args.reads), "--filters", str(len(filters["builtin"])),
                    "--target-score", "0.85", "--candidate-fp", fp["live"], "--reference-fp", fp["builtin"],
                    "--candidate-bytes", size["live"], "--reference-bytes", size["builtin"]], input=stdin, text=True)


def main(argv=None):
    parser = build_parser()
    args = parser.parse_args(argv)
    rocksdb_tools.resolve_geometry(args)
    if args.stage == "reads" and args.reads <= 0:
        parser.error("reads needs --reads > 0")
    args.refilter = args.refilter or rocksdb_tools.tool_next_to_plugin(args.plugin, "linebloom-refilter")
    args.level_bound = args.level_bound or rocksdb_tools.tool_next_to_plugin(args.plugin, "linebloom-level-bound")
    os.makedirs(args.workdir, exist_ok=True)
    if args.stage == "run":
        fill(args)
    live_tree(args)
    if args.reads <= 0:
        return
    if not os.access(args.refilter, os.X_OK):
        sys.exit("--reads needs linebloom-refilter (not at %s; set --refilter)" % args.refilter)
    filters = refiltered_copies(args)
    filters["live"] = [tuple(int(x) for x in line.split()) for line in
                       read_text(work(args, "filters-live.txt")).splitlines()]
    texts = reads(args, filters)
    if os.access(args.level_bound, os.X_OK):
        score(args, filters, texts)


if __name__ == "__main__":
    main()
