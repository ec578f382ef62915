// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// Cache-aware weights: Che's approximation of an LRU cache, and a tracked
// plan that gives bits away from a level whose blocks the cache holds.

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "linebloom/planner/cache_model.h"
#include "linebloom/planner/level_planner.h"
#include "support/planner_trees.h"

namespace linebloom::planner {
namespace {

// Che's approximation on a toy tree: the fixed point fills the cache exactly
// (sum_j B_j h_j = C), the hotter run (more requests per block) hits more,
// and a cache that holds everything misses nothing.
TEST(PlannerCache, CheFixedPointFillsTheCache) {
  const std::vector<double> blocks = {10, 100, 10000};
  const std::vector<double> rates = {0.002, 0.005, 0.01};
  const double capacity = 256;
  const std::vector<double> miss = CheMissProbabilities(blocks, rates, capacity);
  double occupied = 0;
  for (size_t j = 0; j < blocks.size(); ++j) occupied += blocks[j] * (1 - miss[j]);
  EXPECT_NEAR(occupied, capacity, 1e-6 * capacity);
  EXPECT_LT(miss[0], miss[1]);  // 2e-4 per block vs 5e-5
  EXPECT_LT(miss[1], miss[2]);  // vs 1e-6
  EXPECT_GT(miss[2], 0.9);      // the big run barely fits
  // h_j = 1 - exp(-lambda_j T) with one T for every run.
  const double t0 = -std::log(miss[0]) / (rates[0] / blocks[0]);
  const double t2 = -std::log(miss[2]) / (rates[2] / blocks[2]);
  EXPECT_NEAR(t0, t2, 1e-6 * t0);
  for (double m : CheMissProbabilities(blocks, rates, 20000)) EXPECT_EQ(m, 0.0);
  for (double m : CheMissProbabilities(blocks, rates, 0)) EXPECT_EQ(m, 1.0);
}

// A 4 MiB cache (1024 blocks of 4 KiB) holds L4's and L5's data blocks
// (70 + 700 at 56 bytes per key) but a seventh of L6's (7000), and L5's
// blocks are ten times hotter per false positive, so some of its false
// positives hit: its weight falls, it gets fewer bits than without the
// cache and L6 more; the misses follow Che's fixed point and the real bytes
// stay within the built-in's.
TEST(PlannerCache, CachedUpperLevelGivesUpBits) {
  LevelPlanner plain(testing::DefaultPlannerOptions());
  CacheOptions cache;
  cache.enabled = true;
  cache.block_cache_bytes = 4 << 20;
  cache.data_bytes_per_key = 56;
  LevelPlanner cached(testing::DefaultPlannerOptions(cache));
  testing::BuildToyTree(plain);
  testing::BuildToyTree(cached);
  ASSERT_TRUE(plain.PlanNewFile(testing::FileAt(6)).filter);  // sets the block size, cache capacity
  ASSERT_TRUE(cached.PlanNewFile(testing::FileAt(6)).filter);
  const auto without = plain.TEST_TrackedPlan("default");
  const auto with = cached.TEST_TrackedPlan("default");
  ASSERT_TRUE(without && with);
  for (double m : without->miss) EXPECT_EQ(m, 1.0);
  EXPECT_LT(with->miss[2], 0.9);  // L5: partly cached
  EXPECT_LT(with->miss[2], with->miss[3]);
  EXPECT_LT(with->bits_per_key[2], without->bits_per_key[2]);
  EXPECT_GT(with->last_bytes_per_key, without->last_bytes_per_key);  // L6 gets the bytes
  EXPECT_LE(with->real_bytes, with->builtin_bytes);
}

}  // namespace
}  // namespace linebloom::planner
