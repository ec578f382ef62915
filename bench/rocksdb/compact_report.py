"""compact_e2e.py's arithmetic and tables: the bits-per-key search for equal
filter bytes, the filter-build CPU the refilter printed, one fill's row per
configuration and the table over the fills with the targets.

Configurations (compact_e2e.CONFIGS): builtin = RocksDB's Bloom filter
everywhere (the reference), ribbon = RocksDB's Ribbon filter everywhere,
hybrid = Bloom above the last level and Ribbon at it, la_compact =
level-aware linebloom, compact kind at the last level.

Measures, per fill:
  fp        filter false positives per absent-key lookup, pooled over the
            readmissing runs: (rocksdb.bloom.filter.full.positive -
            full.true.positive) / lookups; each is a data block read (from
            the block cache or storage)
  data_miss data blocks read from storage per lookup
            (rocksdb.block.cache.data.miss)
  ops       readmissing ops/s, median of the alternating runs
  cpu       filter-build CPU seconds: the refilter's thread CPU time in the
            policy's builds (GetBuilderWithContext, AddKey, Finish) over one
            rewrite of every live SST (the last of --passes), median of the
            repetitions
  setup     of cpu, the part in GetBuilderWithContext (choosing the
            filter; a level-aware policy plans the file's bits there), same
            run as cpu's median
"""
import re

from dbbench_output import median

BUILD_LINE = re.compile(r"^filter build pass (\d+): ([0-9.]+) cpu_seconds, (\d+) filters, (\d+) keys$", re.M)
SETUP_LINE = re.compile(r"^filter build pass (\d+) setup: ([0-9.]+) cpu_seconds", re.M)
FINISH_LINE = re.compile(r"^filter build pass (\d+) finish: ([0-9.]+) cpu_seconds", re.M)
# The done-when targets, la_compact against the others: (what, measure,
# other config, factor, sense); "le": la_compact <= factor x other.
TARGETS = (("fp <= ribbon", "fp", "ribbon", 1.0, "le"),
           ("fp <= 0.3 x builtin", "fp", "builtin", 0.3, "le"),
           ("ops >= ribbon", "ops", "ribbon", 1.0, "ge"),
           ("cpu <= 1.25 x builtin", "cpu", "builtin", 1.25, "le"),
           ("cpu <= 0.5 x ribbon", "cpu", "ribbon", 0.5, "le"))
ROW_FIELDS = ("bits", "bytes", "fp", "data_miss", "ops", "cpu", "setup")


def next_bits(steps, target):
    """The bits per key to try next for filter bytes TARGET, from the tried
    STEPS [(bits, bytes)]: with a bracket (a try below the target and one
    above), linear interpolation between the closest two (their midpoint if
    that was tried already); without, the outermost try scaled by target /
    bytes (filter bytes grow about in proportion to bits per key), by 1 %
    at least."""
    below = [s for s in steps if s[1] < target]
    above = [s for s in steps if s[1] > target]
    if below and above:
        lo = max(below, key=lambda s: s[0])
        hi = min(above, key=lambda s: s[0])
        bits = lo[0] + (hi[0] - lo[0]) * (target - lo[1]) / (hi[1] - lo[1])
        if any(abs(bits - s[0]) < 5e-4 for s in steps):
            bits = (lo[0] + hi[0]) / 2
    else:
        # All tries on one side: scale the outermost one, and step at
        # least 1 % past it (filter bytes come in whole cache lines per
        # file, so a small step may change nothing).
        edge = max(steps) if below else min(steps)
        bits = edge[0] * target / edge[1]
        step = 0.01 * edge[0]
        bits = max(bits, edge[0] + step) if below else min(bits, edge[0] - step)
    return round(bits, 3)


def jump(steps, target, width=0.01):
    """True if the tries bracket TARGET within WIDTH bits per key: the
    bytes jump there, no setting between gets closer."""
    below = [s[0] for s in steps if s[1] < target]
    above = [s[0] for s in steps if s[1] > target]
    return bool(below and above) and min(above) - max(below) < width


def closest(steps, target):
    """The try whose bytes are closest to TARGET (the later one of a tie)."""
    return min(reversed(steps), key=lambda s: abs(s[1] - target))


def refilter_bytes(text):
    """The live filter bytes after a linebloom-refilter run: the sum of its
    table's filter_B' column (the files' filter_size table property, what
    sst_dump prints as "filter block size")."""
    total = 0
    for line in text.splitlines():
        f = line.split()
        if len(f) >= 7 and re.match(r"^L\d+$", f[0]):
            total += int(f[6])
    return total


def build_passes(text):
    """[(pass, cpu seconds, filters, keys)] of a linebloom-refilter output."""
    return [(int(p), float(s), int(f), int(k)) for p, s, f, k in BUILD_LINE.findall(text)]


def build_cpu(text):
    """(cpu seconds, filters, keys) of the refilter's last pass, or None."""
    passes = build_passes(text)
    return passes[-1][1:] if passes else None


def setup_cpu(text):
    """The CPU seconds of the last pass's builds spent in the policy's
    GetBuilderWithContext (choosing the filter), or 0 if not printed."""
    setups = SETUP_LINE.findall(text)
    return float(setups[-1][1]) if setups else 0.0


def build_parts(text):
    """(setup, add_keys, finish): the CPU seconds of the refilter's last pass
    in GetBuilderWithContext, in the replayed AddKeys (the rest) and in
    Finish; None if it printed no finish line."""
    finishes = FINISH_LINE.findall(text)
    cpu = build_cpu(text)
    if not finishes or cpu is None:
        return None
    setup, finish = setup_cpu(text), float(finishes[-1][1])
    return setup, cpu[0] - setup - finish, finish


PARTS = ("choosing", "AddKey", "Finish")


def parts_table(fills, configs):
    """Markdown: the filter-build CPU by part. FILLS [(seed, {config:
    [build_parts of each repetition]})]; each cell the median over the
    repetitions in ms, and x builtin's median."""
    out = ["| fill seed | config | " + " | ".join("%s ms | x builtin" % p for p in PARTS) + " |",
           "|---|---|" + "---|---|" * len(PARTS)]
    for seed, runs in fills:
        medians = {c: [median([r[i] for r in runs[c]]) for i in range(len(PARTS))] for c in configs}
        for c in configs:
            out.append("| %s | %s | " % (seed, c) + " | ".join(
                "%.1f | %s" % (1000 * medians[c][i], _ratio(medians[c][i], medians["builtin"][i]))
                for i in range(len(PARTS))) + " |")
    return out


def fill_row(config, bits, e2e_line, filter_bytes, cpu_seconds, setup_seconds):
    """One configuration of one fill, as a compact.txt line. E2E_LINE: its
    readmissing line of e2e.txt (e2e_report.summarize_runs)."""
    f = e2e_line.split()
    fp = float(f[5]) - float(f[6])
    return "%s %s %d %.6f %.6f %s %.6f %.6f" % (config, bits, filter_bytes, fp, float(f[7]), f[3], cpu_seconds,
                                                setup_seconds)


def parse_rows(text):
    """{config: {field: value}} of a compact.txt."""
    rows = {}
    for line in text.splitlines():
        f = line.split()
        if f:
            rows[f[0]] = dict(zip(ROW_FIELDS, [float(x) for x in f[1:]] + [0.0]))
    return rows


def target_checks(rows):
    """[(what, la_compact's ratio to the other, met)] for one fill."""
    out = []
    d = rows["la_compact"]
    for what, measure, other, factor, sense in TARGETS:
        base = rows[other][measure]
        ratio = d[measure] / base if base else float("inf")
        met = ratio <= factor if sense == "le" else ratio >= factor
        out.append((what, ratio, met))
    return out


def _ratio(value, base):
    return "%.3f" % (value / base) if base else "-"


def fill_table(seed, rows, configs):
    """Markdown rows of one fill: every configuration against builtin."""
    ref = rows["builtin"]
    out = []
    for c in configs:
        r = rows[c]
        out.append("| %s | %s | %g | %d | %s | %.5f | %s | %.5f | %d | %s | %.3f | %.3f | %s | %s |" %
                   (seed, c, r["bits"], r["bytes"], _ratio(r["bytes"], ref["bytes"]), r["fp"],
                    _ratio(r["fp"], ref["fp"]), r["data_miss"], r["ops"], _ratio(r["ops"], ref["ops"]), r["cpu"],
                    r["setup"], _ratio(r["cpu"], ref["cpu"]), _ratio(r["cpu"], rows["ribbon"]["cpu"])))
    return out


TABLE_HEAD = ("| fill seed | config | bits/key setting | filter bytes | x builtin | fp reads/lookup | x builtin "
              "| storage reads/lookup | readmissing ops/s | x builtin | filter-build CPU s | of it, choosing "
              "| x builtin | x ribbon |",
              "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")


def summary(fills, configs):
    """The whole report: FILLS [(seed, rows)], every fill's rows, then the
    targets per fill and how many fills meet each."""
    out = list(TABLE_HEAD)
    for seed, rows in fills:
        out.extend(fill_table(seed, rows, configs))
    out.append("")
    out.append("| target (la_compact) | " + " | ".join("fill %s" % seed for seed, _ in fills) + " | met on |")
    out.append("|---|" + "---|" * (len(fills) + 1))
    checks = [target_checks(rows) for _, rows in fills]
    for i, (what, *_rest) in enumerate(TARGETS):
        cells = ["%.3f %s" % (c[i][1], "met" if c[i][2] else "NOT met") for c in checks]
        out.append("| %s | %s | %d of %d |" % (what, " | ".join(cells), sum(c[i][2] for c in checks), len(checks)))
    out.append("")
    out.append("Medians over the fills, ratio to builtin: " + "; ".join(
        "%s bytes %.3f, fp %.3f, ops %.3f, cpu %.3f" % (c, *(median([rows[c][m] / rows["builtin"][m]
                                                                     for _, rows in fills])
                                                             for m in ("bytes", "fp", "ops", "cpu")))
        for c in configs if c != "builtin"))
    return out
