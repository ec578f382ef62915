"""The live script's tables from the fixture run (100 000 keys plus as many
overwrites, the listener on, 20 000 reads), against the report the shell
script printed from the same outputs."""
import unittest

from bench_test_paths import fixture_text, section

import dbbench_output as dbo
import live_report

READS = 20000


def filters(config):
    lines = fixture_text("live", "filters-%s.txt" % config).splitlines()
    return [tuple(int(x) for x in line.split()) for line in lines]


class LiveReportTest(unittest.TestCase):
    def setUp(self):
        self.report = fixture_text("live", "report.txt")

    def test_builtin_formula_matches_the_builtin_filters(self):
        # The built-in copy's real filter block sizes, file by file.
        for _, _, entries, size in filters("builtin"):
            self.assertEqual(live_report.builtin_bytes(entries), size)

    def test_written_levels_from_the_log_events(self):
        written = live_report.written_levels(fixture_text("live", "LOG.events"))
        lines = fixture_text("live", "written-live.txt").splitlines()
        want = dict(tuple(int(x) for x in line.split()) for line in lines)
        for _, number, _, _ in filters("live"):
            self.assertEqual(written[number], want[number])

    def test_sst_table(self):
        written = live_report.written_levels(fixture_text("live", "LOG.events"))
        want = section(self.report, "level  how")[1:]
        self.assertEqual(live_report.sst_table(filters("live"), written), want)

    def test_sst_table_splits_by_how_files_got_there(self):
        rows = [(4, 10, 100, 200), (4, 11, 100, 200), (5, 12, 50, 100), (6, 13, 0, 0)]
        got = live_report.sst_table(rows, {10: 4, 11: 3})
        self.assertEqual([line.split()[:4] for line in got],
                         [["L4", "all", "2", "200"], ["L4", "written", "1", "100"], ["L4", "moved", "1", "100"],
                          ["L5", "all", "1", "50"], ["L5", "unknown", "1", "50"], ["L6", "all", "1", "0"],
                          ["L6", "nofilt", "1", "0"], ["total", "all", "4", "250"], ["total", "written", "1", "100"],
                          ["total", "moved", "1", "100"], ["total", "unknown", "1", "50"],
                          ["total", "nofilt", "1", "0"]])

    def test_log_summary(self):
        log = "\n".join([
            "2026/01/01-00:00:00.1 7f01 [db/compaction_job.cc:1] Moving #12 to level-4 1024 bytes",
            "2026/01/01-00:00:00.2 7f01 [db/compaction_job.cc:1] Moving #13 to level-4 1024 bytes",
            "2026/01/01-00:00:00.3 7f01 [db/compaction_job.cc:1] Moving #14 to level-5 1024 bytes",
            '2026/01/01-00:00:00.4 7f01 EVENT_LOG_v1 {"job": 3, "event": "compaction_finished", "output_level": 5}',
            '2026/01/01-00:00:00.5 7f01 EVENT_LOG_v1 {"job": 4, "event": "flush_finished", '
            '"filter_policy": "linebloom"}',
            "2026/01/01-00:00:00.6 7f02 [WARN] [db/column_family.cc:1] Stalling writes",
            "2026/01/01-00:00:00.7 7f03 [WARN] [db/column_family.cc:1] Stalling writes",
            "2026/01/01-00:00:00.8 7f02 [ERROR] [db/db_impl.cc:1] Background error IO error: disk",
            "2026/01/01-00:00:00.9 7f02 linebloom level_aware [default]: average 10.0: L4 bits=15.0",
            "2026/01/01-00:00:01.0 7f02 linebloom level_aware [default]: tracked tree; L4 bits=14.0",
            "2026/01/01-00:00:01.1 7f02                 filter_policy: linebloom",
            ""])
        self.assertEqual(live_report.log_summary(log), [
            "LOG: trivial moves 3, compactions finished 1, flushes 1, files deleted 0",
            "LOG: trivial moves by target level: L4:2 L5:1 ",
            "LOG: [WARN]/[ERROR]/[FATAL] lines 3, Status lines (Corruption:/IO error:/Invalid argument:/"
            "Background error) 1",
            "      2 [WARN] [db/column_family.cc:1] Stalling writes",
            "      1 [ERROR] [db/db_impl.cc:1] Background error IO error: disk",
            "LOG: linebloom lines: 3 (level_aware allocations 2, of them tracked-tree plans 1; other 1)",
            "      1                 filter_policy: linebloom",
            "last allocation:",
            "  linebloom level_aware [default]: tracked tree; L4 bits=14.0"])

    def test_reads(self):
        got = [live_report.readmissing_line(c, filters(c), fixture_text("live", "readmissing-%s.out" % c), READS)
               for c in ("live", "builtin")]
        want = section(self.report, "config         filter_B")[1:]
        self.assertEqual(got, [want[0], want[2]])
        got = []
        for config in ("live", "builtin"):
            counts = dbo.per_level_counts([fixture_text("live", "readmissing-%s.out" % config)])
            got += live_report.per_level_lines(config, filters(config), counts, READS)
        want = section(self.report, "config     level    checks")[1:]
        self.assertEqual(got, [line for line in want if not line.startswith("uniform")])


if __name__ == "__main__":
    unittest.main()
