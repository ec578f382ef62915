// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// The level-aware allocator against brute-force optima, its two promises
// (never over budget, never worse than uniform) on random trees, and the
// size of the win on leveled trees.

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

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
  struct Case {
    uint64_t small, large;
    double avg;
  };
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

// The figure BENCHMARKS.md quotes, from the formula: T = 10, 10 bits/key on
// average, 4 to 6 levels: the blocked-filter optimum cuts the expected
// wasted reads per absent-key lookup by 64-76 % (4, 5, 6 levels).
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

// ---- Lookup weights ----

// Brute force over the grid for two runs: the least w0 FPR(b0) + w1 FPR(b1)
// within the budget.
double BruteForceTwoRuns(uint64_t n0, uint64_t n1, double w0, double w1, double avg) {
  const double budget = avg * static_cast<double>(n0 + n1);
  std::vector<double> grid = {0};
  for (double b = 1; b <= kMaxLevelBitsPerKey; b += 0.125) grid.push_back(b);
  double best = w0 + w1;
  for (double b0 : grid) {
    const double left = budget - b0 * static_cast<double>(n0);
    if (left < 0) break;
    double b1 = 0;  // the most bits run 1 can afford (FPR falls with bits)
    for (double b : grid) {
      if (b * static_cast<double>(n1) <= left * (1 + 1e-15)) b1 = b;
    }
    best = std::min(best, w0 * BestFpr(b0) + w1 * BestFpr(b1));
  }
  return best;
}

// Hand-computed: two equal runs, 10 bits/key on average. If lookups never
// reach run 1, all 20 000 bits go to run 0: 20 bits per key, and run 1 gets
// no filter; the weighted cost is FPR_blk(20) (1.5e-4 or so), while
// uniform pays FPR_blk(10).
TEST(LevelAllocatorWeights, AnUnreachedRunGivesItsBitsAway) {
  const uint64_t entries[] = {1000, 1000};
  const double weights[] = {1.0, 0.0};
  const LevelAllocation a = AllocateBitsPerRun(entries, weights, 10);
  EXPECT_DOUBLE_EQ(a.bits_per_key[0], 20);
  EXPECT_EQ(a.bits_per_key[1], 0);
  EXPECT_EQ(a.num_probes[1], 0);
  EXPECT_NEAR(a.expected_weighted_fpr_sum, BestFpr(20), 1e-15);
  EXPECT_NEAR(a.expected_fpr_sum, BestFpr(20) + 1.0, 1e-12);  // unweighted: run 1 always "may match"
  EXPECT_NEAR(UniformAllocation(entries, weights, 10).expected_weighted_fpr_sum, BestFpr(10), 1e-15);
}

// Hand-computed with the unblocked closed form as the guide: runs of 1000
// and 100 000 keys. Unweighted, the small run gets more bits per key
// (ln(1/f) is larger). Each run's cost is w_j (FPR(b) + lambda (n_j / w_j) b),
// so only n_j / w_j matters: a small run reached by 1 % of the lookups
// (n / w = 100 000) is priced exactly like the large one, and both get the
// average, 10 bits; reached by 0.1 % (ln(0.001) / ln^2 2 = -14.4 bits in the
// closed form) a small run gets fewer bits per key than the large run. The exact grid
// optimum is the brute force.
TEST(LevelAllocatorWeights, AMostlyUnreachedSmallRunGetsFewerBits) {
  const uint64_t entries[] = {1000, 100000};
  const LevelAllocation unweighted = AllocateBitsPerRun(entries, 10);
  EXPECT_GT(unweighted.bits_per_key[0], unweighted.bits_per_key[1]);

  const double balanced[] = {0.01, 1.0};
  const LevelAllocation b = AllocateBitsPerRun(entries, balanced, 10);
  EXPECT_DOUBLE_EQ(b.bits_per_key[0], 10);
  EXPECT_DOUBLE_EQ(b.bits_per_key[1], 10);

  // (10 000 keys, not 1000: the large run's next 1/8 bit per key must be
  // affordable from the small run's bits.)
  const uint64_t entries2[] = {10000, 100000};
  const double rare[] = {0.001, 1.0};
  const LevelAllocation a = AllocateBitsPerRun(entries2, rare, 10);
  EXPECT_LT(a.bits_per_key[0], a.bits_per_key[1]);
  EXPECT_NEAR(a.expected_weighted_fpr_sum, BruteForceTwoRuns(10000, 100000, 0.001, 1.0, 10), 1e-12);
  EXPECT_LT(a.expected_weighted_fpr_sum, UniformAllocation(entries2, rare, 10).expected_weighted_fpr_sum);
}

TEST(LevelAllocatorWeights, MatchesBruteForceOnTwoRuns) {
  struct Case {
    uint64_t n0, n1;
    double w0, w1, avg;
  };
  for (const Case c : {Case{1000, 100000, 0.3, 1, 10}, Case{1000, 100000, 1, 0.3, 10}, Case{50000, 60000, 0.05, 0.9, 8},
                       Case{10, 1000000, 0.5, 1, 6}, Case{100, 1000, 0.2, 0.2, 3}, Case{100000, 1000, 1, 0.001, 2}}) {
    const uint64_t entries[] = {c.n0, c.n1};
    const double weights[] = {c.w0, c.w1};
    const LevelAllocation a = AllocateBitsPerRun(entries, weights, c.avg);
    EXPECT_LE(a.total_bits, c.avg * static_cast<double>(c.n0 + c.n1) * (1 + 1e-12));
    EXPECT_NEAR(a.expected_weighted_fpr_sum, BruteForceTwoRuns(c.n0, c.n1, c.w0, c.w1, c.avg), 1e-12)
        << c.n0 << "/" << c.n1 << " w " << c.w0 << "/" << c.w1;
  }
}

TEST(LevelAllocatorWeights, WeightOneEverywhereIsTheUnweightedAnswer) {
  std::mt19937_64 rng(29);
  for (int trial = 0; trial < 50; ++trial) {
    std::vector<uint64_t> entries(1 + rng() % 7);
    for (auto& n : entries) n = 1 + rng() % 10000000;
    const double avg = 1 + (rng() % 1500) / 100.0;
    const std::vector<double> ones(entries.size(), 1.0);
    const LevelAllocation w = AllocateBitsPerRun(entries, ones, avg);
    const LevelAllocation u = AllocateBitsPerRun(entries, avg);
    ASSERT_EQ(w.bits_per_key, u.bits_per_key) << trial;
    ASSERT_EQ(w.num_probes, u.num_probes) << trial;
    ASSERT_EQ(w.expected_fpr_sum, u.expected_fpr_sum) << trial;
    ASSERT_EQ(w.expected_weighted_fpr_sum, w.expected_fpr_sum) << trial;
  }
}

TEST(LevelAllocatorWeights, NeverOverBudgetNeverWorseThanUniform) {
  std::mt19937_64 rng(31);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<uint64_t> entries(1 + rng() % 8);
    for (auto& n : entries) n = rng() % 4 == 0 ? rng() % 100 : rng() % 1000000000;
    std::vector<double> weights(entries.size());
    for (auto& x : weights) x = rng() % 5 == 0 ? 1.0 : unit(rng);
    const double avg = 1 + (rng() % 1900) / 100.0;
    double total = 0;
    for (uint64_t n : entries) total += static_cast<double>(n);
    const LevelAllocation a = AllocateBitsPerRun(entries, weights, avg);
    const LevelAllocation u = UniformAllocation(entries, weights, avg);
    ASSERT_LE(a.total_bits, avg * total * (1 + 1e-12)) << trial;
    ASSERT_LE(a.expected_weighted_fpr_sum, u.expected_weighted_fpr_sum * (1 + 1e-12)) << trial;
    for (size_t j = 0; j < entries.size(); ++j) {
      ASSERT_TRUE(a.bits_per_key[j] == 0 || (a.bits_per_key[j] >= 1 && a.bits_per_key[j] <= kMaxLevelBitsPerKey));
    }
  }
}

// The weights are probabilities; anything else is clamped, and a NaN or a
// missing weight means "every lookup" (the unweighted, safe reading).
TEST(LevelAllocatorWeights, OutOfRangeAndMissingWeights) {
  const uint64_t entries[] = {1000, 10000, 100000};
  const double odd[] = {std::nan(""), 7.0};  // NaN -> 1, 7 -> 1, third missing -> 1
  const LevelAllocation a = AllocateBitsPerRun(entries, odd, 10);
  EXPECT_EQ(a.bits_per_key, AllocateBitsPerRun(entries, 10).bits_per_key);
  const double negative[] = {-3.0, 1.0, 1.0, 0.5 /* extra: ignored */};
  const double zero[] = {0.0, 1.0, 1.0};
  EXPECT_EQ(AllocateBitsPerRun(entries, negative, 10).bits_per_key, AllocateBitsPerRun(entries, zero, 10).bits_per_key);
  EXPECT_EQ(AllocateBitsPerRun(entries, zero, 10).bits_per_key[0], 0);
}

// Allocations pinned bit for bit, so that a faster search cannot move them
// unnoticed: a tree as RocksDB leaves it (a few L0 files, L3..L6, the
// compact kind at L6, each level weighted by the lookups that reach it),
// the same compact everywhere, a leveled tree of both kinds' default, one
// with an empty run and little memory, and two runs of opposite kinds.
TEST(LevelAllocator, PinnedAllocations) {
  using K = FilterKind;
  struct Case {
    std::vector<uint64_t> entries;
    std::vector<double> weights;
    std::vector<K> kinds;
    double average;
    std::vector<double> bits;
  };
  const Case cases[] = {
      {{2234, 7185, 10491, 119322, 1197958},
       {1, 0.07, 0.08, 0.44, 1},
       {K::kBloom, K::kBloom, K::kBloom, K::kBloom, K::kCompact},
       10.15,
       {29.875, 18.75, 17.75, 16.375, 9.375}},
      {{6741, 11314, 119228, 1197733},
       {0.11, 0.28, 0.57, 1},
       {K::kCompact, K::kCompact, K::kCompact, K::kCompact},
       9.87,
       {14.0, 14.875, 12.875, 9.5}},
      {{1000, 10000, 100000, 1000000, 10000000}, {1, 1, 1, 1, 1}, {}, 10, {35.0, 27.5, 20.5, 15.0, 9.375}},
      {{500, 0, 40000, 3000000},
       {1, 1, 0.3, 1},
       {K::kBloom, K::kBloom, K::kBloom, K::kCompact},
       7.5,
       {37.5, 0.0, 16.5, 7.375}},
      {{123456, 7654321}, {0.5, 1}, {K::kCompact, K::kBloom}, 14.2, {18.75, 14.125}},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(AllocateBitsPerRun(c.entries, c.weights, c.kinds, c.average).bits_per_key, c.bits) << c.average;
  }
}

// The allocator scores the uniform allocation only where a lower bound
// says it could win, each Bloom run's term from the rate at the grid point
// at or above the average. That holds if the Bloom filter's rate never
// rises between grid points (1/8 bit apart), checked here on a sweep 32
// times finer, to the bound's relative margin of 1e-9. (The compact
// model's rate can rise a little between its grid points, where a shape
// gives way to another: its runs' terms are computed exactly.)
TEST(LevelAllocator, BloomRatesNeverRiseBetweenGridPoints) {
  constexpr int kGridPerBit = 8, kSweepPerBit = 256;
  for (int i = 0; i <= (64 - 1) * kSweepPerBit; ++i) {
    const double b = 1 + static_cast<double>(i) / kSweepPerBit;
    const double up = 1 + std::ceil((b - 1) * kGridPerBit) / kGridPerBit;
    ASSERT_GE(BestFpr(b), BestFpr(up) * (1 - 1e-9)) << b;
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
