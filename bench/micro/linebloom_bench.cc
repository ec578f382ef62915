// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// linebloom-bench: linebloom (its C++ API, "linebloom", and its RocksDB plugin,
// "linebloom-plugin") against RocksDB's built-in filters and against
// the memory itself, at filter sizes that fit in L2, fit in L3, and far
// exceed L3. Every filter gets the same keys and the same calls. After the
// Google Benchmark output, every figure is printed again as a ratio to
// RocksDB's built-in Bloom filter (format_version 5) and to random 64-byte
// reads from a buffer of the same size, all measured in this one run.
//
//   linebloom-bench                        full run: 1, 16 and 128 MB filters
//   linebloom-bench --smoke                a few seconds (CI)
//   linebloom-bench --sizes_mb 1 --json ratios.json --benchmark_filter=neg
//
// Benchmark names are <metric>/<filter>/<size>MB; metrics: build (ns/key),
// neg and pos (ns per single query), batch8/32/128 (ns per key of a
// negative batch), and mem_indep / mem_dep (ns per 64-byte read).

#include <benchmark/benchmark.h>

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <rocksdb/filter_policy.h>

#include "bench_filters.h"
#include "builtin_label.h"
#include "linebloom/rocksdb/filter_memory_allocator.h"
#include "linebloom/rocksdb/linebloom_filter_policy.h"
#include "key_set.h"
#include "linebloom/kernel.h"
#include "memory_baseline.h"
#include "policy_filter.h"
#include "ratio_report.h"

namespace linebloom::bench {
namespace {

struct Config {
  std::vector<double> sizes_mb = {1, 16, 128};
  double bits_per_key = 10;
  size_t key_length = 16;
  size_t query_keys = 1 << 20;  // a power of two: cycled with a mask
  double build_min_time = 0;    // seconds; 0 = by size
  bool filter_memory_allocator = false;
  size_t api_line_offset = 0;  // bytes past a 64-byte boundary the API's filter starts at
};

// The keys for one filter size, generated once and shared by every filter.
struct SizeData {
  double size_mb = 0;
  size_t num_keys = 0;
  std::unique_ptr<KeySet> present, present_queries, absent_queries;
};

// Holds one size at a time: the 128 MB size needs gigabytes of keys.
const SizeData& DataFor(const Config& config, double size_mb) {
  static SizeData data;
  if (data.size_mb == size_mb && data.present) return data;
  data = SizeData{};
  data.size_mb = size_mb;
  data.num_keys = static_cast<size_t>(size_mb * 1024 * 1024 * 8 / config.bits_per_key);
  data.present = std::make_unique<KeySet>(KeySet::Range(0, data.num_keys, config.key_length));
  std::mt19937_64 rng(42);
  std::vector<uint64_t> picks(config.query_keys);
  for (auto& p : picks) p = rng() % data.num_keys;
  data.present_queries = std::make_unique<KeySet>(picks, config.key_length);
  data.absent_queries = std::make_unique<KeySet>(KeySet::Range(kAbsentBase, config.query_keys, config.key_length));
  return data;
}

// The most recently built filter of each kind, reused by its query
// benchmarks (which run right after its build benchmark).
template <typename Filter>
struct Built {
  std::unique_ptr<Filter> filter;
  double size_mb = -1;
  bool warmed_up = false;
};

template <typename Filter>
void RegisterFilter(const std::string& name, std::function<std::unique_ptr<Filter>()> make, const Config& config,
                    double size_mb, RatioReport& report) {
  auto built = std::make_shared<Built<Filter>>();
  const std::string suffix = "/" + name + "/" + FormatSize(size_mb);

  benchmark::RegisterBenchmark(("build" + suffix).c_str(),
                               [=, &config, &report](benchmark::State& state) {
                                 const SizeData& data = DataFor(config, size_mb);
                                 // One untimed build first. The first touch of fresh memory is a page
                                 // fault per page, and a large build runs once (one iteration), so
                                 // without the warm-up the first filter of each size would pay for memory
                                 // that the filters after it reuse, and the order of the filters would
                                 // decide part of the result. Storage engines build filters all day; the
                                 // warm build is the one they see. (Once: later repetitions find the
                                 // memory the previous one freed.)
                                 if (!built->warmed_up) {
                                   built->filter.reset();
                                   make()->Build(data.present->views());
                                   built->warmed_up = true;
                                 }
                                 for (auto _ : state) {
                                   built->filter.reset();
                                   auto filter = make();
                                   filter->Build(data.present->views());
                                   built->filter = std::move(filter);
                                 }
                                 state.counters["ns_per_key"] =
                                     benchmark::Counter(static_cast<double>(state.iterations() * data.num_keys),
                                                        benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
                                 built->size_mb = size_mb;
                                 // Quality of what was built (untimed): FPR over every absent query key.
                                 size_t positives = 0;
                                 for (std::string_view k : data.absent_queries->views())
                                   positives += built->filter->MayMatch(k);
                                 FilterQuality quality;
                                 quality.fpr = static_cast<double>(positives) / data.absent_queries->size();
                                 quality.bits_per_key = built->filter->SizeBytes() * 8.0 / data.num_keys;
                                 quality.bytes = built->filter->SizeBytes();
                                 report.SetQuality(name, size_mb, quality);
                                 state.counters["fpr_pct"] = 100 * quality.fpr;
                                 state.counters["bits_per_key"] = quality.bits_per_key;
                               })
      ->Unit(benchmark::kMillisecond)
      ->UseRealTime()
      ->MinTime(config.build_min_time > 0 ? config.build_min_time : (size_mb > 8 ? 0.01 : 0.3));

  for (bool positive : {false, true}) {
    benchmark::RegisterBenchmark(((positive ? "pos" : "neg") + suffix).c_str(), [=, &config](benchmark::State& state) {
      const SizeData& data = DataFor(config, size_mb);
      if (built->size_mb != size_mb) {
        state.SkipWithError("build benchmark filtered out: nothing to query");
        return;
      }
      const auto keys = (positive ? data.present_queries : data.absent_queries)->views();
      const size_t mask = keys.size() - 1;
      const Filter& filter = *built->filter;
      size_t i = 0, hits = 0;
      for (auto _ : state) hits += filter.MayMatch(keys[i++ & mask]);
      benchmark::DoNotOptimize(hits);
    })->UseRealTime();
  }

  for (int batch : {8, 32, 128}) {
    benchmark::RegisterBenchmark(("batch" + std::to_string(batch) + suffix).c_str(), [=, &config](
                                                                                         benchmark::State& state) {
      const SizeData& data = DataFor(config, size_mb);
      if (built->size_mb != size_mb) {
        state.SkipWithError("build benchmark filtered out: nothing to query");
        return;
      }
      const auto keys = data.absent_queries->views();
      const Filter& filter = *built->filter;
      bool answers[128];
      size_t start = 0, hits = 0;
      for (auto _ : state) {
        filter.MayMatchBatch(keys.subspan(start, batch), std::span<bool>(answers, batch));
        hits += answers[0];
        start = (start + batch) & (keys.size() - 1);
      }
      benchmark::DoNotOptimize(hits);
      state.counters["ns_per_key"] = benchmark::Counter(static_cast<double>(state.iterations() * batch),
                                                        benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
    })->UseRealTime();
  }
}

void RegisterMemoryBaseline(const Config& config, double size_mb) {
  auto baseline = std::make_shared<std::unique_ptr<MemoryBaseline>>();
  auto ensure = [=, &config] {
    if (!*baseline) *baseline = std::make_unique<MemoryBaseline>(static_cast<size_t>(size_mb * 1024 * 1024));
    (void)config;
  };
  const std::string suffix = "/memory/" + FormatSize(size_mb);
  benchmark::RegisterBenchmark(("mem_indep" + suffix).c_str(), [=](benchmark::State& state) {
    ensure();
    const MemoryBaseline& mem = **baseline;
    uint64_t sum = 0;
    size_t i = 0;
    for (auto _ : state) sum += mem.ReadIndependent(i++);
    benchmark::DoNotOptimize(sum);
  })->UseRealTime();
  benchmark::RegisterBenchmark(("mem_dep" + suffix).c_str(), [=](benchmark::State& state) {
    ensure();
    const MemoryBaseline& mem = **baseline;
    uint64_t line = 0;
    for (auto _ : state) line = mem.ReadDependent(line);
    benchmark::DoNotOptimize(line);
    baseline->reset();  // free before the next size
  })->UseRealTime();
}

}  // namespace
}  // namespace linebloom::bench

int main(int argc, char** argv) {
  using namespace linebloom::bench;
  Config config;
  bool smoke = false;
  std::string json_path;
  CLI::App app{"linebloom-bench: linebloom vs RocksDB's built-in filters vs random memory reads"};
  app.allow_extras();  // --benchmark_* flags go to Google Benchmark
  app.add_option("--sizes_mb", config.sizes_mb, "filter sizes in MiB (at --bits_per_key)")->delimiter(',');
  app.add_option("--bits_per_key", config.bits_per_key, "bits per key for every filter")->check(CLI::Range(1.0, 100.0));
  app.add_option("--key_length", config.key_length, "key length in bytes")->check(CLI::Range(8, 4096));
  app.add_option("--json", json_path, "also write the ratio table as JSON to this file");
  app.add_flag("--smoke", smoke, "tiny sizes and short runs (for CI)");
  bool reverse_order = false;
  app.add_flag("--reverse_order", reverse_order,
               "register the filters of each size in reverse order (run_targets.sh alternates runs with it, so no "
               "filter always runs first or last)");
  app.add_flag("--filter_memory_allocator", config.filter_memory_allocator,
               "hold the RocksDB policies' filters in memory from linebloom's block-cache allocator "
               "(NewFilterMemoryAllocator: 64-byte aligned, huge pages) instead of new[]");
  app.add_option("--api_line_offset", config.api_line_offset,
                 "query the API's filter (row linebloom) from a copy this many bytes past a 64-byte boundary, so "
                 "that its blocks straddle two cache lines as a block read into a 16-byte aligned buffer does")
      ->check(CLI::Range(0, 63));
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  if (smoke) {
    config.sizes_mb = {0.25};
    config.query_keys = 1 << 14;
    config.build_min_time = 0.01;
  }

  std::vector<std::string> rest = app.remaining();
  std::vector<char*> bench_argv = {argv[0]};
  for (auto& a : rest) bench_argv.push_back(a.data());
  std::string min_time = "--benchmark_min_time=0.01";
  if (smoke) bench_argv.push_back(min_time.data());
  int bench_argc = static_cast<int>(bench_argv.size());
  benchmark::Initialize(&bench_argc, bench_argv.data());
  if (benchmark::ReportUnrecognizedArguments(bench_argc, bench_argv.data())) return 2;

  const double bits = config.bits_per_key;
  using PolicyPtr = std::shared_ptr<const rocksdb::FilterPolicy>;
  const PolicyPtr bloom(rocksdb::NewBloomFilterPolicy(bits, false));
  // Ribbon's argument is the Bloom-equivalent bits/key: same FPR, less space.
  const PolicyPtr ribbon(rocksdb::NewRibbonFilterPolicy(bits));

  const PolicyPtr plugin = linebloom::rocksdb_plugin::NewLinebloomFilterPolicy(bits);

  // As RocksDB with LRUCacheOptions::memory_allocator = NewFilterMemoryAllocator().
  const std::shared_ptr<rocksdb::MemoryAllocator> allocator =
      config.filter_memory_allocator ? linebloom::rocksdb_plugin::NewFilterMemoryAllocator() : nullptr;

  RatioReport report(kBuiltinName, BuiltinLabel(), "memory");
  for (double size_mb : config.sizes_mb) {
    std::vector<std::function<void()>> registrations = {
        [&] {
          RegisterFilter<CoreFilter>(
              "linebloom", [=, offset = config.api_line_offset] { return std::make_unique<CoreFilter>(bits, offset); },
              config, size_mb, report);
        },
        [&] {
          RegisterFilter<PolicyBackedFilter>(
              "linebloom-plugin", [=] { return std::make_unique<PolicyBackedFilter>(plugin, 5, allocator); }, config,
              size_mb, report);
        },
        [&] {
          RegisterFilter<PolicyBackedFilter>(
              kBuiltinName, [=] { return std::make_unique<PolicyBackedFilter>(bloom, 5, allocator); }, config, size_mb,
              report);
        },
        [&] {
          RegisterFilter<PolicyBackedFilter>(
              "rocksdb-legacy-bloom", [=] { return std::make_unique<PolicyBackedFilter>(bloom, 4, allocator); }, config,
              size_mb, report);
        },
        [&] {
          RegisterFilter<PolicyBackedFilter>(
              "rocksdb-ribbon", [=] { return std::make_unique<PolicyBackedFilter>(ribbon, 5, allocator); }, config,
              size_mb, report);
        },
        [&] { RegisterMemoryBaseline(config, size_mb); },
    };
    if (reverse_order) std::reverse(registrations.begin(), registrations.end());
    for (const auto& register_one : registrations) register_one();
  }

  std::printf("kernel: %s, %zu-byte keys, %.1f bits/key; %s = %s\n", linebloom::KernelName(linebloom::ActiveKernel()),
              config.key_length, bits, kBuiltinName, BuiltinLabel().c_str());
  if (config.api_line_offset > 0) {
    std::printf("linebloom (API): filter %zu bytes past a 64-byte boundary\n", config.api_line_offset);
  }
  CollectingReporter reporter(report);
  benchmark::RunSpecifiedBenchmarks(&reporter);
  report.Print(stdout);
  if (!json_path.empty() && !report.WriteJson(json_path)) {
    std::fprintf(stderr, "cannot write %s\n", json_path.c_str());
    return 1;
  }
  benchmark::Shutdown();
  return 0;
}
