"""Parsers of what RocksDB's tools print, for the db_bench scripts here.

Each takes text (a db_bench output, an sst_dump or ldb listing) and returns
plain values; none runs a tool. Numbers are kept as db_bench printed them
where a report prints them back unchanged.
"""
import re
import statistics

NUMBER = re.compile(r"^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$")
PERF_LEVEL = re.compile(r"^(\d+)@level(\d+)$")
PER_LEVEL_METRICS = ("bloom_filter_useful", "bloom_filter_full_positive", "block_cache_hit_count",
                     "block_cache_miss_count")


def leading_number(text):
    """The number a text starts with, 0 if none (as awk reads "2/0" as 2)."""
    m = re.match(r"\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?", text)
    return float(m.group(0)) if m else 0.0


def number_text(value):
    """A number as awk turns it into text (CONVFMT %.6g, integers whole).

    The reports keep lists of computed values as text, which rounds them to
    six significant digits before their median is taken; the same rounding
    here gives the same medians.
    """
    if value == int(value) and abs(value) < 2**53:
        return str(int(value))
    return "%.6g" % value


def median(values):
    """The median of numbers (0 for none, as an empty list has no middle)."""
    return statistics.median(values) if values else 0


def tickers(text):
    """{name: count} of the statistics' tickers ("rocksdb.X COUNT : N").

    The first count of a name wins (db_bench prints its statistics once).
    """
    counts = {}
    for line in text.splitlines():
        f = line.split()
        if len(f) >= 4 and f[1] == "COUNT" and f[2] == ":" and f[0] not in counts:
            counts[f[0]] = int(leading_number(f[3]))
    return counts


def histogram(text, name):
    """{field: value} of the last histogram line NAME (P50, P99, COUNT, SUM)."""
    found = None
    for line in text.splitlines():
        f = line.split()
        if f and f[0] == name:
            found = {f[i]: f[i + 2] for i in range(1, len(f) - 2, 3)}
    return found


def ops_per_sec(text, bench):
    """The ops/s of BENCH's result line, as printed (None if missing)."""
    ops = None
    for line in text.splitlines():
        f = line.split()
        if f and f[0] == bench:
            for i in range(len(f) - 1):
                if f[i + 1] == "ops/sec":
                    ops = f[i]
    return ops


def cpu_seconds(text):
    """The "cpu_seconds S" line the scripts append to a timed run."""
    for line in text.splitlines():
        f = line.split()
        if len(f) >= 2 and f[0] == "cpu_seconds":
            return f[1]
    return None


def per_level_counts(texts):
    """{level: [useful, positive, cache_hits, cache_misses]} summed over runs.

    From the perf context db_bench prints with --perf_level=2:
    "bloom_filter_useful = 197062@level0, 26885@level4, ...".
    """
    counts = {}
    for text in texts:
        for line in text.splitlines():
            if "bloom_filter_useful = " not in line:
                continue
            metric = None
            for token in line.split(", "):
                if " = " in token:
                    metric, token = token.split(" = ", 1)
                m = PERF_LEVEL.match(token)
                if m and metric is not None:
                    level = int(m.group(2))
                    row = counts.setdefault(level, [0, 0, 0, 0])
                    if metric in PER_LEVEL_METRICS:
                        row[PER_LEVEL_METRICS.index(metric)] += int(m.group(1))
    return counts


def _levelstats_rows(text):
    """(level, files) text fields of db_bench's levelstats table."""
    on = False
    for line in text.splitlines():
        if line.startswith("Level Files Size"):
            on = True
            continue
        f = line.split()
        if on and len(f) >= 2 and f[0].isdigit():
            yield f[0], f[1]


def lsm_shape(text):
    """Files per level, "L3:4 L4:9 " (levels holding files), from levelstats."""
    return "".join("L%s:%s " % (level, files) for level, files in _levelstats_rows(text) if _positive(files))


def _positive(field):
    """awk's `$2 > 0`: numeric for a number, else a comparison of texts."""
    if NUMBER.match(field):
        return float(field) > 0
    return field > "0"


def levelstats_files(text):
    """How many SSTs db_bench's levelstats lists in all."""
    return int(sum(leading_number(files) for _, files in _levelstats_rows(text)))


def rocksdb_version_line(text):
    """db_bench's "RocksDB: version ..." header line, or None."""
    for line in text.splitlines():
        if line.startswith("RocksDB:"):
            return line
    return None


def manifest_files(text):
    """(level, file number) of every live SST in `ldb manifest_dump` output."""
    level = None
    for line in text.splitlines():
        f = line.split()
        if line.startswith("--- level ") and len(f) >= 3:
            level = f[2]
            continue
        if level is not None and f and re.match(r"^\d+:", f[0]):
            yield int(level), int(f[0].split(":")[0])


def filter_properties(text):
    """(filter entries, filter block bytes) of `sst_dump --show_properties`."""
    entries = size = 0
    for line in text.splitlines():
        if line.startswith("  # entries for filter"):
            entries = int(leading_number(line.split(": ", 1)[1]))
        elif line.startswith("  filter block size"):
            size = int(leading_number(line.split(": ", 1)[1]))
    return entries, size
