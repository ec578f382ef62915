// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// Level-aware bits over both kinds of filter: runs given the compact kind
// are priced with its model (compact_math.h), the budget still holds, and
// the planner names the kind of each file's filter by its level
// (PlannerOptions::compact_from_level).

#include <gtest/gtest.h>

#include <vector>

#include "linebloom/compact_math.h"
#include "linebloom/level_allocator.h"
#include "linebloom/planner/level_planner.h"
#include "support/planner_trees.h"

namespace linebloom::planner {
namespace {

using testing::FileAt;

constexpr FilterKind kB = FilterKind::kBloom;
constexpr FilterKind kC = FilterKind::kCompact;

TEST(CompactAllocation, AllBloomKindsAreTheBloomAllocation) {
  const std::vector<uint64_t> entries = LeveledEntries(100'000'000, 10, 5);
  const std::vector<double> weights = {1, 0.5, 0.8, 1, 1};
  const LevelAllocation plain = AllocateBitsPerRun(entries, weights, 10);
  const LevelAllocation kinded = AllocateBitsPerRun(entries, weights, std::vector<FilterKind>(5, kB), 10);
  EXPECT_EQ(plain.bits_per_key, kinded.bits_per_key);
  EXPECT_EQ(kinded.kinds, std::vector<FilterKind>(5, kB));
  const LevelAllocation shared = AllocateBitsSharedMiddle(entries, weights, 10);
  EXPECT_EQ(shared.bits_per_key, AllocateBitsSharedMiddle(entries, weights, {}, 10).bits_per_key);
}

TEST(CompactAllocation, CompactLastLevelLowersTheCostWithinTheBudget) {
  const std::vector<uint64_t> entries = LeveledEntries(100'000'000, 10, 5);
  for (double average : {7.0, 8.0, 10.0, 14.0}) {
    const std::vector<FilterKind> kinds = {kB, kB, kB, kB, kC};
    const LevelAllocation bloom = AllocateBitsPerRun(entries, {}, average);
    const LevelAllocation both = AllocateBitsPerRun(entries, {}, kinds, average);
    EXPECT_EQ(both.kinds, kinds);
    EXPECT_LE(both.total_bits, average * 100'000'000 * (1 + 1e-12)) << average;
    EXPECT_LT(both.expected_fpr_sum, bloom.expected_fpr_sum) << average;
    // The last level's rate is its kind's model at its bits.
    const double last_bits = both.bits_per_key[4];
    EXPECT_GE(last_bits, kMinCompactBitsPerKey);
    EXPECT_LE(last_bits, kMaxCompactBitsPerKey);
    EXPECT_NEAR(both.expected_fpr[4], CompactFpr(last_bits, size_t{1} << 16), 1e-15);
    EXPECT_EQ(both.num_probes[4], 0);
    // Bits taken from the big last level buy the small ones more.
    for (int run = 0; run < 4; ++run) EXPECT_GE(both.bits_per_key[run], bloom.bits_per_key[run]) << run;
  }
}

TEST(CompactAllocation, SharedMiddleIsCompactOnlyWhenAllOfItIs) {
  const std::vector<uint64_t> entries = LeveledEntries(100'000'000, 10, 5);
  const LevelAllocation mixed = AllocateBitsSharedMiddle(entries, {}, std::vector<FilterKind>{kB, kB, kC, kC, kC}, 10);
  EXPECT_EQ(mixed.kinds, (std::vector<FilterKind>{kB, kB, kB, kB, kC}));
  EXPECT_EQ(mixed.bits_per_key[1], mixed.bits_per_key[3]);
  const LevelAllocation all = AllocateBitsSharedMiddle(entries, {}, std::vector<FilterKind>{kB, kC, kC, kC, kC}, 10);
  EXPECT_EQ(all.kinds, (std::vector<FilterKind>{kB, kC, kC, kC, kC}));
}

TEST(CompactPlanner, EstimatedTreeNamesEachLevelsKind) {
  PlannerOptions options = testing::DefaultPlannerOptions();
  options.compact_from_level = 6;
  LevelPlanner planner(options);
  const int levels[] = {0, 3, 4, 5, 6};
  for (int level : {3, 6}) ASSERT_TRUE(planner.PlanNewFile(FileAt(level)).filter);
  testing::ObserveShape(planner, 1.0);
  const double quantized[] = {1.0, 32.0 / 64, 38.0 / 64, 48.0 / 64, 1.0};
  const LevelAllocation expected =
      AllocateBitsSharedMiddle(testing::ModelL3ToL6(), quantized, std::vector<FilterKind>{kB, kB, kB, kB, kC}, 10);
  for (size_t run = 0; run < 5; ++run) {
    const LevelPlanner::Decision chosen = planner.PlanNewFile(FileAt(levels[run]));
    ASSERT_TRUE(chosen.filter) << levels[run];
    EXPECT_EQ(chosen.kind, levels[run] == 6 ? kC : kB) << levels[run];
    EXPECT_EQ(chosen.filter->bits_per_key, expected.bits_per_key[run]) << "L" << levels[run];
  }
}

TEST(CompactPlanner, TrackedTreeGivesTheLastLevelCompactBits) {
  PlannerOptions options = testing::DefaultPlannerOptions();
  options.compact_from_level = 6;
  LevelPlanner planner(options);
  testing::BuildToyTree(planner);
  const auto plan = planner.TEST_TrackedPlan("default");
  ASSERT_TRUE(plan);
  const LevelPlanner::Decision l6 = planner.PlanNewFile(FileAt(6));
  ASSERT_TRUE(l6.filter);
  EXPECT_EQ(l6.kind, kC);
  // No whole-block dither for a compact filter: the plan's bits as they are.
  EXPECT_EQ(l6.filter->bits_per_key, plan->bits_per_key.back());
  EXPECT_GE(l6.filter->bits_per_key, kMinCompactBitsPerKey);
  EXPECT_EQ(planner.PlanNewFile(FileAt(5)).kind, kB);
  // Without the option every level is Bloom.
  LevelPlanner bloom(testing::DefaultPlannerOptions());
  testing::BuildToyTree(bloom);
  EXPECT_EQ(bloom.PlanNewFile(FileAt(6)).kind, kB);
}

TEST(CompactPlanner, DeepestLevelAloneWhenAskedForBottommostFiles) {
  PlannerOptions options = testing::DefaultPlannerOptions();
  options.compact_deepest = true;
  LevelPlanner planner(options);
  testing::BuildToyTree(planner);
  EXPECT_EQ(planner.PlanNewFile(FileAt(6)).kind, kC);
  EXPECT_EQ(planner.PlanNewFile(FileAt(5)).kind, kB);
  EXPECT_EQ(planner.PlanNewFile(FileAt(0)).kind, kB);
  EXPECT_EQ(KindOfLevel(options, 3, 3), kC);
  EXPECT_EQ(KindOfLevel(options, 0, 0), kB);  // L0 is never the bottommost level here
  EXPECT_EQ(KindOfLevel(options, 3), kB);     // deepest not known
}

}  // namespace
}  // namespace linebloom::planner
