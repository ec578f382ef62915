// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// linebloom-small-filters: many small filters, as RocksDB queries them.
// linebloom's RocksDB plugin against RocksDB's built-in Bloom filter
// (format_version 5) of the RocksDB it is linked with -- or, with
// --compact, the plugin's compact filter (compact_from_level -1: every
// file) against RocksDB's Ribbon filter (NewRibbonFilterPolicy(b, -1)), both
// of the same Bloom-equivalent bits per key b -- both built and
// queried through RocksDB's calls (FilterBitsBuilder, the virtual
// FilterBitsReader::MayMatch, and MayMatch(num_keys, keys, may_match) as
// MultiGet calls it on one filter). For each number of keys per filter (a
// partition's few thousand to a full SST filter's hundreds of thousands)
// and each working set (the bytes of all filters together, from L2-sized to
// far past L3), every query or batch goes to a random filter. Each cell is
// timed in alternating repetitions, plugin and built-in back to back, and
// reported as the median of the per-repetition ratios (ratio_summary.h).
//
//   linebloom-small-filters                 full run (a few minutes)
//   linebloom-small-filters --smoke         a few seconds (CTest)
//   linebloom-small-filters --json out.json --keys_per_filter 3000 --working_sets_mb 16
//   linebloom-small-filters --compact       compact against Ribbon

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <rocksdb/filter_policy.h>

#include "bench_clock.h"
#include "builtin_label.h"
#include "linebloom/kernel.h"
#include "linebloom/rocksdb/linebloom_filter_policy.h"
#include "report_output.h"
#include "small_filter_report.h"
#include "small_filter_sets.h"

namespace linebloom::bench {
namespace {

struct Config {
  std::vector<size_t> keys_per_filter = {3000, 10000, 100000, 500000};
  std::vector<double> working_sets_mb = {0.5, 4, 16, 64};
  std::vector<size_t> batch_sizes = {8, 32};
  double bits_per_key = 10;
  size_t key_length = 16;
  int hash_scheme = static_cast<int>(KeyHashScheme::kShortKeyMultiply);  // the plugin's
  size_t queries = 1 << 20;     // per timing: single queries, or keys of batches
  size_t build_keys = 1 << 20;  // per build timing (whole filters, at least one)
  int reps = 9;
  bool compact = false;   // the compact filter against Ribbon, not Bloom against Bloom
  std::string json_path;  // every repetition's timings, if set
};

// The command line's settings, into `config`.
void AddFlags(CLI::App& app, Config& config) {
  app.add_option("--keys_per_filter", config.keys_per_filter, "keys in each filter")->delimiter(',');
  app.add_option("--working_sets_mb", config.working_sets_mb, "bytes of all filters together, MiB")->delimiter(',');
  app.add_option("--batch_sizes", config.batch_sizes, "keys per MayMatch(num_keys, ...) call (at most 32)")
      ->delimiter(',')
      ->check(CLI::Range(size_t{1}, rocksdb_plugin::kMaxRocksdbBatch));
  app.add_option("--bits_per_key", config.bits_per_key, "bits per key for both filters")->check(CLI::Range(1.0, 100.0));
  app.add_option("--key_length", config.key_length, "key length in bytes")->check(CLI::Range(8, 4096));
  app.add_option("--hash_scheme", config.hash_scheme, "the plugin's hash_scheme option (1 or 3)")
      ->check(CLI::IsMember({1, 3}));
  app.add_option("--reps", config.reps, "alternating repetitions of every timing")->check(CLI::Range(1, 1000));
  app.add_option("--queries", config.queries, "queries (or batched keys) per timing")->check(CLI::Range(64, 1 << 26));
  app.add_option("--json", config.json_path, "also write every repetition's timings to this file");
  app.add_flag("--compact", config.compact, "the plugin's compact filter against RocksDB's Ribbon filter");
}

// A few milliseconds in all (CTest).
void MakeSmoke(Config& config) {
  config.keys_per_filter = {1000, 5000};
  config.working_sets_mb = {0.0625, 0.25};
  config.queries = 1 << 12;
  config.build_keys = 1 << 12;
  config.reps = 2;
}

// Times `run(side)` (ns per operation) of side 0 and 1 back to back in
// `reps` repetitions, each repetition in the other order. Every timed run
// follows an untimed one of the same side, so each side is timed with its
// own filters as warm as the working set lets them be, whichever ran before.
template <typename Run>
void Alternate(int reps, const Run& run, SmallFilterCell* cell) {
  for (int r = 0; r < reps; ++r) {
    const int first = r % 2;
    double ns[2];
    for (int side : {first, 1 - first}) {
      run(side);
      ns[side] = run(side);
    }
    for (int side = 0; side < 2; ++side) cell->ns[side].push_back(ns[side]);
  }
}

// The key count of build b: within 10 % of keys_per_filter either way,
// spread evenly (the golden ratio's multiples mod 1), as the partitions of
// a file and the files of a level each have a count of their own.
size_t BuildKeyCount(size_t keys_per_filter, size_t b) {
  const double spread = std::fmod(static_cast<double>(b) * 0.6180339887498949, 1.0);
  return std::max<size_t>(
      1, static_cast<size_t>(std::llround(static_cast<double>(keys_per_filter) * (0.9 + 0.2 * spread))));
}

// Builds `builds` filters of the first BuildKeyCount(keys_per_filter, b)
// of `keys`, each with a builder of its own (as RocksDB builds each SST's
// full filter) or all with one builder (as it builds the partitions of one
// SST). Returns ns per key.
double TimeBuilds(const ::rocksdb::FilterPolicy& policy, const KeySet& keys, size_t keys_per_filter, size_t builds,
                  bool one_builder) {
  std::optional<rocksdb_plugin::PolicyFilterBuilder> builder;
  size_t added = 0;
  const double start = NowNs();
  for (size_t b = 0; b < builds; ++b) {
    if (!builder || !one_builder) builder.emplace(policy, 5);
    const size_t count = BuildKeyCount(keys_per_filter, b);
    for (std::string_view key : keys.views().first(count)) builder->AddKey(key);
    builder->Finish();
    added += count;
  }
  return (NowNs() - start) / static_cast<double>(added);
}

void TimeBuild(const Config& config, const std::vector<std::shared_ptr<const ::rocksdb::FilterPolicy>>& policies,
               size_t keys_per_filter, SmallFilterReport& report) {
  // Enough keys for the largest count BuildKeyCount gives.
  const KeySet keys = KeySet::Range(0, keys_per_filter + keys_per_filter / 10 + 1, config.key_length);
  const size_t builds = std::max<size_t>(1, config.build_keys / keys_per_filter);
  for (bool one_builder : {false, true}) {
    SmallFilterCell cell;
    cell.metric = one_builder ? "build_one_builder" : "build";
    cell.keys_per_filter = keys_per_filter;
    cell.num_filters = builds;
    Alternate(
        config.reps, [&](int side) { return TimeBuilds(*policies[side], keys, keys_per_filter, builds, one_builder); },
        &cell);
    report.Add(std::move(cell));
  }
}

// Single queries of `stream`, query i to filter stream.filter[i]. Returns ns
// per query; `answers` gets the number of true answers.
double TimeSingle(const FilterSet& set, const QueryStream& stream, size_t* answers) {
  const auto keys = stream.keys.views();
  size_t yes = 0;
  const double start = NowNs();
  for (size_t i = 0; i < keys.size(); ++i) yes += set[stream.filter[i]].MayMatch(keys[i]);
  const double ns = (NowNs() - start) / static_cast<double>(keys.size());
  *answers = yes;
  return ns;
}

// Batches of `batch` keys of `stream`, call c to filter stream.filter[c].
// Returns ns per key.
double TimeBatches(const FilterSet& set, const QueryStream& stream, size_t batch) {
  const auto keys = stream.keys.views();
  const size_t calls = keys.size() / batch;
  bool may_match[rocksdb_plugin::kMaxRocksdbBatch];
  const double start = NowNs();
  for (size_t c = 0; c < calls; ++c) {
    set[stream.filter[c]].MayMatchBatch(keys.subspan(c * batch, batch), std::span<bool>(may_match, batch));
  }
  return (NowNs() - start) / static_cast<double>(calls * batch);
}

void TimeQueries(const Config& config, const std::vector<FilterSet>& sets, size_t keys_per_filter, size_t num_filters,
                 double working_set_mb, SmallFilterReport& report) {
  const size_t seed = report.size();  // other queries for every cell
  const QueryStream absent = AbsentQueries(config.queries, num_filters, config.key_length, seed);
  const QueryStream present = PresentQueries(config.queries, num_filters, keys_per_filter, config.key_length, seed);
  auto cell = [&](const char* metric) {
    SmallFilterCell c;
    c.metric = metric;
    c.keys_per_filter = keys_per_filter;
    c.working_set_mb = working_set_mb;
    c.num_filters = num_filters;
    for (int side = 0; side < 2; ++side) {
      for (size_t f = 0; f < num_filters; ++f) c.bytes[side] += static_cast<double>(sets[side][f].SizeBytes());
    }
    return c;
  };

  for (bool positive : {false, true}) {
    const QueryStream& stream = positive ? present : absent;
    SmallFilterCell single = cell(positive ? "pos" : "neg");
    Alternate(
        config.reps,
        [&](int side) {
          size_t yes = 0;
          const double ns = TimeSingle(sets[side], stream, &yes);
          if (positive && yes != config.queries) throw std::runtime_error("a present key was not found");
          single.false_positives[side] = positive ? 0 : static_cast<double>(yes) / static_cast<double>(config.queries);
          return ns;
        },
        &single);
    report.Add(std::move(single));
  }

  for (size_t batch : config.batch_sizes) {
    SmallFilterCell b = cell(("batch" + std::to_string(batch)).c_str());
    Alternate(
        config.reps, [&](int side) { return TimeBatches(sets[side], absent, batch); }, &b);
    report.Add(std::move(b));
  }
}

// Filters per working set: the set's bytes over one filter's (at least one).
size_t FiltersFor(double working_set_mb, double bytes_per_filter) {
  return std::max<size_t>(1, static_cast<size_t>(std::llround(working_set_mb * 1024 * 1024 / bytes_per_filter)));
}

void Run(const Config& config, SmallFilterReport& report) {
  rocksdb_plugin::LinebloomPolicyOptions plugin;
  plugin.bits_per_key = config.bits_per_key;
  plugin.hash_scheme = config.hash_scheme;
  if (config.compact) plugin.compact_from_level = -1;
  const std::vector<std::shared_ptr<const ::rocksdb::FilterPolicy>> policies = {
      rocksdb_plugin::NewLinebloomFilterPolicy(plugin),
      std::shared_ptr<const ::rocksdb::FilterPolicy>(
          config.compact ? ::rocksdb::NewRibbonFilterPolicy(config.bits_per_key, -1)
                         : ::rocksdb::NewBloomFilterPolicy(config.bits_per_key, false))};
  for (size_t keys_per_filter : config.keys_per_filter) {
    TimeBuild(config, policies, keys_per_filter, report);
    // One filter of each, to size the sets; then the largest set, of which
    // every smaller working set queries the first filters.
    const std::vector<FilterSet> probe = BuildInterleaved(policies, 1, keys_per_filter, config.key_length);
    const double bytes_per_filter = (probe[0][0].SizeBytes() + probe[1][0].SizeBytes()) / 2.0;
    size_t most = 1;
    for (double mb : config.working_sets_mb) most = std::max(most, FiltersFor(mb, bytes_per_filter));
    const std::vector<FilterSet> sets = BuildInterleaved(policies, most, keys_per_filter, config.key_length);
    for (double mb : config.working_sets_mb) {
      TimeQueries(config, sets, keys_per_filter, FiltersFor(mb, bytes_per_filter), mb, report);
    }
    std::fprintf(stderr, "%zu keys per filter done\n", keys_per_filter);
  }
}

}  // namespace
}  // namespace linebloom::bench

int main(int argc, char** argv) {
  linebloom::bench::Config config;
  bool smoke = false;
  CLI::App app{"linebloom-small-filters: many small filters, plugin vs RocksDB's built-in, through RocksDB's calls"};
  linebloom::bench::AddFlags(app, config);
  app.add_flag("--smoke", smoke, "tiny sets and short runs (for CI)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  if (smoke) linebloom::bench::MakeSmoke(config);

  using namespace linebloom::bench;
  SmallFilterReport report(config.compact ? "compact" : "Bloom", BuiltinLabel(config.compact ? "Ribbon" : "Bloom"),
                           linebloom::KernelName(linebloom::ActiveKernel()), config.key_length, config.bits_per_key,
                           config.reps);
  try {
    Run(config, report);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "linebloom-small-filters: %s\n", e.what());
    return 1;
  }
  return PrintReport(report, config.json_path);
}
