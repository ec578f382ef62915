#!/usr/bin/env python3
"""db_bench: level-aware linebloom vs uniform linebloom vs RocksDB's built-in
Bloom filter, all at (an average of) 10 bits/key, on the same multi-level LSM
tree; then readmissing. Reports, from RocksDB's own statistics, the false
positives per absent-key lookup
  (rocksdb.bloom.filter.full.positive - full.true.positive) / reads
and, from the table properties of the live SSTs (sst_dump), the filter bytes
and filter entries per level and in total.

The tree: leveled compaction with level_compaction_dynamic_level_bytes
(levels sized exactly size-ratio 10 apart from the last level up; RocksDB's
recommended setting), tiny write buffers and level base so a few million keys
populate L0 plus four levels (L3..L6). No manual compaction: that would
collapse the tree into one level.

Same tree (the default): fill ONE DB once, then for each configuration copy
it and rewrite every live SST at its own level with that configuration's
filter policy (linebloom-refilter), so all configurations are read on
identical trees (same keys per level). --separate-trees: each configuration
fills its own DB with the same keys; the trees then differ with background
compaction timing, and how many lookups reach each level varied more between
them than the filters' difference.

Stages (subcommands): run (everything), refilter (keep the shared fill of an
earlier run in the work directory, same --num and geometry, and redo
everything from the refilter on), reads (keep the refiltered DBs, same --num
and configurations, and redo the reads and the report), report (keep the DBs
and db_bench outputs, re-read the SSTs' properties and print the report).

The end-to-end mode (what e2e_direct.sh sets): --direct-reads gives the
reading OPTIONS use_direct_reads=true (no page cache under the block cache)
and max_open_files=-1 (every table reader, and with it every filter and
index, stays in memory; cache_index_and_filter_blocks=false keeps them out of
the block cache, so data blocks cannot evict them); the fill and the
refilter do not use direct I/O. --benches adds multireadrandom (batched
MultiGet of --multiget-batch keys with --key_size 17 against the fill's
16-byte keys: every key is absent, sorting right after a written one, like
readmissing's keys). --repeats runs each benchmark per configuration that
many times, alternating configurations run by run (the starting
configuration rotates), with the same seed for every configuration within a
repetition; the report gives medians of ops/s and counters pooled over the
runs (e2e_report.py). The counters come from --statistics minus those of a
run that only opens the DB (its table reads), so they count the lookups'
own reads.
"""
import argparse
import os
import shutil
import sys
import time
from itertools import zip_longest

import pair_output
import rocksdb_tools
from rocksdb_tools import run_logged, write_lsm_options

CONFIGS = ("level_aware", "cache_aware", "uniform", "builtin", "ribbon", "hybrid", "la_compact")
# The tree's last level (num_levels=7, level_compaction_dynamic_level_bytes:
# the data settles at L6): where hybrid and la_compact switch to their
# smaller filter, as RocksDB's bloom_before_level and linebloom's
# compact_from_level count levels.
LAST_LEVEL = 6
# Configurations whose policy learns the tree from the filters it builds
# (the refilter's passes).
LEVEL_AWARE = ("level_aware", "cache_aware", "la_compact")
BENCHES = ("readmissing", "multireadrandom")
# flush: leave no WAL, so readmissing's DB::Open does not write a recovery L0
# file (its policy would not know the tree's shape yet).
FILL_BENCHMARKS = "fillrandom,flush,waitforcompaction,levelstats"
# --no-trivial-move alternates the configured compression of adjacent levels
# (none / LZ4), which stops RocksDB from moving a file to the next level
# without rewriting it (Compaction::IsTrivialMove requires the same
# compression); values are made incompressible (--compression_ratio=1), so
# LZ4 levels store their blocks uncompressed and every level's bytes per key
# stay the same. A moved file keeps the filter of the level it was written
# for, so trivial moves blur per-level bits.
ALTERNATING_COMPRESSION = ("compression_per_level=kNoCompression:kLZ4Compression:kNoCompression:kLZ4Compression:"
                           "kNoCompression:kLZ4Compression:kNoCompression")


def word_list(allowed):
    def parse(text):
        words = text.replace(",", " ").split()
        bad = [w for w in words if w not in allowed]
        if bad or not words:
            raise argparse.ArgumentTypeError("%r: choose from %s" % (text, ", ".join(allowed)))
        return words
    return parse


def common_parser(one_tree=True):
    """The options of every stage; ONE_TREE=False leaves out those a caller
    that runs many trees sets itself (work directory, configurations, fill
    seed)."""
    p = argparse.ArgumentParser(add_help=False)
    p.add_argument("plugin", help="path to liblinebloom_rocksdb.so (preloaded into db_bench and the tools)")
    p.add_argument("--num", type=int, default=2000000, help="keys written (default %(default)s)")
    p.add_argument("--reads", type=int, default=500000, help="lookups per run (default %(default)s)")
    p.add_argument("--value-size", type=int, default=32, help="default %(default)s")
    p.add_argument("--db-bench", default="db_bench")
    p.add_argument("--sst-dump", default="sst_dump")
    p.add_argument("--ldb", default="ldb")
    p.add_argument("--la-bits", default="10",
                   help="level_aware's bits_per_key (default 10); its live filter bytes can land a few %% above "
                        "the budget (trivial moves, levels off the model's sizes), so an equal-memory comparison "
                        "may set it lower -- the report prints every config's bytes")
    p.add_argument("--ribbon-bits", default="14", help="ribbon's (NewRibbonFilterPolicy(b, -1)) bits_per_key, "
                   "Bloom-equivalent as RocksDB counts them (default 14)")
    p.add_argument("--hybrid-bits", default="13", help="hybrid's bits_per_key: the built-in Bloom filter above "
                   "the last level, Ribbon at it (ribbonfilter:b:%d; default 13)" % LAST_LEVEL)
    p.add_argument("--lac-bits", default="10", help="la_compact's bits_per_key: level-aware linebloom, the "
                   "compact kind from --lac-from-level (default 10)")
    p.add_argument("--lac-from-level", type=int, default=LAST_LEVEL,
                   help="la_compact's compact_from_level: the compact kind at this level and below it, Bloom "
                        "above (default %d, the last level; 0: every level)" % LAST_LEVEL)
    p.add_argument("--la-options", default="", help="more ';'-separated policy options of level_aware and "
                                                    "cache_aware (e.g. level_weights=0.1:1:1:1:1:1:1)")
    p.add_argument("--l0-trigger", type=int, default=4, help="level0_file_num_compaction_trigger (default 4; 1 "
                   "leaves no L0 files after the fill, so separate trees differ less)")
    p.add_argument("--no-trivial-move", action="store_true", help="alternate the levels' compression")
    p.add_argument("--separate-trees", action="store_true", help="one fill per configuration")
    p.add_argument("--passes", type=int, default=3, help="linebloom-refilter --passes (default 3)")
    p.add_argument("--refilter", help="linebloom-refilter (default: built next to the plugin)")
    p.add_argument("--level-bound", help="linebloom-level-bound, scores each tree (default: next to the plugin)")
    rocksdb_tools.add_geometry_args(p, 65536)
    p.add_argument("--direct-reads", action=argparse.BooleanOptionalAction, default=False,
                   help="the reads with O_DIRECT (see above)")
    p.add_argument("--cache-mb", type=int, help="block cache MB of the reads (default: db_bench's)")
    p.add_argument("--benches", type=word_list(BENCHES), default=["readmissing"],
                   help="readmissing and/or multireadrandom (default readmissing)")
    p.add_argument("--repeats", type=int, default=1, help="runs per benchmark and configuration (default 1)")
    p.add_argument("--multiget-batch", type=int, default=32, help="default %(default)s")
    if one_tree:
        p.add_argument("--workdir", default="/tmp/linebloom-level-aware")
        p.add_argument("--configs", type=word_list(CONFIGS), default=["level_aware", "uniform", "builtin"],
                       help="comma- or space-separated, of %s (default level_aware,uniform,builtin); "
                            "cache_aware: level_aware weighting levels by block cache misses" % ",".join(CONFIGS))
        p.add_argument("--fill-seed", type=int, default=1, help="db_bench --seed of the fill (default 1)")
    return p


def build_parser():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="stage", required=True, metavar="STAGE")
    common = common_parser()
    for stage, text in (("run", "fill, refilter, read and report"),
                        ("refilter", "reuse the shared fill; refilter, read and report"),
                        ("reads", "reuse the refiltered DBs; read and report"),
                        ("report", "reuse the DBs and the reads' outputs; report")):
        sub.add_parser(stage, parents=[common], help=text, description=text)
    return parser


def policy_of(config, args):
    la = ";" + args.la_options if args.la_options else ""
    if config == "level_aware":
        return "{id=linebloom;bits_per_key=%s;level_aware=true;size_ratio=10%s}" % (args.la_bits, la)
    if config == "cache_aware":
        # level_aware, with each level weighted by the chance that a false
        # positive there misses the block cache of --cache-mb (the refilter
        # has no such cache, so its size is spelled out). Data bytes per
        # entry: the key, its 8 bytes of sequence number and type, the value,
        # less what prefix compression shares (sst_dump: "data block size" /
        # "# entries" is value size + 22 with these 16-byte keys).
        return ("{id=linebloom;bits_per_key=%s;level_aware=true;size_ratio=10;cache_aware=true;"
                "block_cache_bytes=%d;data_bytes_per_key=%d%s}" %
                (args.la_bits, (args.cache_mb or 8) * 1048576, args.value_size + 22, la))
    if config == "la_compact":
        return "{id=linebloom;bits_per_key=%s;level_aware=true;size_ratio=10;compact_from_level=%d%s}" % (
            args.lac_bits, args.lac_from_level, la)
    if config == "ribbon":
        return "ribbonfilter:%s:-1" % args.ribbon_bits
    if config == "hybrid":
        return "ribbonfilter:%s:%d" % (args.hybrid_bits, LAST_LEVEL)
    return "{id=linebloom;bits_per_key=10}" if config == "uniform" else "bloomfilter:10:false"


def write_options(args, config, path, disable=False, direct=False):
    """One OPTIONS file per configuration, identical apart from filter_policy.

    On a shared tree the configurations' files turn auto compactions off:
    they only read the refiltered tree (its files' sizes changed with their
    filters, which must not make readmissing's DB::Open compact anything);
    the shared fill uses fill.OPTIONS (the built-in's, compactions on).
    """
    compression = ALTERNATING_COMPRESSION if args.no_trivial_move else "compression=kNoCompression"
    write_lsm_options(path, args, policy_of(config, args), disable, direct, args.l0_trigger, compression)


def work(args, name):
    return os.path.join(args.workdir, name)


def db_bench(args, db, options, benchmarks):
    ratio = "--compression_ratio=1" if args.no_trivial_move else "--compression_ratio=0.5"
    return [args.db_bench, "--db=" + work(args, db), "--options_file=" + work(args, options),
            "--benchmarks=" + benchmarks, "--num=%d" % args.num, "--key_size=16", "--value_size=%d" % args.value_size,
            "--threads=1", "--statistics", ratio]


def run_read(args, config, bench, seed, out):
    """One read run, timed; perf_level=2: RocksDB's perf context counts
    filter answers and block cache hits and misses per level."""
    cmd = db_bench(args, "db-" + config, config + "-read.OPTIONS", bench)
    cmd += ["--use_existing_db=1", "--reads=%d" % args.reads, "--seed=%d" % seed, "--perf_level=2"]
    if args.cache_mb is not None:
        cmd += ["--cache_type=lru_cache", "--cache_size=%d" % (args.cache_mb * 1048576)]
    if bench == "multireadrandom":
        cmd += ["--key_size=17", "--multiread_batched=true", "--batch_size=%d" % args.multiget_batch]
    run_logged(cmd, out, args.plugin, timed=True)


def fill_shared(args):
    write_options(args, "builtin", work(args, "fill.OPTIONS"))
    shutil.rmtree(work(args, "db-fill"), ignore_errors=True)
    print("filling the shared tree (%d keys, seed %d)..." % (args.num, args.fill_seed), file=sys.stderr)
    start = time.time()
    run_logged(db_bench(args, "db-fill", "fill.OPTIONS", FILL_BENCHMARKS) + ["--seed=%d" % args.fill_seed],
               work(args, "fill.out"), args.plugin)
    print("  filled in %d s" % (time.time() - start), file=sys.stderr)


def refilter_copy(args, config):
    """A copy of the shared fill, every live SST rewritten at its own level
    with CONFIG's policy; the refilter exits non-zero (and so stops this
    script) if any level's entries changed. Only a level-aware policy learns
    from earlier passes; the others build the same filter every time, so one
    pass rewrites them all. The refilter times each pass's filter builds
    (--time-builds: "filter build pass P: S cpu_seconds ...")."""
    write_options(args, config, work(args, config + ".OPTIONS"), True)
    write_options(args, config, work(args, config + "-read.OPTIONS"), True, args.direct_reads)
    rocksdb_tools.copy_db(work(args, "db-fill"), work(args, "db-" + config))
    refilter_in_place(args, config, work(args, "refilter-%s.out" % config))
    shutil.copy(work(args, "fill.out"), work(args, "fill-%s.out" % config))


def refilter_in_place(args, config, out, passes=None):
    """Rewrites the filters of CONFIG's copy with its OPTIONS, as it is
    (PASSES: default --passes if level-aware, else 1)."""
    if passes is None:
        passes = args.passes if config in LEVEL_AWARE else 1
    run_logged([args.refilter, "--db=" + work(args, "db-" + config), "--options=" + work(args, config + ".OPTIONS"),
                "--passes=%d" % passes, "--time-builds"], out, None)


def fill_separate(args, config):
    write_options(args, config, work(args, config + ".OPTIONS"))
    write_options(args, config, work(args, config + "-read.OPTIONS"), False, args.direct_reads)
    print("filling %s (%d keys)..." % (config, args.num), file=sys.stderr)
    run_logged(db_bench(args, "db-" + config, config + ".OPTIONS", FILL_BENCHMARKS) + ["--seed=%d" % args.fill_seed],
               work(args, "fill-%s.out" % config), args.plugin)


def build_configs(args):
    """Each configuration's DB, its filters' properties and an open-only run
    (what opening the DB alone costs in the counters: the table readers'
    reads of footers, indexes and filters; subtracted from every run)."""
    for config in args.configs:
        if args.stage == "report":
            pair_output.save_filters(args, config)
            continue
        if args.stage == "reads":
            filters = work(args, "filters-%s.txt" % config)
            if not os.path.exists(filters) or not os.path.getsize(filters):
                sys.exit("reads: no earlier run of %s in %s" % (config, args.workdir))
            write_options(args, config, work(args, config + "-read.OPTIONS"), True, args.direct_reads)
        else:
            shutil.rmtree(work(args, "db-" + config), ignore_errors=True)
            start = time.time()
            if args.separate_trees:
                fill_separate(args, config)
                print("  filled in %d s" % (time.time() - start), file=sys.stderr)
            else:
                refilter_copy(args, config)
                print("refiltered %s in %d s" % (config, time.time() - start), file=sys.stderr)
            pair_output.save_filters(args, config)
        run_read(args, config, "levelstats", 1, work(args, "open-%s.out" % config))


def relay_copies(args):
    """The copies' storage, made alike: the refilter writes them one after
    the other, and with direct reads the copy written last read its blocks
    faster (2-14 % less time per block read on four trees, at equal data
    reads). Each copy is rewritten file by file, interleaved across the
    copies, so no configuration's files are newer than another's or laid out
    apart."""
    listings = []
    for config in args.configs:
        db = work(args, "db-" + config)
        shutil.rmtree(db + ".relaid", ignore_errors=True)
        os.mkdir(db + ".relaid")
        files = [name for name in sorted(os.listdir(db)) if not os.path.isdir(os.path.join(db, name))]
        listings.append([(config, name) for name in files])
    for row in zip_longest(*listings):
        for config, name in filter(None, row):
            db = work(args, "db-" + config)
            shutil.copy2(os.path.join(db, name), os.path.join(db + ".relaid", name))
    os.sync()
    for config in args.configs:
        db = work(args, "db-" + config)
        shutil.rmtree(db)
        os.rename(db + ".relaid", db)


def read_all(args):
    """The reads, alternating configurations run by run; the starting
    configuration rotates, so no configuration always runs right after the
    same other one. The per-level and totals tables read the first
    readmissing run (or the first run of the first benchmark)."""
    for bench in BENCHES:
        for name in os.listdir(args.workdir):
            if name.startswith(bench + "-") and name.endswith(".out") and name[:-4].rsplit("-", 1)[-1].isdigit():
                os.remove(work(args, name))
    for r in range(1, args.repeats + 1):
        k = (r - 1) % len(args.configs)
        order = args.configs[k:] + args.configs[:k]
        for bench in args.benches:
            for config in order:
                out = work(args, "%s-%s-%d.out" % (bench, config, r))
                run_read(args, config, bench, 1 + r, out)
                ops = pair_output.ops_of(out, bench)
                print("  %s %s run %d: %s ops/s" % (bench, config, r, ops or ""), file=sys.stderr)
    first = "readmissing" if "readmissing" in args.benches else args.benches[0]
    for config in args.configs:
        shutil.copy(work(args, "%s-%s-1.out" % (first, config)), work(args, "read-%s.out" % config))


def check_tools(args):
    if args.refilter is None:
        args.refilter = rocksdb_tools.tool_next_to_plugin(args.plugin, "linebloom-refilter")
    if args.level_bound is None:
        args.level_bound = rocksdb_tools.tool_next_to_plugin(args.plugin, "linebloom-level-bound")
    if args.stage == "refilter":
        if args.separate_trees:
            sys.exit("refilter: reuses the shared fill, so not with --separate-trees")
        if not os.path.isdir(work(args, "db-fill")) or not os.path.exists(work(args, "fill.out")):
            sys.exit("refilter: no fill in %s" % args.workdir)
    if args.stage in ("run", "refilter") and not args.separate_trees and not os.access(args.refilter, os.X_OK):
        sys.exit("a shared tree needs linebloom-refilter (not at %s; set --refilter)" % args.refilter)


def run(args):
    """Every step of ARGS.stage, on parsed arguments."""
    rocksdb_tools.resolve_geometry(args)
    os.makedirs(args.workdir, exist_ok=True)
    check_tools(args)
    if args.stage == "refilter":
        print("reusing the shared tree in %s" % work(args, "db-fill"), file=sys.stderr)
    elif args.stage == "run" and not args.separate_trees:
        fill_shared(args)
    build_configs(args)
    if args.stage in ("run", "refilter") and not args.separate_trees:
        relay_copies(args)
    if args.stage != "report":
        read_all(args)
    pair_output.report(args)


def main(argv=None):
    run(build_parser().parse_args(argv))


if __name__ == "__main__":
    main()
