// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// FilterAllocation::kRunAware (docs/KVSTORE.md, "Filter allocation"):
//  * the full tier shape and the bits chosen, against hand-computed values;
//  * a tiered store of 3 + 3 + 3 runs (5 k, 20 k and 80 k entries each) built
//    by auto-compaction, then 100 k absent-key lookups that meet every run:
//    run-aware must read fewer false-positive blocks than per-level uniform,
//    by more than 4 binomial standard deviations of the difference, with no
//    more filter bytes (both measured from Stats()); and run-aware with
//    compact run filters on the deepest level fewer than run-aware Bloom.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "filter_allocation.h"
#include "kv_test_util.h"
#include "linebloom/compact_math.h"
#include "linebloom/level_allocator.h"

namespace linebloom::kvstore {
namespace {

using internal::RunShape;
using testing::KeyFor;
using testing::TempDir;

TEST(KvFilterAllocationTest, FullShapePadsEveryLevelBelowTheDeepest) {
  // One level-0 run of 100 and one level-2 run of 1600, fanout 4: level 0
  // gets 2 more runs like its own, level 1 (empty) 3 runs of 100 * 4.
  const std::vector<RunShape> live{{100, 0}, {1600, 2}};
  const std::vector<RunShape> full = internal::FullTieredShape(live, 4);
  ASSERT_EQ(full.size(), 7u);
  EXPECT_EQ(full[0].entries, 100u);
  EXPECT_EQ(full[1].entries, 1600u);
  for (size_t i = 2; i < 4; ++i) EXPECT_EQ(full[i].entries, 100u) << i;
  for (size_t i = 2; i < 4; ++i) EXPECT_EQ(full[i].level, 0) << i;
  for (size_t i = 4; i < 7; ++i) EXPECT_EQ(full[i].entries, 400u) << i;
  for (size_t i = 4; i < 7; ++i) EXPECT_EQ(full[i].level, 1) << i;
  // A full level and the deepest level are not padded; a lone run at level
  // 3 gets 3 runs on each level above it (the levels that will refill).
  EXPECT_EQ(internal::FullTieredShape(std::vector<RunShape>{{5, 0}, {5, 0}, {5, 0}, {60, 1}}, 4).size(), 4u);
  EXPECT_EQ(internal::FullTieredShape(std::vector<RunShape>{{7, 0}}, 4).size(), 1u);
  EXPECT_EQ(internal::FullTieredShape(std::vector<RunShape>{{6400, 3}}, 4).size(), 10u);
  // A level's size comes from its own runs when it has any (mean 150).
  const auto mixed = internal::FullTieredShape(std::vector<RunShape>{{100, 0}, {200, 0}, {900, 1}}, 4);
  ASSERT_EQ(mixed.size(), 4u);
  EXPECT_EQ(mixed[3].entries, 150u);
}

TEST(KvFilterAllocationTest, PerLevelUsesTheLevelFunction) {
  Options o;
  o.bits_per_key = [](int level) { return 4.0 + level; };
  const auto bits = internal::ChooseRunFilterBits(o, {1000, 3}, {});
  EXPECT_EQ(bits.run_filter, 7.0);
  EXPECT_EQ(bits.block_filters, 7.0);
  o.run_filters = false;
  EXPECT_EQ(internal::ChooseRunFilterBits(o, {1000, 3}, {}).run_filter, 0.0);
  o.block_filters = false;
  EXPECT_EQ(internal::ChooseRunFilterBits(o, {1000, 3}, {}).block_filters, 0.0);
}

// Options::compact_run_filters_from_level names the run filter's kind by
// level and clamps its bits to the compact range; the bits are otherwise
// those of the allocation, and the block filters are untouched.
TEST(KvFilterAllocationTest, CompactRunFiltersFromALevel) {
  Options o;
  o.bits_per_key = [](int level) { return level == 5 ? 40.0 : 4.0 + level; };
  o.compact_run_filters_from_level = 2;
  const double want[] = {4, 5, 6, 7, 8, 30};  // level 5 clamped from 40
  for (int level = 0; level < 6; ++level) {
    const auto bits = internal::ChooseRunFilterBits(o, {1000, level}, {});
    EXPECT_EQ(bits.run_filter_kind, level >= 2 ? FilterKind::kCompact : FilterKind::kBloom) << level;
    EXPECT_EQ(bits.run_filter, want[level]) << level;
    EXPECT_EQ(bits.block_filters, level == 5 ? 40.0 : 4.0 + level) << level;
  }
  o.compact_run_filters_from_level = 0;
  EXPECT_EQ(internal::ChooseRunFilterBits(o, {1000, 0}, {}).run_filter, kMinCompactBitsPerKey);
  o.run_filters = false;
  EXPECT_EQ(internal::ChooseRunFilterBits(o, {1000, 3}, {}).run_filter, 0.0);

  // Run-aware with every run compact: the allocation over the runs priced
  // with the compact model, within the compact range, and a lone run still
  // gets the average.
  Options bloom;
  bloom.filter_allocation = FilterAllocation::kRunAware;
  bloom.average_bits_per_key = 8;
  Options compact = bloom;
  compact.compact_run_filters_from_level = 0;
  EXPECT_DOUBLE_EQ(internal::ChooseRunFilterBits(compact, {1000, 0}, {}).run_filter, 8.0);
  const std::vector<RunShape> others{{1000, 0, 8.0}, {1000, 0, 8.0}, {3000, 1, 8.0}, {9000, 2, 8.0}};
  for (const RunShape run : {RunShape{1000, 0}, RunShape{3000, 1}, RunShape{27000, 3}}) {
    const auto b = internal::ChooseRunFilterBits(bloom, run, others);
    const auto c = internal::ChooseRunFilterBits(compact, run, others);
    EXPECT_EQ(b.run_filter_kind, FilterKind::kBloom);
    ASSERT_GT(b.run_filter, 0.0) << run.level;
    EXPECT_EQ(c.run_filter_kind, FilterKind::kCompact);
    EXPECT_GE(c.run_filter, kMinCompactBitsPerKey) << run.level;
    EXPECT_LE(c.run_filter, kMaxCompactBitsPerKey) << run.level;
    EXPECT_EQ(c.block_filters, b.block_filters) << run.level;
  }
}

// Run-aware with a compact deepest level: the new deep run and the virtual
// runs above it share the budget the live runs leave, each priced with its
// kind's model (the allocator over the free runs with their kinds). Bits
// moved off the big compact run buy the small Bloom runs more than they
// cost it, so it gets fewer bits than Bloom pricing gives it.
TEST(KvFilterAllocationTest, RunAwarePricesCompactRunsWithTheCompactModel) {
  Options o;
  o.filter_allocation = FilterAllocation::kRunAware;
  o.average_bits_per_key = 10;
  o.block_filters = false;
  o.compact_run_filters_from_level = 2;
  const std::vector<RunShape> others{{1000, 0, 12.0}};
  const auto chosen = internal::ChooseRunFilterBits(o, {64000, 2}, others);
  EXPECT_EQ(chosen.run_filter_kind, FilterKind::kCompact);
  // Full shape: the new run, the live one, 2 virtual level-0 runs of 1000
  // and 3 virtual level-1 runs of 4000 (fanout 4); the live run keeps 12.
  const std::vector<uint64_t> free{64000, 1000, 1000, 4000, 4000, 4000};
  const std::vector<FilterKind> kinds{FilterKind::kCompact, FilterKind::kBloom, FilterKind::kBloom,
                                      FilterKind::kBloom,   FilterKind::kBloom, FilterKind::kBloom};
  const double free_average = (10.0 * 79000 - 1000 * 12.0) / 78000;
  const LevelAllocation want = AllocateBitsPerRun(free, {}, kinds, free_average);
  EXPECT_DOUBLE_EQ(chosen.run_filter, want.bits_per_key[0]);
  Options priced_as_bloom = o;
  priced_as_bloom.compact_run_filters_from_level = kMaxLevels;
  EXPECT_LT(chosen.run_filter, internal::ChooseRunFilterBits(priced_as_bloom, {64000, 2}, others).run_filter);
  // The allocation is the better one by the kinds' own models.
  const LevelAllocation bloom_priced = AllocateBitsPerRun(free, free_average);
  double sum_bloom_priced = CompactFpr(
      std::clamp(bloom_priced.bits_per_key[0], kMinCompactBitsPerKey, kMaxCompactBitsPerKey), size_t{1} << 16);
  for (size_t j = 1; j < free.size(); ++j) sum_bloom_priced += bloom_priced.expected_fpr[j];
  EXPECT_LT(want.expected_fpr_sum, sum_bloom_priced);
}

TEST(KvFilterAllocationTest, RunAwareGivesSmallRunsMoreAndMatchesTheAllocator) {
  Options o;
  o.filter_allocation = FilterAllocation::kRunAware;
  o.average_bits_per_key = 10;
  o.block_filters = false;
  // A lone run gets the average.
  EXPECT_DOUBLE_EQ(internal::ChooseRunFilterBits(o, {1000, 0}, {}).run_filter, 10.0);
  // Next to a big run, a small one gets more. The full shape adds 2 more
  // runs like it on level 0 and 2 like the live one on level 1; the live
  // runs keep their bits (9 and 10), the new and virtual runs share the rest.
  const std::vector<RunShape> others{{64000, 2, 9.0}, {16000, 1, 10.0}};
  const double small = internal::ChooseRunFilterBits(o, {1000, 0}, others).run_filter;
  const std::vector<uint64_t> free{1000, 1000, 1000, 16000, 16000};
  const double free_average = (10.0 * 115000 - 64000 * 9.0 - 16000 * 10.0) / 35000;
  EXPECT_DOUBLE_EQ(small, AllocateBitsPerRun(free, free_average).bits_per_key[0]);
  EXPECT_GT(small, 12.0);
  // The big run written next to small ones at the average gets less.
  const std::vector<RunShape> small_ones{{1000, 0, 10.0}, {16000, 1, 10.0}};
  EXPECT_LT(internal::ChooseRunFilterBits(o, {64000, 2}, small_ones).run_filter, 10.0);
  // Live runs that overspent (30 bits/key, e.g. built under a larger
  // budget) leave nothing; the share is floored at half the average.
  const std::vector<RunShape> greedy{{64000, 2, 30.0}};
  const std::vector<uint64_t> free2{1000, 1000, 1000, 4000, 4000, 4000};
  EXPECT_DOUBLE_EQ(internal::ChooseRunFilterBits(o, {1000, 0}, greedy).run_filter,
                   AllocateBitsPerRun(free2, 5.0).bits_per_key[0]);

  // Both filter kinds: the run filter takes the allocation, the block
  // filters keep the average in every run.
  o.block_filters = true;
  const auto pair = internal::ChooseRunFilterBits(o, {1000, 0}, others);
  EXPECT_DOUBLE_EQ(pair.run_filter, small);
  EXPECT_DOUBLE_EQ(pair.block_filters, 10.0);
  // Block filters alone take it.
  o.run_filters = false;
  const auto blocks = internal::ChooseRunFilterBits(o, {1000, 0}, others);
  EXPECT_DOUBLE_EQ(blocks.run_filter, 0.0);
  EXPECT_DOUBLE_EQ(blocks.block_filters, small);
}

constexpr uint64_t kFlushEntries = 5000;
constexpr uint64_t kFlushes = 63;  // fanout 4: 3 runs on each of levels 0, 1, 2
constexpr uint64_t kKeys = kFlushEntries * kFlushes;
constexpr uint64_t kAbsentLookups = 100000;

struct Measured {
  StoreStats stats;
  LookupCounters probe;  // counters of the absent-key lookups only
};

Measured LoadTieredAndProbe(FilterAllocation allocation, bool block_filters, double bits,
                            int compact_from_level = kMaxLevels) {
  TempDir dir;
  testing::NoSyncEnv env;
  Options o;
  o.env = &env;
  o.sync_writes = false;
  o.write_buffer_size = size_t{1} << 30;  // flush only when told
  o.tier_fanout = 4;
  o.block_filters = block_filters;
  o.bits_per_key = UniformBitsPerKey(bits);
  o.average_bits_per_key = bits;
  o.filter_allocation = allocation;
  o.compact_run_filters_from_level = compact_from_level;
  std::unique_ptr<KvStore> store;
  EXPECT_TRUE(KvStore::Open(dir.path(), o, &store).ok());
  // Stored keys are even numbers in a scattered order (7919 is coprime to
  // kKeys), so every run spans the whole key range.
  for (uint64_t f = 0; f < kFlushes; ++f) {
    WriteBatch batch;
    for (uint64_t j = f * kFlushEntries; j < (f + 1) * kFlushEntries; ++j)
      batch.Put(KeyFor(2 * (j * 7919 % kKeys)), "v");
    EXPECT_TRUE(store->Write(batch).ok());
    EXPECT_TRUE(store->Flush().ok());
  }
  const LookupCounters before = store->Stats().total;
  std::string value;
  for (uint64_t i = 0; i < kAbsentLookups; ++i) {
    const uint64_t odd = 2 * ((i * 104729) % (kKeys - 10)) + 11;
    EXPECT_TRUE(store->Get(KeyFor(odd), &value).IsNotFound()) << KeyFor(odd);
  }
  Measured m;
  m.stats = store->Stats();
  m.probe = m.stats.total;
  m.probe.lookups -= before.lookups;
  m.probe.false_positives -= before.false_positives;
  m.probe.block_reads -= before.block_reads;
  // Never a false negative.
  for (uint64_t j = 0; j < kKeys; j += 101) EXPECT_TRUE(store->Get(KeyFor(2 * j), &value).ok()) << KeyFor(2 * j);
  return m;
}

void Report(const char* what, const Measured& m) {
  std::printf(
      "%s: %llu false-positive block reads per %llu absent lookups (%.4f per lookup), "
      "%llu filter bytes (%.3f bits/key)\n",
      what, static_cast<unsigned long long>(m.probe.false_positives), static_cast<unsigned long long>(kAbsentLookups),
      static_cast<double>(m.probe.false_positives) / kAbsentLookups,
      static_cast<unsigned long long>(m.stats.filter_bytes),
      8.0 * static_cast<double>(m.stats.filter_bytes) / static_cast<double>(m.stats.run_entries));
  for (const RunStats& r : m.stats.runs) {
    std::printf("  run %llu level %d: %7llu entries, %6.2f bits/key, %8llu filter bytes, %6llu false positives\n",
                static_cast<unsigned long long>(r.file_number), r.level, static_cast<unsigned long long>(r.entries),
                r.filter_bits_per_key, static_cast<unsigned long long>(r.filter_bytes),
                static_cast<unsigned long long>(r.counters.false_positives));
  }
}

void ExpectFewerFalsePositivesAtNoMoreMemory(bool block_filters, double bits) {
  const Measured uniform = LoadTieredAndProbe(FilterAllocation::kPerLevel, block_filters, bits);
  const Measured aware = LoadTieredAndProbe(FilterAllocation::kRunAware, block_filters, bits);
  Report("per-level uniform", uniform);
  Report("run-aware        ", aware);
  ASSERT_EQ(uniform.stats.runs.size(), 9u);
  ASSERT_EQ(aware.stats.runs.size(), 9u);
  EXPECT_EQ(aware.stats.run_entries, uniform.stats.run_entries);
  EXPECT_LE(aware.stats.filter_bytes, uniform.stats.filter_bytes);
  // Counts of rare events: the variance of each is at most its mean, so the
  // difference has sd <= sqrt(U + A).
  const double u = static_cast<double>(uniform.probe.false_positives);
  const double a = static_cast<double>(aware.probe.false_positives);
  const double sd = std::sqrt(u + a);
  std::printf("difference %.0f = %.1f sd; run-aware reads %.1f%% fewer false-positive blocks\n", u - a, (u - a) / sd,
              100 * (u - a) / u);
  EXPECT_GT(u - a, 4 * sd);
}

TEST(KvFilterAllocationTest, TieredStoreRunFilterOnlyFewerFalsePositivesAtNoMoreMemory) {
  ExpectFewerFalsePositivesAtNoMoreMemory(false, 8);
}

TEST(KvFilterAllocationTest, TieredStoreRunAndBlockFiltersFewerFalsePositivesAtNoMoreMemory) {
  ExpectFewerFalsePositivesAtNoMoreMemory(true, 5);
}

// Run-aware over both kinds: compact run filters on the deepest level (the
// 80 k-entry runs, 3/4 of the keys), priced with their model, read fewer
// false-positive blocks than run-aware Bloom run filters at the same
// budget, within 1 % of its bytes (a compact filter is whole lines).
TEST(KvFilterAllocationTest, TieredStoreCompactDeepRunsFewerFalsePositivesAtTheSameBudget) {
  const Measured bloom = LoadTieredAndProbe(FilterAllocation::kRunAware, false, 8);
  const Measured both = LoadTieredAndProbe(FilterAllocation::kRunAware, false, 8, /*compact_from_level=*/2);
  Report("run-aware, Bloom       ", bloom);
  Report("run-aware, compact L2  ", both);
  ASSERT_EQ(both.stats.runs.size(), 9u);
  EXPECT_EQ(both.stats.run_entries, bloom.stats.run_entries);
  EXPECT_LE(static_cast<double>(both.stats.filter_bytes), 1.01 * static_cast<double>(bloom.stats.filter_bytes));
  const double b = static_cast<double>(bloom.probe.false_positives);
  const double c = static_cast<double>(both.probe.false_positives);
  const double sd = std::sqrt(b + c);
  std::printf("difference %.0f = %.1f sd; compact deep runs read %.1f%% fewer false-positive blocks\n", b - c,
              (b - c) / sd, 100 * (b - c) / b);
  EXPECT_GT(b - c, 4 * sd);
}

}  // namespace
}  // namespace linebloom::kvstore
