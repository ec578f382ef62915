"""The scripts' command lines: usage errors, and the OPTIONS files they
write, against those the shell scripts wrote for the same settings."""
import contextlib
import io
import os
import tempfile
import unittest

from bench_test_paths import fixture_text

import compact_e2e
import level_aware_live
import level_aware_pair
import level_aware_score
import readmissing_pair
import rocksdb_tools


def usage_error(main, argv):
    """The exit status and standard error of MAIN(ARGV), which must exit."""
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            main(argv)
        except SystemExit as e:
            return e.code, err.getvalue()
    raise AssertionError("no exit")


class UsageTest(unittest.TestCase):
    def test_bad_flags_print_usage_and_fail(self):
        for main, argv in ((level_aware_pair.main, ["run", "x.so", "--bogus"]),
                           (level_aware_pair.main, ["x.so"]),
                           (level_aware_pair.main, ["run", "x.so", "--benches", "readrandom"]),
                           (level_aware_pair.main, ["run", "x.so", "--configs", "level_aware,bloom"]),
                           (level_aware_live.main, ["report", "x.so", "--bogus"]),
                           (level_aware_live.main, ["reads", "x.so"]),
                           (level_aware_score.main, ["x.so", "--score-only", "--reuse-fill"]),
                           (readmissing_pair.main, ["x.so", "--bench", "readrandom"]),
                           (compact_e2e.main, ["run", "x.so", "--bogus"]),
                           (compact_e2e.main, ["x.so"])):
            code, err = usage_error(main, argv)
            self.assertEqual(code, 2, argv)
            self.assertIn("usage:", err)

    def test_pair_flags(self):
        args = level_aware_pair.build_parser().parse_args(
            ["reads", "x.so", "--configs", "level_aware, builtin", "--benches", "readmissing multireadrandom",
             "--no-direct-reads", "--write-buffer", "1000"])
        rocksdb_tools.resolve_geometry(args)
        self.assertEqual((args.stage, args.configs, args.benches), ("reads", ["level_aware", "builtin"],
                                                                     ["readmissing", "multireadrandom"]))
        self.assertEqual((args.direct_reads, args.target_file, args.level_base), (False, 1000, 4000))


class OptionsFileTest(unittest.TestCase):
    def pair_args(self, *argv):
        args = level_aware_pair.build_parser().parse_args(["run", "x.so", *argv])
        rocksdb_tools.resolve_geometry(args)
        return args

    def pair_options(self, args, config, disable=False, direct=False):
        with tempfile.TemporaryDirectory() as work:
            path = os.path.join(work, "x.OPTIONS")
            level_aware_pair.write_options(args, config, path, disable, direct)
            with open(path) as f:
                return f.read()

    def test_pair_options(self):
        args = self.pair_args()
        self.assertEqual(self.pair_options(args, "builtin"), fixture_text("options", "shared-fill.OPTIONS"))
        self.assertEqual(self.pair_options(args, "level_aware", True),
                         fixture_text("options", "shared-level_aware.OPTIONS"))
        self.assertEqual(self.pair_options(args, "level_aware", True, True),
                         fixture_text("options", "shared-level_aware-read.OPTIONS"))
        args = self.pair_args("--no-trivial-move")
        self.assertEqual(self.pair_options(args, "builtin"), fixture_text("options", "separate-builtin-read.OPTIONS"))
        args = self.pair_args("--cache-mb", "1")
        self.assertEqual(self.pair_options(args, "cache_aware", True), fixture_text("options", "e2e-cache_aware.OPTIONS"))

    def test_compact_configs_policies(self):
        args = self.pair_args("--ribbon-bits", "14.5", "--hybrid-bits", "13.75", "--lac-bits", "9.5")
        # RocksDB's Ribbon everywhere (bloom_before_level -1), its hybrid
        # (Bloom above L6), linebloom level-aware with the compact kind at L6.
        self.assertEqual(level_aware_pair.policy_of("ribbon", args), "ribbonfilter:14.5:-1")
        self.assertEqual(level_aware_pair.policy_of("hybrid", args), "ribbonfilter:13.75:6")
        self.assertEqual(level_aware_pair.policy_of("la_compact", args),
                         "{id=linebloom;bits_per_key=9.5;level_aware=true;size_ratio=10;compact_from_level=6}")
        text = self.pair_options(args, "hybrid", True, True)
        self.assertEqual(text.replace("ribbonfilter:13.75:6", "{id=linebloom;bits_per_key=10;level_aware=true;"
                                      "size_ratio=10}"), fixture_text("options", "shared-level_aware-read.OPTIONS"))
        # The compact kind from another level (--lac-from-level).
        args = self.pair_args("--lac-bits", "9.8", "--lac-from-level", "0")
        self.assertEqual(level_aware_pair.policy_of("la_compact", args),
                         "{id=linebloom;bits_per_key=9.8;level_aware=true;size_ratio=10;compact_from_level=0}")

    def test_live_options(self):
        args = level_aware_live.build_parser().parse_args(["run", "x.so"])
        rocksdb_tools.resolve_geometry(args)
        with tempfile.TemporaryDirectory() as work:
            path = os.path.join(work, "live.OPTIONS")
            level_aware_live.write_options(args, path, level_aware_live.LA_POLICY, False)
            with open(path) as f:
                self.assertEqual(f.read(), fixture_text("options", "live.OPTIONS"))


if __name__ == "__main__":
    unittest.main()
