import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

import query_cost_table  # noqa: E402


class QueryCostTableTest(unittest.TestCase):
    def test_program_totals_of_callgrind_annotate(self):
        with open(os.path.join(os.path.dirname(HERE), "testdata", "callgrind_annotate.txt")) as f:
            self.assertEqual(query_cost_table.program_totals(f.read()), 129644)
        with self.assertRaises(ValueError):
            query_cost_table.program_totals("no totals")

    def test_counted(self):
        log = 'filter=api op=neg size_mb=1 kernel=avx2 builtin="RocksDB 7.8.3" counted=200000 unit=query positives=0\n'
        self.assertEqual(query_cost_table.counted(log), 200000)

    def test_table_ratios_of_printed_figures(self):
        cells = {}
        for op in query_cost_table.OPS:
            cells[("api", op)], cells[("plugin", op)], cells[("builtin", op)] = "78.0", "64.0", "84.7"
        lines = query_cost_table.table(cells, "RocksDB 7.8.3 (portable)", "--size_mb 1")
        self.assertEqual(lines[1], "builtin = RocksDB 7.8.3 (portable)")
        self.assertTrue(lines[0].endswith("(callgrind, LINEBLOOM_KERNEL=avx2, 16-byte keys, 10 bits/key; --size_mb 1)"))
        self.assertEqual(lines[6], "| neg | 78.0 | 64.0 | 84.7 | 0.76 | 0.92 |")
        self.assertEqual(len(lines), 9)


if __name__ == "__main__":
    unittest.main()
