// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// linebloom-compact-bench: linebloom's compact filter against RocksDB's
// built-in Bloom and Ribbon filters and linebloom's Bloom filter, side by
// side in one run on the same keys. Rows:
//   rocksdb-bloom      RocksDB's Bloom (format_version 5) } through RocksDB's
//   rocksdb-ribbon     RocksDB's Ribbon                  } calls (policy_filter.h)
//   linebloom          linebloom's Bloom filter, C++ API (bench_filters.h)
//   linebloom-compact  the compact filter, C++ API (compact_bench_filter.h)
//   linebloom-plugin-compact  the compact filter through the RocksDB plugin
//                      (compact_from_level -1: every file), RocksDB's calls
//
// Settings. Every row is set for each target false-positive rate p:
//   - rocksdb-bloom: the bits per key at which its measured rate is p. It is
//     measured at five settings around linebloom's blocked-Bloom model for p
//     (FilterOptions::ForFalsePositiveRate, +-1 bit/key in halves) on
//     --calibration_keys keys, and the setting found by the log-linear
//     interpolation below (RocksDB's own model is not public API);
//   - rocksdb-ribbon: NewRibbonFilterPolicy(b, -1) (Ribbon at every level)
//     with b that same Bloom setting, since Ribbon's argument is the Bloom
//     bits per key whose rate it targets;
//   - linebloom: ForFalsePositiveRate(p); linebloom-compact:
//     CompactBitsPerKeyFor(p, keys); linebloom-plugin-compact: the plugin
//     at linebloom's Bloom setting, whose compact files get the compact bits
//     per key of the same modeled rate (CompactBitsPerKey).
//
// Per target and key count (--fprs, --keys) the table gives:
//   - bits/key spent: filter bytes * 8 / keys;
//   - the measured rate over --fpr_queries absent keys (at least 1000 / p),
//     +- 1 sd = sqrt(r (1 - r) / queries);
//   - the compact's model rate (EstimateCompact of CompactShapeFor) and
//     whether the measured rate is within 2 sd of it, the sd being the one a
//     rate equal to the model has over as many queries;
//   - bits/key against Ribbon at an equal measured rate: Ribbon is also
//     measured at b - 1.5 and b + 1.5, and its bits/key at the row's
//     measured rate r read off the line through the two of its three points
//     that bracket r, in (log rate, bits/key) -- a filter's rate falls
//     geometrically with its bits -- extrapolated (and marked so) if none do;
//   - the share of absent queries that read a second line, for the compact
//     filter: the model's second_line_share (the public API cannot count it);
//   - build ns/key: every row timed --reps times in alternating order (each
//     repetition starts one row later), after one untimed timing per row;
//     a timing builds the filter over again until --build_keys keys are
//     built, at least once. The median, and the median of the per-repetition
//     ratios to rocksdb-bloom and rocksdb-ribbon (ratio_summary.h);
//   - peak build memory: the most heap bytes live during a Build, above those
//     live before it, per key (alloc_tracker.h counts operator new, which
//     RocksDB's library also uses, and posix_memalign, which linebloom's
//     buffers use). Build holds the finished bytes and their copy for
//     queries at the end (the RocksDB rows read a heap copy, as from the
//     block cache; the compact row a 64-byte-aligned copy), except the
//     linebloom row, which finishes into its query memory.
// Negative queries (--sizes_mb): per size each row's key count is chosen so
// its filter at the 1 % setting is about that size (from the bits per key a
// first build of it spends); ns per single query (independent queries,
// whose cache misses the processor overlaps), per query alone (a fence
// after each: one query's latency), and
// per key of MayMatch batches of --batch (RocksDB's MultiGet calls at most
// 32), every timing after an untimed run of the same row, rows alternating
// as for builds; ratios to rocksdb-bloom and rocksdb-ribbon, and the
// compact rows' to linebloom's Bloom filter, the reference of their query
// targets.
//
// A row whose filter cannot be built (a compact build that falls back to a
// Bloom filter, which would be measured under the wrong name) is reported
// as not built, with the reason, and the run goes on.
//
// A further row is one MakeRow line in Rows().
//
//   linebloom-compact-bench                    full run (needs ~12 GB of RAM)
//   linebloom-compact-bench --smoke            a few seconds (CTest)
//   linebloom-compact-bench --keys 1000000 --sizes_mb 1 --json out.json

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <rocksdb/filter_policy.h>

#include "alloc_tracker.h"
#include "bench_clock.h"
#include "bench_filters.h"
#include "builtin_label.h"
#include "cache_evictor.h"
#include "compact_bench_filter.h"
#include "compact_report.h"
#include "key_set.h"
#include "linebloom/compact_math.h"
#include "linebloom/filter_options.h"
#include "linebloom/kernel.h"
#include "linebloom/rocksdb/linebloom_filter_policy.h"
#include "policy_filter.h"
#include "report_output.h"

namespace linebloom::bench {
namespace {

struct Config {
  std::vector<double> fprs = {0.01, 0.001};
  std::vector<size_t> keys = {1000000, 64000000};
  std::vector<double> sizes_mb = {1, 16, 128};
  size_t key_length = 16;
  int reps = 5;
  size_t batch = 32;
  size_t queries = 1 << 20;      // absent keys per query timing
  size_t fpr_queries = 1 << 22;  // absent keys per measured rate (at least 1000 / p)
  size_t calibration_keys = 1 << 20;
  size_t build_keys = 1 << 20;  // keys per build timing (whole filters, at least one)
  double evict_mb = 0;          // written before each timed build (untimed)
  std::string json_path;
};

// One row's filter behind one virtual call per timing, not per query.
class BenchFilter {
 public:
  virtual ~BenchFilter() = default;
  virtual void Build(std::span<const std::string_view> keys) = 0;
  virtual size_t SizeBytes() const = 0;
  virtual uint64_t CountMatches(std::span<const std::string_view> keys) const = 0;
  // ns per query over `keys`.
  virtual double TimeSingle(std::span<const std::string_view> keys) const = 0;
  // ns per query over `keys`, one query at a time.
  virtual double TimeAlone(std::span<const std::string_view> keys) const = 0;
  // ns per key of batches of `batch` keys.
  virtual double TimeBatches(std::span<const std::string_view> keys, size_t batch) const = 0;
};

template <typename Filter>
class BenchFilterOf final : public BenchFilter {
 public:
  explicit BenchFilterOf(std::unique_ptr<Filter> filter) : filter_(std::move(filter)) {}
  void Build(std::span<const std::string_view> keys) override { filter_->Build(keys); }
  size_t SizeBytes() const override { return filter_->SizeBytes(); }
  uint64_t CountMatches(std::span<const std::string_view> keys) const override {
    return CountYes<false>(keys, Match());
  }
  double TimeSingle(std::span<const std::string_view> keys) const override {
    return NsPerQuery<false>(keys, Match(), &sink_);
  }
  // A fence after each query: no later instruction starts before the query
  // has completed, its line read, so the processor cannot overlap the
  // queries' cache misses as it does TimeSingle's independent queries; nor
  // run ahead on a predicted answer, as it would past a filter that answers
  // by early returns (Ribbon's column loop) if only the next key depended
  // on the answer. The cost of one query alone: its latency.
  double TimeAlone(std::span<const std::string_view> keys) const override {
    return NsPerQuery<true>(keys, Match(), &sink_);
  }
  double TimeBatches(std::span<const std::string_view> keys, size_t batch) const override {
    bool answers[rocksdb_plugin::kMaxRocksdbBatch];
    const size_t calls = keys.size() / batch;
    uint64_t yes = 0;
    const double start = NowNs();
    for (size_t c = 0; c < calls; ++c) {
      filter_->MayMatchBatch(keys.subspan(c * batch, batch), std::span<bool>(answers, batch));
      yes += answers[0];
    }
    const double ns = (NowNs() - start) / static_cast<double>(calls * batch);
    sink_ += yes;
    return ns;
  }

 private:
  // The filter's query, for the timed loops (bench_clock.h), inlined there.
  auto Match() const {
    return [this](std::string_view k) { return filter_->MayMatch(k); };
  }

  std::unique_ptr<Filter> filter_;
  mutable uint64_t sink_ = 0;  // keeps the answers live
};

// How a row's bits per key are chosen for a target rate (header comment).
enum class Setting { kRocksdbBloomMeasured, kLinebloomBloomModel, kCompactModel };

struct Row {
  std::string name;
  Setting setting;
  std::function<std::unique_ptr<BenchFilter>(double bits_per_key)> make;
};

template <typename Filter, typename Make>
Row MakeRow(std::string name, Setting setting, Make make) {
  return {std::move(name), setting, [make](double bits) -> std::unique_ptr<BenchFilter> {
            return std::make_unique<BenchFilterOf<Filter>>(make(bits));
          }};
}

using Policy = std::shared_ptr<const ::rocksdb::FilterPolicy>;

std::unique_ptr<PolicyBackedFilter> RocksdbBloom(double bits) {
  return std::make_unique<PolicyBackedFilter>(Policy(::rocksdb::NewBloomFilterPolicy(bits, false)), 5);
}

std::unique_ptr<PolicyBackedFilter> RocksdbRibbon(double bloom_bits) {
  return std::make_unique<PolicyBackedFilter>(Policy(::rocksdb::NewRibbonFilterPolicy(bloom_bits, -1)), 5);
}

// A DB keeps one policy for all its files, so the policy's one-time search
// for its compact bits per key (CompactBitsPerKey) is made here, outside
// the timed builds, not in the first file's build; and the filters of one
// setting share it (small filters are built many times per timing, and a
// search before each would leave each build's caches cold).
std::unique_ptr<PolicyBackedFilter> PluginCompact(double bloom_bits) {
  static double kept_bits = -1;
  static std::shared_ptr<const linebloom::rocksdb_plugin::LinebloomFilterPolicy> kept;
  if (kept == nullptr || kept_bits != bloom_bits) {
    auto policy = linebloom::rocksdb_plugin::NewLinebloomFilterPolicy(bloom_bits, /*compact_from_level=*/-1);
    policy->CompactBitsPerKey();
    kept = std::move(policy);
    kept_bits = bloom_bits;
  }
  return std::make_unique<PolicyBackedFilter>(kept, 5);
}

// The rows, in the tables' order. Another filter is one more MakeRow line.
std::vector<Row> Rows() {
  return {
      MakeRow<PolicyBackedFilter>(kCompactBloomName, Setting::kRocksdbBloomMeasured, RocksdbBloom),
      MakeRow<PolicyBackedFilter>(kCompactRibbonName, Setting::kRocksdbBloomMeasured, RocksdbRibbon),
      MakeRow<CoreFilter>(kCompactLinebloomName, Setting::kLinebloomBloomModel,
                          [](double bits) { return std::make_unique<CoreFilter>(bits); }),
      MakeRow<CompactCoreFilter>("linebloom-compact", Setting::kCompactModel,
                                 [](double bits) { return std::make_unique<CompactCoreFilter>(bits); }),
      MakeRow<PolicyBackedFilter>("linebloom-plugin-compact", Setting::kLinebloomBloomModel, PluginCompact),
  };
}

uint64_t CountMatches(const BenchFilter& filter, const KeySet& absent) { return filter.CountMatches(absent.views()); }

// The shared inputs: absent keys for measured rates and for timings, and
// the Bloom settings found for each target (Setting::kRocksdbBloomMeasured).
class Bench {
 public:
  Bench(const Config& config, CompactReport& report)
      : config_(config),
        report_(report),
        rows_(Rows()),
        fpr_absent_(KeySet::Range(kAbsentBase, FprQueries(config), config.key_length)),
        timing_absent_(KeySet::Range(kAbsentBase + (uint64_t{1} << 40), config.queries, config.key_length)),
        evictor_(config.evict_mb) {}

  void Run() {
    for (double fpr : config_.fprs) {
      for (size_t keys : config_.keys) MeasureBuilds(fpr, keys);
    }
    for (double size_mb : config_.sizes_mb) MeasureQueries(size_mb);
  }

 private:
  static size_t FprQueries(const Config& config) {
    size_t n = config.fpr_queries;
    for (double p : config.fprs) n = std::max(n, static_cast<size_t>(std::ceil(1000 / p)));
    return n;
  }

  double RocksdbBloomBits(double fpr);
  double SettingFor(const Row& row, double fpr, size_t keys) {
    switch (row.setting) {
      case Setting::kRocksdbBloomMeasured: return RocksdbBloomBits(fpr);
      case Setting::kLinebloomBloomModel: return FilterOptions::ForFalsePositiveRate(fpr).bits_per_key;
      case Setting::kCompactModel: return CompactBitsPerKeyFor(fpr, keys);
    }
    return 0;
  }
  FprCount MeasureFpr(const BenchFilter& filter) const {
    return {CountMatches(filter, fpr_absent_), fpr_absent_.size()};
  }
  void MeasureBuilds(double fpr, size_t keys);
  void AddRibbonPoints(double fpr, size_t keys, double bloom_bits, const KeySet& present);
  size_t KeysForSize(const Row& row, double fpr, double bits, double* setting);
  void MeasureQueries(double size_mb);

  const Config& config_;
  CompactReport& report_;
  std::vector<Row> rows_;
  KeySet fpr_absent_, timing_absent_;
  std::map<double, double> bloom_bits_;  // by target rate
  CacheEvictor evictor_;
};

double Bench::RocksdbBloomBits(double fpr) {
  auto it = bloom_bits_.find(fpr);
  if (it != bloom_bits_.end()) return it->second;
  const size_t n = std::min(config_.calibration_keys, *std::max_element(config_.keys.begin(), config_.keys.end()));
  const KeySet present = KeySet::Range(0, n, config_.key_length);
  const double model = FilterOptions::ForFalsePositiveRate(fpr).bits_per_key;
  std::vector<BitsFprPoint> points;
  for (double delta : {-1.0, -0.5, 0.0, 0.5, 1.0}) {
    BenchFilterOf<PolicyBackedFilter> filter(RocksdbBloom(model + delta));
    filter.Build(present.views());
    points.push_back({model + delta, MeasureFpr(filter).Rate()});
  }
  const BitsAtFprResult at = BitsAtFpr(points, fpr);
  if (std::isnan(at.bits_per_key)) throw std::runtime_error("cannot calibrate RocksDB's Bloom filter");
  std::fprintf(stderr, "rocksdb-bloom measures %g at %.3f bits/key (%s; linebloom's model: %.3f)\n", fpr,
               at.bits_per_key, at.bracketed ? "interpolated" : "extrapolated", model);
  return bloom_bits_[fpr] = at.bits_per_key;
}

void Bench::MeasureBuilds(double fpr, size_t keys) {
  const KeySet present = KeySet::Range(0, keys, config_.key_length);
  std::vector<BuildCell> cells(rows_.size());
  std::vector<std::unique_ptr<BenchFilter>> filters(rows_.size());
  for (size_t i = 0; i < rows_.size(); ++i) {
    cells[i].filter = rows_[i].name;
    cells[i].target_fpr = fpr;
    cells[i].keys = keys;
    cells[i].setting = SettingFor(rows_[i], fpr, keys);
  }
  // Small filters are built several times per timing, for a timing long
  // enough to read.
  const size_t builds = std::max<size_t>(1, config_.build_keys / keys);
  for (int rep = -1; rep < config_.reps; ++rep) {  // -1: the untimed first builds
    for (size_t j = 0; j < rows_.size(); ++j) {
      const size_t i = (j + static_cast<size_t>(rep + 1)) % rows_.size();
      if (!cells[i].failure.empty()) continue;
      double ns = 0;
      size_t peak = 0;
      try {
        for (size_t b = 0; b < builds; ++b) {
          filters[i].reset();
          filters[i] = rows_[i].make(cells[i].setting);
          evictor_.Run();
          const PeakHeapScope memory;
          const double start = NowNs();
          filters[i]->Build(present.views());
          ns += NowNs() - start;
          peak = std::max(peak, memory.PeakAboveStart());
        }
      } catch (const std::exception& e) {  // the row is reported as not built
        cells[i].failure = e.what();
        filters[i].reset();
        continue;
      }
      if (rep < 0) continue;
      cells[i].build_ns.push_back(ns / static_cast<double>(builds * keys));
      cells[i].peak_bytes.push_back(static_cast<double>(peak));
    }
  }
  for (size_t i = 0; i < rows_.size(); ++i) {
    if (!cells[i].failure.empty()) continue;
    cells[i].bytes = filters[i]->SizeBytes();
    cells[i].fpr = MeasureFpr(*filters[i]);
    if (rows_[i].setting == Setting::kCompactModel) {
      const CompactEstimate model = EstimateCompact(CompactShapeFor(cells[i].setting, keys), keys);
      cells[i].model_fpr = model.false_positive_rate;
      cells[i].second_line_share = model.second_line_share;
    }
  }
  filters.clear();
  AddRibbonPoints(fpr, keys, RocksdbBloomBits(fpr), present);
  for (BuildCell& c : cells) report_.AddBuild(std::move(c));
  std::fprintf(stderr, "target %g, %zu keys done\n", fpr, keys);
}

// Ribbon 1.5 Bloom bits/key below and above its row's setting: rates about
// twice and half the target, so that the compact's measured rate is
// bracketed.
void Bench::AddRibbonPoints(double fpr, size_t keys, double bloom_bits, const KeySet& present) {
  for (double delta : {-1.5, 1.5}) {
    BenchFilterOf<PolicyBackedFilter> ribbon(RocksdbRibbon(bloom_bits + delta));
    ribbon.Build(present.views());
    const double bits = static_cast<double>(ribbon.SizeBytes()) * 8 / static_cast<double>(keys);
    report_.AddRibbonPoint(fpr, keys, {bits, MeasureFpr(ribbon).Rate()});
  }
}

// Keys that make `row`'s filter at rate `fpr` about `bits` bits: from the
// bits per key a filter of a first guess spends (Ribbon spends fewer than
// its Bloom-equivalent setting; the compact's setting depends on the key
// count). `*setting` gets the row's setting for that guess.
size_t Bench::KeysForSize(const Row& row, double fpr, double bits, double* setting) {
  const size_t guess = std::max<size_t>(1, static_cast<size_t>(bits / SettingFor(row, fpr, 1000000)));
  *setting = SettingFor(row, fpr, guess);
  const size_t probe_keys = std::min(guess, config_.calibration_keys);
  const KeySet probe = KeySet::Range(0, probe_keys, config_.key_length);
  const std::unique_ptr<BenchFilter> filter = row.make(*setting);
  filter->Build(probe.views());
  const double spent = static_cast<double>(filter->SizeBytes()) * 8 / static_cast<double>(probe_keys);
  return std::max<size_t>(1, static_cast<size_t>(bits / spent));
}

void Bench::MeasureQueries(double size_mb) {
  constexpr double kSizeFpr = 0.01;
  const double bits_in_size = size_mb * 8 * 1024 * 1024;
  std::vector<QueryCell> cells(rows_.size());
  std::vector<double> settings(rows_.size());
  size_t most = 0;
  for (size_t i = 0; i < rows_.size(); ++i) {
    cells[i].filter = rows_[i].name;
    cells[i].size_mb = size_mb;
    try {
      cells[i].keys = KeysForSize(rows_[i], kSizeFpr, bits_in_size, &settings[i]);
    } catch (const std::exception& e) {
      cells[i].failure = e.what();
    }
    most = std::max(most, cells[i].keys);
  }
  const KeySet present = KeySet::Range(0, most, config_.key_length);
  std::vector<std::unique_ptr<BenchFilter>> filters(rows_.size());
  for (size_t i = 0; i < rows_.size(); ++i) {
    if (!cells[i].failure.empty()) continue;
    try {
      filters[i] = rows_[i].make(settings[i]);
      filters[i]->Build(present.views().first(cells[i].keys));
      cells[i].bytes = filters[i]->SizeBytes();
    } catch (const std::exception& e) {  // the row is reported as not built
      cells[i].failure = e.what();
      filters[i].reset();
    }
  }
  const auto keys = timing_absent_.views();
  for (int rep = 0; rep < config_.reps; ++rep) {
    for (size_t j = 0; j < rows_.size(); ++j) {
      const size_t i = (j + static_cast<size_t>(rep)) % rows_.size();
      if (!filters[i]) continue;
      filters[i]->TimeSingle(keys);
      cells[i].single_ns.push_back(filters[i]->TimeSingle(keys));
      filters[i]->TimeAlone(keys);
      cells[i].alone_ns.push_back(filters[i]->TimeAlone(keys));
      filters[i]->TimeBatches(keys, config_.batch);
      cells[i].batch_ns.push_back(filters[i]->TimeBatches(keys, config_.batch));
    }
  }
  for (QueryCell& c : cells) report_.AddQuery(std::move(c));
  std::fprintf(stderr, "%g MiB done\n", size_mb);
}

void AddFlags(CLI::App& app, Config& config) {
  app.add_option("--fprs", config.fprs, "target false-positive rates (fractions)")->delimiter(',');
  app.add_option("--keys", config.keys, "key counts of the accuracy, memory and build table")->delimiter(',');
  app.add_option("--sizes_mb", config.sizes_mb, "filter sizes of the query table, MiB at the 1 % setting")
      ->delimiter(',');
  app.add_option("--key_length", config.key_length, "key length in bytes")->check(CLI::Range(8, 4096));
  app.add_option("--reps", config.reps, "alternating repetitions of every timing")->check(CLI::Range(1, 1000));
  app.add_option("--batch", config.batch, "keys per MayMatch batch (at most 32, as MultiGet)")
      ->check(CLI::Range(size_t{1}, rocksdb_plugin::kMaxRocksdbBatch));
  app.add_option("--queries", config.queries, "absent keys per query timing")->check(CLI::Range(64, 1 << 26));
  app.add_option("--fpr_queries", config.fpr_queries, "absent keys per measured rate (at least 1000 / rate)");
  app.add_option("--calibration_keys", config.calibration_keys, "keys of the rocksdb-bloom setting search");
  app.add_option("--build_keys", config.build_keys, "keys per build timing: smaller filters are built repeatedly");
  app.add_option("--evict_mb", config.evict_mb,
                 "MiB written (untimed) before each timed build, to start it from cold caches; 0: off")
      ->check(CLI::Range(0.0, 4096.0));
  app.add_option("--json", config.json_path, "also write every cell and repetition to this file");
}

// A few seconds (CTest).
void MakeSmoke(Config& config) {
  config.keys = {20000};
  config.sizes_mb = {0.25};
  config.reps = 2;
  config.queries = 1 << 14;
  config.fpr_queries = 1 << 17;
  config.calibration_keys = 20000;
  config.build_keys = 1 << 16;
}

}  // namespace
}  // namespace linebloom::bench

int main(int argc, char** argv) {
  using namespace linebloom::bench;
  Config config;
  bool smoke = false;
  CLI::App app{"linebloom-compact-bench: the compact filter against RocksDB's Bloom and Ribbon and linebloom's Bloom"};
  AddFlags(app, config);
  app.add_flag("--smoke", smoke, "tiny key counts and short runs (for CI)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  if (smoke) MakeSmoke(config);
  for (double p : config.fprs) {
    if (!(p > 0 && p < 1)) {
      std::fprintf(stderr, "--fprs: %g is not a rate in (0, 1)\n", p);
      return 2;
    }
  }

  CompactReport report({.builtin_label = BuiltinLabel(),
                        .kernel = linebloom::KernelName(linebloom::ActiveKernel()),
                        .key_length = config.key_length,
                        .reps = config.reps,
                        .batch = config.batch,
                        .evict_mb = config.evict_mb});
  try {
    Bench bench(config, report);
    bench.Run();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "linebloom-compact-bench: %s\n", e.what());
    return 1;
  }
  return PrintReport(report, config.json_path);
}
