// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// linebloom-query-cost: runs one kind of query many times against one
// filter, in a function of its own (MeasuredBuild, MeasuredSingle,
// MeasuredBatch, MeasuredGet), so that an instruction counter can be pointed
// at exactly that work:
//
//   valgrind --tool=callgrind --toggle-collect='*MeasuredSingle*'
//       linebloom-query-cost --filter plugin --op neg
//
// and the instructions per query are the count divided by the queries the
// tool prints (build: by the keys). Instruction counts are deterministic, so they compare paths
// on a machine whose timings cannot be trusted; they do not show memory
// stalls (the default 1 MiB filter is cache-resident, where there are few).
// bench/micro/query_cost.sh runs every combination and prints the table.
//
// Filters: api (linebloom's C++ API), plugin (linebloom's policy through
// FilterBitsBuilder/FilterBitsReader, bytes in a heap buffer as after a
// block read), builtin (RocksDB's NewBloomFilterPolicy(10), format 5, the
// same way). Ops:
//   build    building the filter; counted per key
//   neg      single negative queries (FilterBitsReader::MayMatch(key))
//   batch32  negative batches of 32 (the MultiGet call); counted per key
//   get5     the filter work of a Get of an absent key in a 5-level tree:
//            the same key asked of one filter per level, the levels 8x
//            apart in size up to --size_mb; counted per Get

#include <CLI/CLI.hpp>

#include <cstdio>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <rocksdb/filter_policy.h>

#include "bench_filters.h"
#include "builtin_label.h"
#include "key_set.h"
#include "linebloom/kernel.h"
#include "linebloom/rocksdb/linebloom_filter_policy.h"
#include "policy_filter.h"

namespace linebloom::bench {
namespace {

constexpr int kLevels = 5;
constexpr size_t kLevelRatio = 8;
constexpr size_t kBatch = 32;

template <typename Filter>
__attribute__((noinline)) size_t MeasuredSingle(const Filter& filter, std::span<const std::string_view> keys) {
  size_t hits = 0;
  for (std::string_view k : keys) hits += filter.MayMatch(k);
  return hits;
}

template <typename Filter>
__attribute__((noinline)) size_t MeasuredBatch(const Filter& filter, std::span<const std::string_view> keys) {
  bool answers[kBatch];
  size_t hits = 0;
  for (size_t start = 0; start + kBatch <= keys.size(); start += kBatch) {
    filter.MayMatchBatch(keys.subspan(start, kBatch), std::span<bool>(answers, kBatch));
    for (bool a : answers) hits += a;
  }
  return hits;
}

// Builds the filter from `keys` (AddKey per key and Finish, then the copy
// to a heap buffer and the reader over it, as after a block read).
template <typename Filter>
__attribute__((noinline)) void MeasuredBuild(Filter& filter, std::span<const std::string_view> keys) {
  filter.Build(keys);
}

// One Get: the key is asked of each level's filter, top level first, until
// one says "may match" (then RocksDB would read that level's data block).
template <typename Filter>
__attribute__((noinline)) size_t MeasuredGet(const std::vector<std::unique_ptr<Filter>>& levels,
                                             std::span<const std::string_view> keys) {
  size_t hits = 0;
  for (std::string_view k : keys) {
    for (const auto& level : levels) {
      if (level->MayMatch(k)) {
        ++hits;
        break;
      }
    }
  }
  return hits;
}

struct Options {
  std::string filter = "plugin";
  std::string op = "neg";
  double size_mb = 1;
  size_t queries = 200000;
  size_t key_length = 16;
  double bits_per_key = 10;
};

template <typename Filter, typename Make>
int Run(const Options& o, Make make) {
  const size_t last_keys = static_cast<size_t>(o.size_mb * 1024 * 1024 * 8 / o.bits_per_key);
  const KeySet absent = KeySet::Range(kAbsentBase, o.queries, o.key_length);
  size_t hits = 0, counted = 0;
  const char* unit = "query";
  if (o.op == "get5") {
    std::vector<std::unique_ptr<Filter>> levels;
    size_t keys = last_keys, first = 0;
    for (int i = 1; i < kLevels; ++i) keys /= kLevelRatio;
    for (int i = 0; i < kLevels; ++i, keys *= kLevelRatio) {  // top (smallest) level first
      const KeySet present = KeySet::Range(first, std::max<size_t>(keys, 1), o.key_length);
      first += present.size();
      levels.push_back(make());
      levels.back()->Build(present.views());
    }
    hits = MeasuredGet(levels, absent.views());
    counted = o.queries;
    unit = "Get";
  } else {
    const KeySet present = KeySet::Range(0, last_keys, o.key_length);
    // A database builds many filters per process, so what a process does
    // once (linebloom finds the bits per key at which its probe count
    // steps once, bloom_math.cc) is done here by an uncounted build of the
    // same setting, as any earlier flush would have.
    make()->Build(KeySet::Range(kAbsentBase / 2, std::max<size_t>(last_keys / 16, 1), o.key_length).views());
    auto filter = make();
    MeasuredBuild(*filter, present.views());
    if (o.op == "build") {
      counted = present.size();
      unit = "key";
    } else if (o.op == "neg") {
      hits = MeasuredSingle(*filter, absent.views());
      counted = o.queries;
    } else {
      hits = MeasuredBatch(*filter, absent.views());
      counted = o.queries / kBatch * kBatch;
      unit = "key";
    }
  }
  std::printf("filter=%s op=%s size_mb=%g kernel=%s builtin=\"%s\" counted=%zu unit=%s positives=%zu\n",
              o.filter.c_str(), o.op.c_str(), o.size_mb, KernelName(ActiveKernel()), BuiltinLabel().c_str(), counted,
              unit, hits);
  return 0;
}

}  // namespace
}  // namespace linebloom::bench

int main(int argc, char** argv) {
  using namespace linebloom::bench;
  Options o;
  bool smoke = false;
  CLI::App app{"linebloom-query-cost: one kind of query, many times, for an instruction counter"};
  app.add_option("--filter", o.filter, "api, plugin or builtin")->check(CLI::IsMember({"api", "plugin", "builtin"}));
  app.add_option("--op", o.op, "build, neg, batch32 or get5")
      ->check(CLI::IsMember({"build", "neg", "batch32", "get5"}));
  app.add_option("--size_mb", o.size_mb, "filter size in MiB (get5: the largest level's)")
      ->check(CLI::Range(0.001, 4096.0));
  app.add_option("--queries", o.queries, "absent keys queried")->check(CLI::Range(size_t{32}, size_t{1} << 30));
  app.add_option("--key_length", o.key_length, "key length in bytes")->check(CLI::Range(8, 4096));
  app.add_flag("--smoke", smoke, "every filter and op on a tiny filter (for CI)");
  CLI11_PARSE(app, argc, argv);

  const double bits = o.bits_per_key;
  const std::shared_ptr<const rocksdb::FilterPolicy> bloom(rocksdb::NewBloomFilterPolicy(bits, false));
  const std::shared_ptr<const rocksdb::FilterPolicy> plugin = linebloom::rocksdb_plugin::NewLinebloomFilterPolicy(bits);
  auto run = [&](const Options& opts) {
    if (opts.filter == "api") return Run<CoreFilter>(opts, [&] { return std::make_unique<CoreFilter>(bits); });
    const auto& policy = opts.filter == "plugin" ? plugin : bloom;
    return Run<PolicyBackedFilter>(opts, [&] { return std::make_unique<PolicyBackedFilter>(policy, 5); });
  };
  if (!smoke) return run(o);
  for (const char* filter : {"api", "plugin", "builtin"}) {
    for (const char* op : {"build", "neg", "batch32", "get5"}) {
      Options s = o;
      s.filter = filter;
      s.op = op;
      s.size_mb = 0.05;
      s.queries = 4096;
      if (run(s) != 0) return 1;
    }
  }
  return 0;
}
