"""The per-level, totals and comparison tables of level_aware_pair.py, from
the live SSTs' filters and the readmissing outputs.

FILTERS: (level, filter entries, filter bytes) per live SST; COUNTS: the
perf context's per-level counts, dbbench_output.per_level_counts.
"""
from dbbench_output import tickers


def per_level_lines(config, filters, counts):
    """Per level: files, entries, filter bytes, bits/key and, from the perf
    context, the checks and false-positive rate of the level's filters."""
    levels = {}
    for level, entries, size in filters:
        row = levels.setdefault(level, [0, 0, 0])
        row[0] += 1
        row[1] += entries
        row[2] += size
    out = []
    for level in sorted(levels):
        files, entries, size = levels[level]
        useful, positive = counts.get(level, [0, 0])[:2]
        checks = useful + positive
        out.append("%-12s %5s %6d %10d %12d %8.2f %12d %9.4f" %
                   (config, "L%d" % level, files, entries, size, 8 * size / entries if entries else 0, checks,
                    100 * positive / checks if checks else 0))
    return out


def totals_line(config, filters, read_text, reads):
    """config filter_bytes entries bits/key checks/lookup false_pos fp/lookup
    (false positives = full.positive - full.true.positive: every key read is
    absent)."""
    t = tickers(read_text)
    useful = t.get("rocksdb.bloom.filter.useful", 0)
    positive = t.get("rocksdb.bloom.filter.full.positive", 0)
    true_positive = t.get("rocksdb.bloom.filter.full.true.positive", 0)
    entries = sum(f[1] for f in filters)
    size = sum(f[2] for f in filters)
    return "%-12s %12d %12d %10.3f %12.3f %14d %12.5f" % (
        config, size, entries, 8 * size / entries if entries else 0, (useful + positive) / reads,
        positive - true_positive, (positive - true_positive) / reads)


def versus_lines(summary):
    """The level_aware row of the totals against every other: % change in
    false positives per lookup and in live filter bytes (negative = fewer),
    from the figures as the totals print them."""
    rows = [line.split() for line in summary]
    fp = {r[0]: float(r[6]) for r in rows}
    size = {r[0]: float(r[1]) for r in rows}
    return ["  vs %-10s fp/lookup %+6.1f %%   filter_bytes %+5.1f %%" %
            (r[0], 100 * (fp["level_aware"] / fp[r[0]] - 1), 100 * (size["level_aware"] / size[r[0]] - 1))
            for r in rows if r[0] != "level_aware"]


def cross_check_line(config, own_counts, level_aware_counts, reads):
    """Separate trees: level_aware's per-level false-positive rates weighted
    by CONFIG's per-level checks per lookup. A level level_aware's tree lacks
    counts at CONFIG's own rate (no advantage), marked '*'."""
    rate = {}
    for level, (useful, positive, _, _) in level_aware_counts.items():
        if useful + positive:
            rate[level] = positive / (useful + positive)
    fp = own = 0.0
    star = ""
    for level in sorted(own_counts):
        useful, positive = own_counts[level][:2]
        checks = useful + positive
        if not checks:
            continue
        if level in rate:
            fp += checks / reads * rate[level]
        else:
            fp += positive / reads
            star = "*"
        own += positive / reads
    return "  on %-10s fp/lookup %.5f%s vs its own %.5f: %+6.1f %%" % (config, fp, star, own, 100 * (fp / own - 1))


def last_allocation(log_texts):
    """The policy's last logged allocation ("linebloom level_aware ..."): the
    one the newest files were built with. None if it logged none."""
    lines = sorted(line for text in log_texts for line in text.splitlines() if "linebloom level_aware" in line)
    if not lines:
        return None
    return lines[-1][lines[-1].rfind("linebloom level_aware"):]


def bound_input(filters, counts):
    """linebloom-level-bound's input: "level entries checks" per level with
    filters that lookups reached (checks = useful + positive)."""
    entries = {}
    for level, n, _ in filters:
        entries[level] = entries.get(level, 0) + n
    out = []
    for level in sorted(entries):
        useful, positive = counts.get(level, [0, 0])[:2]
        if useful + positive > 0:
            out.append("%d %d %d\n" % (level, entries[level], useful + positive))
    return "".join(out)
