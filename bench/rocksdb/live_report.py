"""The tables of level_aware_live.py: the live SSTs by level and by how they
got there, what the DB's LOG says, and the reads' false positives.

FILTERS: (level, file, filter entries, filter bytes) per live SST.
"""
import re
from collections import Counter

from dbbench_output import tickers

HOWS = ("all", "written", "moved", "unknown", "nofilt")
WARNING = re.compile(r"\[(WARN|ERROR|FATAL)\]")
STATUS = re.compile(r"Corruption:|IO error:|Invalid argument:|Background error")
MOVE = re.compile(r".*Moving #[0-9]* to level-([0-9]*) ")


def lines_of(text):
    lines = text.split("\n")
    return lines[:-1] if lines and lines[-1] == "" else lines


def builtin_bytes(entries):
    """The bytes of RocksDB's built-in Bloom filter (format_version 5, 10
    bits/key, millibits 10000) for a file of ENTRIES: whole 64-byte cache
    lines of ceil(n * 10000 / 8000) bytes, plus its 5-byte trailer."""
    size = (entries * 10000 + 7999) // 8000
    return 5 + 64 * ((size + 63) // 64)


def _field(line, name):
    m = re.search('"%s": ([0-9-]+)' % name, line)
    return int(m.group(1)) if m else None


def written_levels(log_text):
    """{file number: level it was written at}, from the LOG's event lines:
    each table_file_creation names its job; a job with a
    compaction_finished event wrote at its output_level, any other (a
    flush) at L0."""
    output_level, created = {}, []
    for line in lines_of(log_text):
        if "EVENT_LOG_v1" not in line:
            continue
        if '"event": "compaction_finished"' in line:
            output_level[_field(line, "job")] = _field(line, "output_level")
        if '"event": "table_file_creation"' in line:
            created.append((_field(line, "file_number"), _field(line, "job")))
    return {number: output_level.get(job, 0) for number, job in created}


def sst_table(filters, written):
    """Per level and in total: files, filter entries, linebloom's bytes, the
    built-in's for the same entries, their ratio and bits/key, split by how
    each file got to its level (written there, or moved in unrewritten)."""
    sums = {}
    for level, number, entries, size in filters:
        how = "unknown" if number not in written else "written" if written[number] == level else "moved"
        if entries == 0:
            how = "nofilt"
        for key in ((level, how), (level, "all"), ("all", how), ("all", "all")):
            row = sums.setdefault(key, [0, 0, 0, 0])
            for i, v in enumerate((1, entries, size, builtin_bytes(entries) if entries else 0)):
                row[i] += v
    levels = sorted({level for level, *_ in filters if 0 <= level < 7})
    out = []
    for level in levels + ["all"]:
        for how in HOWS:
            if (level, how) in sums:
                files, entries, size, builtin = sums[(level, how)]
                out.append("%-6s %-8s %6d %10d %12d %12d %7.4f %8.3f" %
                           ("total" if level == "all" else "L%d" % level, how, files, entries, size, builtin,
                            size / builtin if builtin else 0, 8 * size / entries if entries else 0))
    return out


def _strip_time(line):
    """A LOG line without its timestamp and thread id."""
    return re.sub(r"^[^ ]* [^ ]* ", "", line, count=1)


def _counted(lines):
    return ["%7d %s" % (n, text) for text, n in lines]


def log_summary(log_text):
    """Trivial moves, compactions, flushes and deletions; the warnings and
    errors (the event lines quote table properties, so they are skipped);
    the policy's own lines (options dumps name the policy too; anything
    else is the policy talking) and its last allocation."""
    all_lines = lines_of(log_text)
    count = lambda lines, s: sum(s in line for line in lines)  # noqa: E731
    out = ["LOG: trivial moves %d, compactions finished %d, flushes %d, files deleted %d" %
           (count(all_lines, "Moving #"), count(all_lines, '"event": "compaction_finished"'),
            count(all_lines, '"event": "flush_finished"'), count(all_lines, '"event": "table_file_deletion"'))]
    moves = Counter(int(m.group(1)) for m in map(MOVE.match, all_lines) if m and m.group(1))
    out.append("LOG: trivial moves by target level: " + "".join("L%d:%d " % (l, moves[l]) for l in sorted(moves)))
    lines = [line for line in all_lines if "EVENT_LOG_v1" not in line]
    warnings = [line for line in lines if WARNING.search(line)]
    out.append("LOG: [WARN]/[ERROR]/[FATAL] lines %d, Status lines (Corruption:/IO error:/Invalid argument:/"
               "Background error) %d" % (len(warnings), sum(bool(STATUS.search(line)) for line in lines)))
    top = sorted(Counter(_strip_time(line) for line in warnings).items(), key=lambda t: (t[1], t[0]), reverse=True)
    out += _counted(top[:5])
    policy = [line for line in lines if "linebloom" in line]
    allocations = [line for line in policy if "linebloom level_aware" in line]
    other = [line for line in policy if "linebloom level_aware" not in line]
    out.append("LOG: linebloom lines: %d (level_aware allocations %d, of them tracked-tree plans %d; other %d)" %
               (len(policy), len(allocations), sum(bool(re.search("linebloom level_aware.*tracked tree", line))
                                                   for line in allocations), len(other)))
    out += _counted(sorted(Counter(_strip_time(line) for line in other).items())[:10])
    out.append("last allocation:")
    last = [line for line in all_lines if "linebloom level_aware" in line]
    if last:
        out.append("  " + last[-1][last[-1].rfind("linebloom level_aware"):])
    return out


def false_positives(read_text):
    """(checks, false positives) of a readmissing output's statistics."""
    t = tickers(read_text)
    positive = t.get("rocksdb.bloom.filter.full.positive", 0)
    return (t.get("rocksdb.bloom.filter.useful", 0) + positive,
            positive - t.get("rocksdb.bloom.filter.full.true.positive", 0))


def readmissing_line(config, filters, read_text, reads):
    """config filter_B builtin_fml x_fml checks/lk fp fp/lookup."""
    size = sum(f[3] for f in filters)
    builtin = sum(builtin_bytes(f[2]) for f in filters if f[2])
    checks, fp = false_positives(read_text)
    return "%-10s %12d %12d %9.4f %10.3f %12d %10.5f" % (config, size, builtin, size / builtin if builtin else 0,
                                                        checks / reads, fp, fp / reads)


def per_level_lines(config, filters, counts, reads):
    """Per level: checks and false positives per lookup (every key is
    absent, so positives are false positives), the FPR of the level's
    filters and their bits/key."""
    entries, size = {}, {}
    for level, _, n, b in filters:
        entries[level] = entries.get(level, 0) + n
        size[level] = size.get(level, 0) + b
    out = []
    for level in sorted(counts):
        useful, positive = counts[level][:2]
        checks = useful + positive
        out.append("%-10s %5s %9.4f %10.5f %8.3f %9.3f" %
                   (config, "L%d" % level, checks / reads, positive / reads, 100 * positive / checks if checks else 0,
                    8 * size[level] / entries[level] if entries.get(level) else 0))
    return out
