"""The end-to-end tables of level_aware_pair.py: every run of every read
benchmark, per configuration, against the built-in.

Per configuration, the median ops/s of its runs and, pooled over them,
RocksDB's counters per lookup, each run's minus those of the open-only run
(open-CONFIG.out):
  useful, positive, true_pos  rocksdb.bloom.filter.{useful,full.positive,
                              full.true.positive}: filter answers; every key
                              is absent, so positive - true_pos are the
                              false positives
  data_miss, data_hit         rocksdb.block.cache.data.{miss,hit}: a miss is
                              a data block read from storage (direct reads:
                              no page cache in between)
  last_rd, upper_rd           rocksdb.{last,non.last}.level.read.count: file
                              reads at the last level (L6) / above
  read_us                     rocksdb.sst.read.micros SUM / COUNT of the
                              lookups' reads: the run's minus its
                              rocksdb.file.read.db.open.micros (the open's
                              reads, RocksDB 8 on); "-" where that histogram
                              is missing: the open's reads (large, slow) vary
                              more from one open to the next than the
                              lookups' reads add up to
  blk_us                      rocksdb.read.block.get.micros SUM / COUNT minus
                              the open-only run's: fetching a missed block
                              (read + checksum); the open's block fetches
                              mostly come from its prefetch buffer, so their
                              share is small; readmissing only (MultiGet's
                              batched reads do not go through this histogram)
                              (read_us and blk_us: medians over the runs, as
                              a process stopped in a read inflates one run's)
  cpu_ns (median)             the db_bench process's CPU time (user + sys)
                              per lookup, minus the open-only run's
  p50_us, p99_us              its percentiles; they include the open's reads
                              (larger: footers, indexes, filters), which
                              cannot be taken out of a histogram
Opening reads every table's footer, index and filter; how many reads that
takes can vary a little between opens (RocksDB 7's tail prefetch size adapts
to the files opened before), so last_rd/upper_rd/read_us are exact only up
to that; data_miss/data_hit and the filter counters are exact (opening does
not touch the block cache).
"""
from dbbench_output import cpu_seconds, histogram, median, number_text, ops_per_sec, tickers

COUNTERS = ("bloom.filter.useful", "bloom.filter.full.positive", "bloom.filter.full.true.positive",
            "block.cache.data.miss", "block.cache.data.hit", "last.level.read.count", "non.last.level.read.count")
SST, DBOPEN, BLOCK = "rocksdb.sst.read.micros", "rocksdb.file.read.db.open.micros", "rocksdb.read.block.get.micros"


def _count_sum(h):
    return (float(h["COUNT"]), float(h["SUM"])) if h else (0.0, 0.0)


def _run_histograms(text, bench, open_block, lists):
    """Adds one run's latency figures to LISTS (avg, blk, p50, p99)."""
    sst, dbopen, block = histogram(text, SST), histogram(text, DBOPEN), histogram(text, BLOCK)
    if sst:
        lists["p50"].append(float(sst["P50"]))
        lists["p99"].append(float(sst["P99"]))
    (sc, ss), (oc, os_), (bc, bs) = _count_sum(sst), _count_sum(dbopen), _count_sum(block)
    if oc > 0 and sc > oc:
        lists["avg"].append(float(number_text((ss - os_) / (sc - oc))))
    if bench == "readmissing" and bc > open_block[0]:
        lists["blk"].append(float(number_text((bs - open_block[1]) / (bc - open_block[0]))))


def summarize_runs(bench, config, open_text, run_texts, reads):
    """One e2e.txt line: medians and counters pooled over the runs."""
    opened = {k[len("rocksdb."):]: v for k, v in tickers(open_text).items()}
    open_block = _count_sum(histogram(open_text, BLOCK))
    sums = {}
    lists = {"ops": [], "cpu": [], "avg": [], "blk": [], "p50": [], "p99": []}
    for text in run_texts:
        for name, count in tickers(text).items():
            key = name[len("rocksdb."):]
            sums[key] = sums.get(key, 0) + count
        ops = ops_per_sec(text, bench)
        if ops is not None:
            lists["ops"].append(float(ops))
        lists["cpu"].append(float(cpu_seconds(text)))
        _run_histograms(text, bench, open_block, lists)
    runs = len(run_texts)
    n = runs * reads
    per = [(sums[k] - runs * opened.get(k, 0)) / n if k in sums else 0.0 for k in COUNTERS]
    avg = "%.1f" % median(lists["avg"]) if lists["avg"] else "-"
    blk = "%.1f" % median(lists["blk"]) if lists["blk"] else "-"
    cpu_ns = 1e9 * (median(lists["cpu"]) - float(cpu_seconds(open_text))) / reads
    return ("%s %s %d %.0f " % (bench, config, runs, median(lists["ops"])) + " ".join("%.5f" % v for v in per) +
            " %s %.0f %.0f %.0f %s" % (avg, median(lists["p50"]), median(lists["p99"]), cpu_ns, blk))


def _ratio(value, base, positive_only=False):
    if (base > 0) if positive_only else (base != 0):
        return "%.3f" % (value / base)
    return "-"


def end_to_end_tables(lines, filter_bytes):
    """The ratio table per benchmark, then the counters table, from e2e.txt.

    FILTER_BYTES: {config: live filter bytes}.
    """
    rows = [line.split() for line in lines]
    base = {r[0]: r for r in rows if r[1] == "builtin"}
    out, last = [], None
    builtin_bytes = filter_bytes.get("builtin", 0)
    for f in rows:
        b, c = f[0], f[1]
        ref = base.get(b)
        if b != last:
            out.append("")
            out.append("%-16s %-12s %9s %6s %7s %6s %10s %6s %9s %12s %6s" %
                       (b, "config", "ops/s", "x", "cpu_ns", "x", "data_miss", "x", "fp", "filter_B", "x"))
            last = b
        ops, cpu, miss = float(f[3]), float(f[14]), float(f[7])
        fb = filter_bytes.get(c, 0)
        out.append("%-16s %-12s %9d %6s %7d %6s %10.5f %6s %9.5f %12d %6s" %
                   ("", c, ops, _ratio(ops, float(ref[3]) if ref else 0), cpu,
                    _ratio(cpu, float(ref[14]) if ref else 0), miss,
                    _ratio(miss, float(ref[7]) if ref else 0, True), float(f[5]) - float(f[6]), fb,
                    _ratio(fb, builtin_bytes)))
    out.append("")
    out.append("%-16s %-12s %9s %9s %9s %9s %9s %9s %9s %8s %7s %7s %7s" %
               ("counters/lookup", "config", "useful", "positive", "true_pos", "data_miss", "data_hit", "last_rd",
                "upper_rd", "read_us", "blk_us", "p50_us", "p99_us"))
    for f in rows:
        out.append("%-16s %-12s %9.5f %9.5f %9.5f %9.5f %9.5f %9.5f %9.5f %8s %7s %7d %7d" %
                   (f[0], f[1], *(float(x) for x in f[4:11]), f[11], f[15], float(f[12]), float(f[13])))
    return out


def paired_line(bench, config, pairs, open_cpu, open_builtin_cpu):
    """Each run against the built-in's run of the same repetition.

    PAIRS: (ops, cpu seconds, builtin ops, builtin cpu seconds) per
    repetition, in order. Slow drift of a shared machine cancels within a
    pair; the ratio of the medians does not cancel it. None if no pair has a
    built-in run to divide by.
    """
    ops, cpu, listed = [], [], []
    for o, t, bo, bt in pairs:
        if bo > 0 and bt > open_builtin_cpu:
            ops.append(float(number_text(o / bo)))
            cpu.append(float(number_text((t - open_cpu) / (bt - open_builtin_cpu))))
            listed.append(" %.2f" % (o / bo))
    if not ops:
        return None
    return "  %-16s %-12s ops/s x %.3f (%s )  cpu_ns x %.3f" % (bench, config, median(ops), "".join(listed),
                                                                  median(cpu))


def per_level_lines(config, counts, lookups):
    """Where the reads happen, per level: checks = filter answers (useful +
    positive); a positive whose block is in the block cache costs no read
    (cache_hit), a miss does. COUNTS from dbbench_output.per_level_counts."""
    out = []
    for level in sorted(counts):
        useful, positive, hits, misses = counts[level]
        out.append("%-12s %5s %9.4f %9.5f %9.5f %9.5f %8.1f" %
                   (config, "L%d" % level, (useful + positive) / lookups, positive / lookups, hits / lookups,
                    misses / lookups, 100 * misses / (hits + misses) if hits + misses else 0))
    return out


def miss_bound_input(counts, entries):
    """linebloom-level-bound's input weighted by storage reads: per level,
    its entries and its checks times the fraction of its false positives
    that missed the block cache (the built-in's readmissing runs)."""
    out = []
    for level in sorted(counts):
        useful, positive, hits, misses = counts[level]
        checks = useful + positive
        if hits + misses > 0 and checks > 0 and entries.get(level, 0) > 0:
            out.append("%d %d %s" % (level, entries[level], number_text(checks * misses / (hits + misses))))
    return "".join(line + "\n" for line in out)
