"""The pair script's tables from the fixture run (2 configurations, 2
repetitions of readmissing and multireadrandom, direct reads, 1 MB cache),
against the report the shell script printed from the same outputs."""
import contextlib
import io
import os
import shutil
import tempfile
import unittest
from argparse import Namespace

from bench_test_paths import fixture, fixture_text, section

import dbbench_output as dbo
import e2e_report
import pair_output
import pair_report
from rocksdb_tools import read_text

CONFIGS = ["level_aware", "builtin"]
READS = 2000


def filters(config):
    return pair_output.read_filters(fixture("pair", "filters-%s.txt" % config))


def counts(config, bench="readmissing", runs=(1,)):
    return dbo.per_level_counts([fixture_text("pair", "%s-%s-%d.out" % (bench, config, r)) for r in runs])


class PairReportTest(unittest.TestCase):
    def setUp(self):
        self.report = fixture_text("pair", "report.txt")

    def test_per_level_lines(self):
        want = section(self.report, "config       level  files")[1:]
        got = sum((pair_report.per_level_lines(c, filters(c), counts(c)) for c in CONFIGS), [])
        self.assertEqual(got, want)

    def test_totals_and_versus(self):
        got = [pair_report.totals_line(c, filters(c), fixture_text("pair", "readmissing-%s-1.out" % c), READS)
               for c in CONFIGS]
        self.assertEqual(got, section(self.report, "config       filter_bytes")[1:])
        self.assertEqual(got, fixture_text("pair", "summary.txt").splitlines())
        self.assertEqual(pair_report.versus_lines(got), section(self.report, "level_aware vs the others")[1:2])

    def test_bound_input_and_last_allocation(self):
        self.assertEqual(pair_report.bound_input(filters("builtin"), counts("builtin")), "5 4307 1559\n6 10049 1998\n")
        want = section(self.report, "level_aware's last allocation")[1].strip()
        self.assertEqual(pair_report.last_allocation([fixture_text("pair", "db-level_aware", "LOG")]), want)
        self.assertIsNone(pair_report.last_allocation(["no allocation here\n"]))

    def test_cross_check_marks_levels_the_other_tree_lacks(self):
        level_aware = {5: [990, 10, 0, 0], 6: [950, 50, 0, 0]}
        other = {0: [900, 100, 0, 0], 5: [980, 20, 0, 0], 6: [960, 40, 0, 0]}
        # L0 at its own rate (100 / 1000), L5 and L6 at level_aware's.
        line = pair_report.cross_check_line("uniform", other, level_aware, 1000)
        self.assertEqual(line, "  on uniform    fp/lookup 0.16000* vs its own 0.16000:   +0.0 %")
        line = pair_report.cross_check_line("builtin", {5: [980, 20, 0, 0]}, level_aware, 1000)
        self.assertEqual(line, "  on builtin    fp/lookup 0.01000 vs its own 0.02000:  -50.0 %")


class EndToEndTest(unittest.TestCase):
    def setUp(self):
        self.report = fixture_text("pair", "report.txt")
        self.lines = fixture_text("pair", "e2e.txt").splitlines()

    def test_summarize_runs_reproduces_e2e_txt(self):
        got = []
        for bench in ("readmissing", "multireadrandom"):
            for config in CONFIGS:
                runs = [fixture_text("pair", "%s-%s-%d.out" % (bench, config, r)) for r in (1, 2)]
                got.append(e2e_report.summarize_runs(bench, config, fixture_text("pair", "open-%s.out" % config),
                                                     runs, READS))
        self.assertEqual(got, self.lines)

    def test_tables(self):
        sizes = {c: sum(f[2] for f in filters(c)) for c in CONFIGS}
        got = e2e_report.end_to_end_tables(self.lines, sizes)
        start = self.report.split("\n").index("readmissing      config           ops/s      x  cpu_ns      x  "
                                              "data_miss      x        fp     filter_B      x")
        self.assertEqual(got, self.report.split("\n")[start - 1:start - 1 + len(got)])

    def test_paired_and_per_level(self):
        def ops_cpu(bench, config, r):
            text = fixture_text("pair", "%s-%s-%d.out" % (bench, config, r))
            return float(dbo.ops_per_sec(text, bench)), float(dbo.cpu_seconds(text))

        open_cpu = {c: float(dbo.cpu_seconds(fixture_text("pair", "open-%s.out" % c))) for c in CONFIGS}
        got = []
        for b in ("readmissing", "multireadrandom"):
            pairs = [ops_cpu(b, "level_aware", r) + ops_cpu(b, "builtin", r) for r in (1, 2)]
            got.append(e2e_report.paired_line(b, "level_aware", pairs, open_cpu["level_aware"], open_cpu["builtin"]))
        self.assertEqual(got, section(self.report, "Paired with builtin")[1:])
        self.assertIsNone(e2e_report.paired_line("readmissing", "uniform", [(1.0, 1.0, 0.0, 1.0)], 0, 0))
        got = sum((e2e_report.per_level_lines(c, counts(c, "multireadrandom", (1, 2)), 2 * READS) for c in CONFIGS), [])
        self.assertEqual(got, section(self.report, "Per level, multireadrandom")[2:])

    def test_miss_bound_input(self):
        entries = {5: 4307, 6: 10049}
        # L5: 3112 checks, 4 hits and 24 misses -> 3112 * 24 / 28.
        got = e2e_report.miss_bound_input(counts("builtin", "readmissing", (1, 2)), entries)
        self.assertEqual(got.splitlines()[0], "5 4307 %s" % dbo.number_text(3112 * 24 / 28))


class WholeReportTest(unittest.TestCase):
    """The whole report of a workdir (without linebloom-level-bound, whose
    sections are left out) against the shell script's."""

    def test_report_of_a_workdir(self):
        with tempfile.TemporaryDirectory() as work:
            shutil.copytree(fixture("pair"), work, dirs_exist_ok=True)
            for config in CONFIGS:
                shutil.copy(os.path.join(work, "readmissing-%s-1.out" % config),
                            os.path.join(work, "read-%s.out" % config))
            args = Namespace(workdir=work, configs=CONFIGS, benches=["readmissing", "multireadrandom"], reads=READS,
                             separate_trees=False, fill_seed=1, passes=3, cache_mb=1, direct_reads=True,
                             level_bound=os.path.join(work, "no-such-tool"))
            out = io.StringIO()
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
                pair_output.report(args)
            self.assertEqual(fixture_text("pair", "summary.txt"), read_text(os.path.join(work, "summary.txt")))
            self.assertEqual(fixture_text("pair", "e2e.txt"), read_text(os.path.join(work, "e2e.txt")))
        want = self.report_without_bounds()
        self.assertEqual(out.getvalue(), want)

    @staticmethod
    def report_without_bounds():
        blocks = fixture_text("pair", "report.txt").split("\n\n")
        return "\n\n".join(b for b in blocks if not b.startswith("Bound")) + "\n"


if __name__ == "__main__":
    unittest.main()
