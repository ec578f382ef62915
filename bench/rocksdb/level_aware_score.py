#!/usr/bin/env python3
"""Pass/fail of level-aware linebloom per fill: for each fill seed runs
level_aware_pair.py (one tree, refiltered per configuration) and scores
level_aware against RocksDB's built-in Bloom filter on that tree with
linebloom-level-bound:
  score = (fp_builtin - fp_level_aware) / (fp_builtin - best)
where best is the bound's figure: the false positives per lookup of the best
per-level bits, knowing each level's lookups exactly, at equal filter bytes:
the built-in's real bytes (sst_dump's filter block sizes, block rounding
included) less linebloom's 16-byte trailer per file, spread over the tree's
entries (linebloom-level-bound --filters). PASS: score >= --target (0.85)
and level_aware's real filter bytes <= the built-in's.

Each seed's pair run goes to the work directory's sSEED/ (its output: pair.out, the
bound's: score.txt); the pair's options (--num, --reads, ...) are taken as
they are.
"""
import argparse
import contextlib
import copy
import os
import re
import subprocess
import sys
import traceback

import level_aware_pair
import pair_report
import rocksdb_tools
from rocksdb_tools import read_text


def build_parser():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     parents=[level_aware_pair.common_parser(False)],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", type=lambda t: [int(s) for s in t.replace(",", " ").split()],
                        default=list(range(1, 11)), help="fill seeds (default 1..10)")
    parser.add_argument("--workdir", default="/tmp/linebloom-level-score", help="one subdirectory per seed")
    parser.add_argument("--target", default="0.85", help="the share of the bound to reach (default 0.85)")
    stage = parser.add_mutually_exclusive_group()
    stage.add_argument("--reuse-fill", action="store_true",
                       help="score again the fills a run left in the work directory (refilter, read, score)")
    stage.add_argument("--score-only", action="store_true", help="score the runs already in the work directory")
    return parser


def run_pair(args, seed, work):
    """level_aware_pair.py on one fill; False if it failed."""
    pair = copy.copy(args)
    pair.stage = "refilter" if args.reuse_fill else "run"
    pair.workdir, pair.fill_seed, pair.configs = work, seed, ["level_aware", "builtin"]
    os.makedirs(work, exist_ok=True)
    with open(os.path.join(work, "pair.out"), "w") as out:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            try:
                level_aware_pair.run(pair)
            except SystemExit as e:
                print(e, file=out)
                return False
            except Exception:  # a failed run fails its seed, not the others
                traceback.print_exc(file=out)
                return False
    return True


def score(args, work):
    """The bound's score line on the built-in's tree (all configurations
    read the same tree), from the pair's summary and per-level counts."""
    summary = {line.split()[0]: line.split() for line in read_text(os.path.join(work, "summary.txt")).splitlines()}
    filters = [tuple(int(x) for x in line.split()) for line in
               read_text(os.path.join(work, "filters-builtin.txt")).splitlines()]
    counts = {int(f[0]): [int(x) for x in f[1:]] for f in
              (line.split() for line in read_text(os.path.join(work, "perlevel-builtin.txt")).splitlines())}
    done = subprocess.run([args.level_bound, "--lookups", str(args.reads), "--filters", str(len(filters)),
                           "--target-score", args.target, "--candidate-fp", summary["level_aware"][6],
                           "--reference-fp", summary["builtin"][6], "--candidate-bytes", summary["level_aware"][1],
                           "--reference-bytes", summary["builtin"][1]],
                          input=pair_report.bound_input(filters, counts), stdout=subprocess.PIPE, text=True)
    with open(os.path.join(work, "score.txt"), "w") as f:
        f.write(done.stdout)
    return done.stdout


def one_line(text):
    """The bound's lines on one line, runs of blanks as one (tr -s '\\n' ' ')."""
    return re.sub(" +", " ", text.replace("\n", " "))


def main(argv=None):
    args = build_parser().parse_args(argv)
    if args.level_bound is None:
        args.level_bound = rocksdb_tools.tool_next_to_plugin(args.plugin, "linebloom-level-bound")
    fails = 0
    for seed in args.seeds:
        work = os.path.join(args.workdir, "s%d" % seed)
        if not args.score_only and not run_pair(args, seed, work):
            print("seed %d: pair script failed (see %s/pair.out)" % (seed, work))
            fails += 1
            continue
        text = score(args, work)
        print("seed %-3s %s" % (seed, one_line(text)), flush=True)
        if not any(re.search(": PASS$", line) for line in text.splitlines()):
            fails += 1
    print("%d fill(s) failed" % fails)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
