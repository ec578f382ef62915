"""compact_e2e.py's arithmetic and tables, on the outputs of a real run
(testdata/compact: one fill of 20 000 keys, the four configurations)."""
import unittest
from unittest import mock

from bench_test_paths import fixture_text

import compact_e2e
import compact_report


def rows(**changes):
    """Rows of four configurations, builtin's measures 1, changed by
    CHANGES {config: {field: value}}."""
    out = {c: {"bits": 10.0, "bytes": 1000.0, "fp": 1.0, "data_miss": 1.0, "ops": 1.0, "cpu": 1.0,
               "setup": 0.0}
           for c in compact_e2e.CONFIGS}
    for config, fields in changes.items():
        out[config].update(fields)
    return out


class NextBitsTest(unittest.TestCase):
    def test_scales_the_outermost_try_when_all_are_above(self):
        # 14 bits gave 10 % too many bytes: 14 / 1.1.
        self.assertEqual(compact_report.next_bits([(14, 1100)], 1000), round(14 / 1.1, 3))
        # Two tries above: the one of fewer bits is scaled.
        self.assertEqual(compact_report.next_bits([(14, 1100), (13, 1050)], 1000), round(13 / 1.05, 3))

    def test_steps_at_least_one_percent(self):
        # 0.1 % below the target would ask for 0.1 % more bits: 1 % instead.
        self.assertEqual(compact_report.next_bits([(10, 999)], 1000), 10.1)
        self.assertEqual(compact_report.next_bits([(10, 1001)], 1000), 9.9)

    def test_interpolates_within_a_bracket(self):
        self.assertEqual(compact_report.next_bits([(9, 900), (11, 1300)], 1000), 9.5)
        # The closest tries on each side bound the interpolation.
        self.assertEqual(compact_report.next_bits([(8, 700), (9, 900), (12, 1500), (11, 1300)], 1000), 9.5)

    def test_midpoint_when_the_interpolation_was_tried(self):
        # 999.95 bytes at 9 bits: the interpolation lands on 9 again.
        self.assertEqual(compact_report.next_bits([(9, 999.95), (11, 1300)], 1000), 10)

    def test_jump_and_closest(self):
        # The bytes jump by 2 % between 9.865 and 9.874 bits (a level-aware
        # policy moving a level to its next setting): stop, take the closer.
        steps = [(10, 1009.8), (9.801, 986.0), (9.865, 986.8), (9.874, 1007.3)]
        self.assertTrue(compact_report.jump(steps, 1000))
        self.assertFalse(compact_report.jump(steps[:3], 1000))
        self.assertFalse(compact_report.jump([(9.8, 990), (9.9, 1010)], 1000))
        self.assertEqual(compact_report.closest(steps, 1000), (9.874, 1007.3))
        self.assertEqual(compact_report.closest([(9, 990), (10, 1010)], 1000), (10, 1010))

    def test_the_fixture_search_converged(self):
        steps = [tuple(float(x) for x in line.split())
                 for line in fixture_text("compact", "match-la_compact.txt").splitlines()]
        target = 18203  # builtin's bytes, compact.txt
        for i in range(1, len(steps)):
            self.assertEqual(compact_report.next_bits(steps[:i], target), steps[i][0])
        self.assertLess(abs(steps[-1][1] / target - 1), 0.005)


class RefilterOutputTest(unittest.TestCase):
    def test_bytes_are_the_filter_column_after(self):
        self.assertEqual(compact_report.refilter_bytes(fixture_text("compact", "refilter-ribbon.out")),
                         1743 + 2239 + 14301)

    def test_build_cpu_is_the_last_pass(self):
        text = fixture_text("compact", "build-la_compact-1.out")
        self.assertEqual(compact_report.build_passes(text)[0], (1, 0.104887, 31, 14068))
        self.assertEqual(compact_report.build_cpu(text), (0.009207, 31, 14068))
        self.assertIsNone(compact_report.build_cpu("rewrote 3 files in 1 pass(es)\n"))

    def test_setup_is_the_last_pass(self):
        # The fixture's refilter did not print the setup line: 0.
        self.assertEqual(compact_report.setup_cpu(fixture_text("compact", "build-la_compact-1.out")), 0.0)
        text = ("filter build pass 1: 0.5 cpu_seconds, 3 filters, 30 keys\n"
                "filter build pass 1 setup: 0.25 cpu_seconds in GetBuilderWithContext\n"
                "filter build pass 2: 0.25 cpu_seconds, 3 filters, 30 keys\n"
                "filter build pass 2 setup: 0.125 cpu_seconds in GetBuilderWithContext\n")
        self.assertEqual(compact_report.setup_cpu(text), 0.125)
        self.assertEqual(compact_report.build_cpu(text), (0.25, 3, 30))


class BuildPartsTest(unittest.TestCase):
    TEXT = ("filter build pass 1: 0.5 cpu_seconds, 3 filters, 30 keys\n"
            "filter build pass 1 setup: 0.25 cpu_seconds in GetBuilderWithContext\n"
            "filter build pass 1 finish: 0.125 cpu_seconds in Finish\n"
            "filter build pass 2: 0.5 cpu_seconds, 3 filters, 30 keys\n"
            "filter build pass 2 setup: 0.125 cpu_seconds in GetBuilderWithContext\n"
            "filter build pass 2 finish: 0.25 cpu_seconds in Finish\n")

    def test_parts_of_the_last_pass(self):
        self.assertEqual(compact_report.build_parts(self.TEXT), (0.125, 0.125, 0.25))
        # The fixture's refilter printed no parts.
        self.assertIsNone(compact_report.build_parts(fixture_text("compact", "build-la_compact-1.out")))

    def test_table_of_medians_against_builtin(self):
        runs = {"builtin": [(0.001, 0.010, 0.020), (0.003, 0.010, 0.010), (0.002, 0.010, 0.015)],
                "la_compact": [(0.004, 0.015, 0.030), (0.006, 0.012, 0.040), (0.005, 0.020, 0.060)]}
        table = compact_report.parts_table([(7, runs)], ["builtin", "la_compact"])
        self.assertEqual(table[2], "| 7 | builtin | 2.0 | 1.000 | 10.0 | 1.000 | 15.0 | 1.000 |")
        self.assertEqual(table[3], "| 7 | la_compact | 5.0 | 2.500 | 15.0 | 1.500 | 40.0 | 2.667 |")
        self.assertEqual(len(table), 4)


class RowsTest(unittest.TestCase):
    def test_fill_row_from_e2e_line(self):
        line = next(x for x in fixture_text("compact", "e2e.txt").splitlines() if x.split()[1] == "ribbon")
        row = compact_report.fill_row("ribbon", "12.757", line, 18299, 0.0013825, 0.0000125)
        # positive 0.00750 - true_pos 0, data misses 0.00675, 397810 ops/s.
        self.assertEqual(row, "ribbon 12.757 18299 0.007500 0.006750 397810 0.001383 0.000013")
        self.assertEqual(compact_report.parse_rows(row + "\n")["ribbon"],
                         {"bits": 12.757, "bytes": 18299, "fp": 0.0075, "data_miss": 0.00675, "ops": 397810,
                          "cpu": 0.001383, "setup": 0.000013})

    def test_fixture_rows(self):
        got = compact_report.parse_rows(fixture_text("compact", "compact.txt"))
        self.assertEqual(sorted(got), sorted(compact_e2e.CONFIGS))
        self.assertEqual(got["la_compact"]["bits"], 9.507)


class TargetsTest(unittest.TestCase):
    def test_all_met(self):
        r = rows(la_compact={"fp": 0.3, "ops": 1.2, "cpu": 1.0}, ribbon={"fp": 0.35, "ops": 1.1, "cpu": 2.0})
        self.assertEqual([met for _, _, met in compact_report.target_checks(r)], [True] * 5)

    def test_each_target_alone(self):
        for change, ribbon_fp, failed in (({"fp": 0.29}, 0.28, 0), ({"fp": 0.301}, 0.35, 1), ({"ops": 1.09}, 0.35, 2),
                                          ({"cpu": 1.26}, 0.35, 3)):
            la = {"fp": 0.28, "ops": 1.2, "cpu": 1.0}
            la.update(change)
            checks = compact_report.target_checks(rows(la_compact=la,
                                                       ribbon={"fp": ribbon_fp, "ops": 1.1, "cpu": 3.0}))
            self.assertEqual([i for i, c in enumerate(checks) if not c[2]], [failed], change)
        # cpu <= 0.5 x ribbon alone: ribbon's build as cheap as builtin's.
        checks = compact_report.target_checks(rows(la_compact={"fp": 0.3, "ops": 1.2},
                                                   ribbon={"fp": 0.35, "ops": 1.1, "cpu": 1.5}))
        self.assertEqual([i for i, c in enumerate(checks) if not c[2]], [4])
        self.assertAlmostEqual(checks[4][1], 1 / 1.5)

    def test_summary_counts_fills(self):
        fixture = compact_report.parse_rows(fixture_text("compact", "compact.txt"))
        good = rows(la_compact={"fp": 0.3, "ops": 1.2, "cpu": 1.0}, ribbon={"fp": 0.35, "ops": 1.1, "cpu": 2.0})
        lines = compact_report.summary([(1, fixture), (2, good)], compact_e2e.CONFIGS)
        self.assertEqual(len([x for x in lines if x.startswith("| 1 |")]), 4)
        fp_ribbon = next(x for x in lines if x.startswith("| fp <= ribbon |"))
        # fixture: la_compact 0.00675 against ribbon 0.0075 (met); hand-made: met.
        self.assertEqual(fp_ribbon, "| fp <= ribbon | 0.900 met | 0.857 met | 2 of 2 |")
        cpu_builtin = next(x for x in lines if x.startswith("| cpu <= 1.25 x builtin |"))
        self.assertEqual(cpu_builtin, "| cpu <= 1.25 x builtin | %.3f NOT met | 1.000 met | 1 of 2 |" %
                         (0.009525 / 0.000625))
        ribbon_row = next(x for x in lines if x.startswith("| 1 | ribbon |"))
        self.assertIn("| 18299 | %.3f |" % (18299 / 18203), ribbon_row)

class RefillTest(unittest.TestCase):
    """A fill whose tree has no equal-bytes setting is filled again, up to
    --refills times; the builds are timed once, on the tree that matched."""

    def run_fill(self, matches, refills=2):
        calls = {"fill": 0, "time": 0}
        answers = iter(matches)
        args = compact_e2e.build_parser().parse_args(["run", "x.so", "--refills", str(refills)])
        args.fill_seed, args.workdir = 7, "/nonexistent"
        with mock.patch.object(compact_e2e.lap, "fill_shared", lambda a: calls.__setitem__("fill", calls["fill"] + 1)), \
                mock.patch.object(compact_e2e, "match_all", lambda a: next(answers)), \
                mock.patch.object(compact_e2e, "time_builds", lambda a: calls.__setitem__("time", calls["time"] + 1)), \
                mock.patch.object(compact_e2e, "CONFIGS", []), \
                mock.patch.object(compact_e2e.pair_output, "report", lambda a: None), \
                mock.patch.object(compact_e2e.lap, "relay_copies", lambda a: None), \
                mock.patch.object(compact_e2e.lap, "read_all", lambda a: None), \
                mock.patch.object(compact_e2e, "write_rows", lambda a: None):
            compact_e2e.one_fill(args)
        return calls

    def test_a_tree_that_matches_is_kept(self):
        self.assertEqual(self.run_fill([True]), {"fill": 1, "time": 1})

    def test_a_tree_without_a_match_is_filled_again(self):
        self.assertEqual(self.run_fill([False, False, True]), {"fill": 3, "time": 1})

    def test_gives_up_after_the_refills(self):
        with self.assertRaises(SystemExit):
            self.run_fill([False, False, False], refills=2)


if __name__ == "__main__":
    unittest.main()
