"""Puts bench/rocksdb on the import path of the tests here and names their
fixtures (bench/rocksdb/testdata: outputs of real db_bench runs, trimmed to
the lines the reports read, with the reports the shell scripts printed)."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
TESTDATA = os.path.join(os.path.dirname(HERE), "testdata")


def fixture(*parts):
    return os.path.join(TESTDATA, *parts)


def fixture_text(*parts):
    with open(fixture(*parts)) as f:
        return f.read()


def section(report, title):
    """The lines of REPORT from the one starting with TITLE to the next
    blank line (exclusive)."""
    lines = report.split("\n")
    start = next(i for i, line in enumerate(lines) if line.startswith(title))
    end = next((i for i in range(start, len(lines)) if not lines[i]), len(lines))
    return lines[start:end]
