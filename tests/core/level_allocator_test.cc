// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// The level-aware allocator against brute-force optima, its two promises
// (never over budget, never worse than uniform) on random trees, and the
// size of the win on leveled trees.

#include <gtest/gtest.h>

#include <random>

#include "linebloom/bloom_math.h"
#include "linebloom/level_allocator.h"

namespace linebloom {
namespace {

double BestFpr(double bits) { return bits == 0 ? 1.0 : BlockedFpr(bits, OptimalBlockedProbes(bits)); }

TEST(LevelAllocator, OneRunGetsTheWholeBudget) {
  const uint64_t entries[] = {1000};
  const LevelAllocation a = AllocateBitsPerRun(entries, 10);
  ASSERT_EQ(a.bits_per_key.size(), 1u);
  EXPECT_DOUBLE_EQ(a.bits_per_key[0], 10);
  EXPECT_EQ(a.num_probes[0], 6);
  EXPECT_NEAR(a.expected_fpr_sum, BestFpr(10), 1e-12);
}

TEST(LevelAllocator, EqualRunsGetEqualBits) {
  const uint64_t entries[] = {5000, 5000, 5000};
  const LevelAllocation a = AllocateBitsPerRun(entries, 8);
  for (double b : a.bits_per_key) EXPECT_DOUBLE_EQ(b, 8);
}

TEST(LevelAllocator, EmptyRunsGetNothing) {
  const uint64_t entries[] = {0, 100, 0};
  const LevelAllocation a = AllocateBitsPerRun(entries, 10);
  EXPECT_EQ(a.bits_per_key[0], 0);
  EXPECT_EQ(a.bits_per_key[2], 0);
  EXPECT_EQ(a.expected_fpr[0], 0);
  EXPECT_DOUBLE_EQ(a.bits_per_key[1], 10);
}

// Two runs, brute force: every pair (b1, b2) on the 1/8-bit grid (and 0)
// within budget; the allocator's answer must be as good as the best pair.
TEST(LevelAllocator, MatchesBruteForceOnTwoRuns) {
  struct Case { uint64_t small, large; double avg; };
  for (const Case c : {Case{1000, 100000, 10}, Case{10, 1000000, 6}, Case{50000, 60000, 12}, Case{1, 1000, 2}}) {
    const double budget = c.avg * static_cast<double>(c.small + c.large);
    double best = 2.0;
    std::vector<double> grid = {0};
    for (double b = 1; b <= kMaxLevelBitsPerKey; b += 0.125) grid.push_back(b);
    std::vector<double> fpr;
    for (double b : grid) fpr.push_back(BestFpr(b));
    for (size_t i = 0; i < grid.size(); ++i) {
      // For each b1 the largest affordable b2 is best (FPR falls with bits).
      const double left = budget - grid[i] * c.small;
      if (left < 0) break;
      const double b2_max = left / c.large;
      size_t j = 0;
      while (j + 1 < grid.size() && grid[j + 1] <= b2_max + 1e-12) ++j;
      best = std::min(best, fpr[i] + fpr[j]);
    }
    const uint64_t entries[] = {c.small, c.large};
    const LevelAllocation a = AllocateBitsPerRun(entries, c.avg);
    EXPECT_LE(a.total_bits, budget * (1 + 1e-12));
    EXPECT_LE(a.expected_fpr_sum, best * (1 + 1e-9)) << c.small << "/" << c.large;
    EXPECT_GE(a.bits_per_key[0], a.bits_per_key[1]);  // the small run gets at least as many bits per key
  }
}

TEST(LevelAllocator, TooLittleMemoryForEveryRunDropsAFilter) {
  // One bit per key on average: a filter at 1 bit/key has FPR ~0.63, so it
  // pays to give the small runs filters and the huge one none.
  const uint64_t entries[] = {1000, 10000, 1000000};
  const LevelAllocation a = AllocateBitsPerRun(entries, 1.0);
  EXPECT_EQ(a.bits_per_key[2], 0);
  EXPECT_EQ(a.num_probes[2], 0);
  EXPECT_EQ(a.expected_fpr[2], 1.0);
  EXPECT_GT(a.bits_per_key[0], 0);
  EXPECT_LT(a.expected_fpr_sum, UniformAllocation(entries, 1.0).expected_fpr_sum);
}

TEST(LevelAllocator, NeverOverBudgetNeverWorseThanUniform) {
  std::mt19937_64 rng(17);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<uint64_t> entries(1 + rng() % 8);
    for (auto& n : entries) n = rng() % 4 == 0 ? rng() % 100 : rng() % 1000000000;
    const double avg = 1 + (rng() % 1900) / 100.0;
    double total = 0;
    for (uint64_t n : entries) total += static_cast<double>(n);
    const LevelAllocation a = AllocateBitsPerRun(entries, avg);
    const LevelAllocation u = UniformAllocation(entries, avg);
    ASSERT_LE(a.total_bits, avg * total * (1 + 1e-12)) << trial;
    ASSERT_LE(a.expected_fpr_sum, u.expected_fpr_sum * (1 + 1e-12)) << trial;
    for (size_t j = 0; j < entries.size(); ++j) {
      ASSERT_TRUE(a.bits_per_key[j] == 0 || (a.bits_per_key[j] >= 1 && a.bits_per_key[j] <= kMaxLevelBitsPerKey));
    }
  }
}

// The evidence figure, from the formula: T = 10, 10 bits/key on
// average, 4 to 6 levels: the blocked-filter optimum cuts the expected
// wasted reads per absent-key lookup by 60-75 %.
TEST(LevelAllocator, LeveledTreesHalveTheWastedReads) {
  for (int levels = 4; levels <= 6; ++levels) {
    const std::vector<uint64_t> entries = LeveledEntries(100'000'000, 10, levels);
    const LevelAllocation a = AllocateBitsPerRun(entries, 10);
    const LevelAllocation u = UniformAllocation(entries, 10);
    const double reduction = 1 - a.expected_fpr_sum / u.expected_fpr_sum;
    RecordProperty("reduction_levels_" + std::to_string(levels), std::to_string(reduction));
    EXPECT_GE(reduction, 0.60) << levels;
    EXPECT_LE(a.total_bits, u.total_bits);
    EXPECT_GT(a.total_bits, 0.99 * u.total_bits);  // the budget is used, not hoarded
  }
}

TEST(LevelAllocator, LeveledEntriesGrowBySizeRatio) {
  const std::vector<uint64_t> e = LeveledEntries(11100, 10, 3);
  ASSERT_EQ(e.size(), 3u);
  EXPECT_EQ(e[0], 100u);
  EXPECT_EQ(e[1], 1000u);
  EXPECT_EQ(e[2], 10000u);
  EXPECT_TRUE(LeveledEntries(5, 10, 0).empty());
}

}  // namespace
}  // namespace linebloom
