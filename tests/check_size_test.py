#!/usr/bin/env python3
"""Unit tests of tests/check_size.py (python3 tests/check_size_test.py)."""

import os
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_size  # noqa: E402


def body(lines):
    """A function of `lines` lines in all: signature, statements, `}`."""
    return "int F(int x) {\n" + "  x += 1;\n" * (lines - 2) + "}\n"


def names_and_lengths(text):
    return [(name, last - first + 1) for name, first, last in check_size.functions(check_size.blank_code(text))]


class BlankCodeTest(unittest.TestCase):
    def test_comments_strings_and_directives_are_blanked_lines_kept(self):
        text = '#define X { \\\n  }\nint a = 1; // {\n/* } */ const char* s = "{\\"}";\nchar c = \'{\';\n'
        blanked = check_size.blank_code(text)
        self.assertEqual(blanked.count("\n"), text.count("\n"))
        self.assertNotIn("{", blanked)
        self.assertNotIn("}", blanked)

    def test_raw_string_and_digit_separator(self):
        blanked = check_size.blank_code('auto s = R"x({)x"; int n = 1\'000; char c = \'}\';')
        self.assertNotIn("{", blanked)
        self.assertNotIn("}", blanked)
        self.assertIn("1", blanked)


class FunctionsTest(unittest.TestCase):
    def test_free_function_length_counts_signature_to_closing_brace(self):
        self.assertEqual(names_and_lengths(body(81)), [("F", 81)])

    def test_methods_constructors_and_qualifiers(self):
        text = (
            "namespace n {\n"
            "class A : public B {\n"
            " public:\n"
            "  A(int x) : x_(x), y_{x} {\n"
            "    Run();\n"
            "  }\n"
            "  int Get() const noexcept override { return x_; }\n"
            "  auto Size() const -> size_t { return 1; }\n"
            "  enum class E { kA, kB };\n"
            "};\n"
            "void A::Run() LOCKS_EXCLUDED(mu_) {\n"
            "  if (x_) { for (;;) { break; } }\n"
            "}\n"
            "std::string Describe(std::string_view d = {}) { return std::string(d); }\n"
            "}  // namespace n\n")
        self.assertEqual(names_and_lengths(text),
                         [("A", 3), ("Get", 1), ("Size", 1), ("A::Run", 3), ("Describe", 1)])

    def test_initializers_and_types_are_not_functions(self):
        text = ("struct alignas(64) S {\n  int a;\n};\n"
                "constexpr int kTable[] = {\n  1, 2,\n};\n"
                "extern \"C\" {\nint c_function(void);\n}\n")
        self.assertEqual(names_and_lengths(text), [])


class ViolationsTest(unittest.TestCase):
    def test_limits(self):
        keys = [key for key, _ in check_size.violations("a/x.cc", body(80))]
        self.assertEqual(keys, [])
        keys = [key for key, _ in check_size.violations("a/x.cc", body(81))]
        self.assertEqual(keys, ["a/x.cc function F"])
        keys = [key for key, _ in check_size.violations("a/x.cc", "int a;\n" * 501)]
        self.assertEqual(keys, ["a/x.cc file"])

    def test_header_comment(self):
        header = "// Copyright\n//\n" + "// text\n" * 58 + "\n#pragma once\n"
        self.assertEqual(check_size.violations("a/x.h", header), [])
        longer = "/* Copyright\n" + " * text\n" * 60 + " */\n#pragma once\n"
        keys = [key for key, _ in check_size.violations("a/x.h", longer)]
        self.assertEqual(keys, ["a/x.h header-comment"])

    def test_checked_paths(self):
        self.assertTrue(check_size.is_checked("sstable/src/table_reader.cc"))
        self.assertTrue(check_size.is_checked("integration/rocksdb/include/linebloom/rocksdb/c.h"))
        self.assertFalse(check_size.is_checked("tests/core/filter_test.cc"))
        self.assertFalse(check_size.is_checked("integration/x/tests/y.cc"))
        self.assertFalse(check_size.is_checked("filter_policy/src/kernel_test.cc"))
        self.assertFalse(check_size.is_checked("bench/micro/linebloom_bench.cc"))
        self.assertFalse(check_size.is_checked("sstable/CMakeLists.txt"))


class CheckTest(unittest.TestCase):
    """check() on a scratch git repository: new violations and stale
    allow-list entries fail, allowed ones pass."""

    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        root = self.dir.name
        os.makedirs(os.path.join(root, "sstable", "src"))
        with open(os.path.join(root, "sstable", "src", "long.cc"), "w") as f:
            f.write(body(90))
        with open(os.path.join(root, "sstable", "src", "untracked.cc"), "w") as f:
            f.write(body(90).replace("F(", "G("))
        subprocess.run(["git", "init", "-q", root], check=True)
        subprocess.run(["git", "-C", root, "add", "sstable/src/long.cc"], check=True)

    def tearDown(self):
        self.dir.cleanup()

    def test_violation_fails_unless_allowed(self):
        errors = check_size.check(self.dir.name, set())
        self.assertEqual(len(errors), 1)
        self.assertIn("sstable/src/long.cc:1: function F is 90 lines", errors[0])
        self.assertEqual(check_size.check(self.dir.name, {"sstable/src/long.cc function F"}), [])

    def test_stale_entry_fails(self):
        allowed = {"sstable/src/long.cc function F", "sstable/src/long.cc file"}
        errors = check_size.check(self.dir.name, allowed)
        self.assertEqual(len(errors), 1)
        self.assertIn("'sstable/src/long.cc file' matches no violation", errors[0])

    def test_allow_list_file(self):
        path = os.path.join(self.dir.name, "allow.txt")
        with open(path, "w") as f:
            f.write("# comment\nsstable/src/long.cc   function F  # why\n\n")
        self.assertEqual(check_size.read_allow_list(path), {"sstable/src/long.cc function F"})


if __name__ == "__main__":
    unittest.main()
