"""readmissing_pair.py's rows and medians, against the report the shell
script printed (3 alternating runs per policy on RocksDB 11.8.1)."""
import unittest

from bench_test_paths import fixture_text

import readmissing_pair


class ReadmissingPairTest(unittest.TestCase):
    def setUp(self):
        lines = fixture_text("readmissing", "report.txt").splitlines()
        self.rows = [line for line in lines[1:] if line.split()[1].isdigit()]
        self.medians = [line for line in lines[1:] if line not in self.rows]

    def test_medians_of_the_rows(self):
        self.assertEqual(len(self.rows), 6)
        self.assertEqual(readmissing_pair.medians(self.rows), self.medians)

    def test_run_row(self):
        text = fixture_text("readmissing", "readmissing-linebloom-1.out")
        # The shell measured 0.06 s of CPU for this run (3000 ns per lookup).
        self.assertEqual(readmissing_pair.run_row("linebloom", 1, text, 0.06, 20000, "readmissing"), self.rows[0])

    def test_no_builtin_no_ratio(self):
        rows = [row for row in self.rows if row.startswith("linebloom")]
        self.assertEqual(len(readmissing_pair.medians(rows)), 1)


if __name__ == "__main__":
    unittest.main()
