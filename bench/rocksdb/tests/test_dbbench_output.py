import unittest

from bench_test_paths import fixture_text

import dbbench_output as dbo

MANIFEST = """--------------- Column family "default"  (ID 0) --------------
log number: 12
--- level 0 --- version# 1 ---
--- level 5 --- version# 1 ---
 41:1302445[3001 .. 4520]['0000000000000007' seq:3001, type:1 .. '00000000000075a3' seq:4520, type:1]
 42:1290311[4521 .. 6000]['00000000000075b0' seq:4521, type:1 .. '00000000000099ff' seq:6000, type:1]
--- level 6 --- version# 1 ---
 9:1309873[1 .. 1500]['0000000000000001' seq:1, type:1 .. '0000000000000fff' seq:1500, type:1]
next_file_number 43 last_sequence 6000  prev_log_number 0 max_column_family 0 min_log_number_to_keep 0
"""

PROPERTIES = """Table Properties:
------------------------------
  # data blocks: 12
  # entries: 1468
  # entries for filter: 1468
  filter block size: 1856
  filter policy name: linebloom
"""


class DbBenchOutputTest(unittest.TestCase):
    def test_tickers_and_result_line(self):
        text = fixture_text("pair", "readmissing-builtin-1.out")
        t = dbo.tickers(text)
        self.assertEqual(t["rocksdb.bloom.filter.useful"], 3526)
        self.assertEqual(t["rocksdb.bloom.filter.full.positive"], 31)
        self.assertEqual(t["rocksdb.bloom.filter.full.true.positive"], 0)
        self.assertEqual(dbo.ops_per_sec(text, "readmissing"), "20843")
        self.assertIsNone(dbo.ops_per_sec(text, "multireadrandom"))
        self.assertEqual(dbo.rocksdb_version_line(text), "RocksDB:    version 11.8.1")

    def test_histogram_fields(self):
        h = dbo.histogram(fixture_text("pair", "readmissing-builtin-1.out"), "rocksdb.sst.read.micros")
        self.assertEqual(set(h), {"P50", "P95", "P99", "P100", "COUNT", "SUM"})
        self.assertGreater(float(h["SUM"]), 0)
        self.assertIsNone(dbo.histogram("", "rocksdb.sst.read.micros"))

    def test_per_level_counts_pool_runs(self):
        one = dbo.per_level_counts([fixture_text("pair", "readmissing-builtin-1.out")])
        two = dbo.per_level_counts([fixture_text("pair", "readmissing-builtin-%d.out" % r) for r in (1, 2)])
        self.assertEqual(sorted(one), [5, 6])
        self.assertEqual(one[5][0] + one[5][1], 1559)  # checks at L5, the shell report's figure
        other = dbo.per_level_counts([fixture_text("pair", "readmissing-builtin-2.out")])
        for level in two:
            self.assertEqual(two[level], [a + b for a, b in zip(one[level], other[level])])

    def test_per_level_counts_of_a_line(self):
        line = ("user_key_comparison_count = 5, bloom_filter_useful = 10@level0, 7@level4, "
                "bloom_filter_full_positive = 2@level4, block_cache_hit_count = 1@level4, "
                "block_cache_miss_count = 1@level4, 3@level0, other_count = 9@level4\n")
        self.assertEqual(dbo.per_level_counts([line]), {0: [10, 0, 0, 3], 4: [7, 2, 1, 1]})

    def test_levelstats(self):
        fill = fixture_text("pair", "fill-builtin.out")
        self.assertEqual(dbo.lsm_shape(fill), "L5:3 L6:10 ")
        self.assertEqual(dbo.levelstats_files(fill), 13)
        # A files field that is not a number compares as text, as in awk.
        self.assertEqual(dbo.lsm_shape("Level Files Size(MB)\n  3 2/0 1\n  4 0 0\n"), "L3:2/0 ")

    def test_number_text_rounds_like_awk(self):
        self.assertEqual(dbo.number_text(1234567.0), "1234567")
        self.assertEqual(dbo.number_text(123.456789), "123.457")
        self.assertEqual(dbo.number_text(0.000012345678), "1.23457e-05")
        self.assertEqual(dbo.median([3.0, 1.0, 2.0, 10.0]), 2.5)
        self.assertEqual(dbo.median([]), 0)

    def test_manifest_and_properties(self):
        self.assertEqual(list(dbo.manifest_files(MANIFEST)), [(5, 41), (5, 42), (6, 9)])
        self.assertEqual(dbo.filter_properties(PROPERTIES), (1468, 1856))
        self.assertEqual(dbo.filter_properties("no properties"), (0, 0))


if __name__ == "__main__":
    unittest.main()
