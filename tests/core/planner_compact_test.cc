// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// Level-aware bits over both kinds of filter: runs given the compact kind
// are priced with its model (compact_math.h), the budget still holds, and
// the planner names the kind of each file's filter by its level
// (PlannerOptions::compact_from_level).

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "linebloom/compact_filter.h"
#include "linebloom/compact_math.h"
#include "linebloom/filter_builder.h"
#include "linebloom/filter_format.h"
#include "linebloom/level_allocator.h"
#include "linebloom/planner/level_planner.h"
#include "support/golden_keys.h"
#include "support/planner_trees.h"

namespace linebloom::planner {
namespace {

using testing::FileAt;
using testing::KeyAt;
using testing::kToySpace;

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
  // No whole blocks for a compact filter: the bits, in 1/16, at which its
  // expected bytes are the plan's last-level bytes for the level's recent
  // files' keys (no carry yet: no file sized by this plan has been built).
  ASSERT_GT(plan->last_bytes_per_key, 0);
  const double exact = (plan->last_bytes_per_key * 1280 - CompactOverheadBytes(1280)) * 8 / 1280;
  EXPECT_EQ(l6.filter->bits_per_key, std::round(exact * 16) / 16);
  EXPECT_NEAR(ExpectedCompactBytes(1280, l6.filter->bits_per_key), plan->last_bytes_per_key * 1280, 1280 / 16 / 8 / 2);
  EXPECT_GE(l6.filter->bits_per_key, kMinCompactBitsPerKey);
  EXPECT_EQ(planner.PlanNewFile(FileAt(5)).kind, kB);
  // Without the option every level is Bloom.
  LevelPlanner bloom(testing::DefaultPlannerOptions());
  testing::BuildToyTree(bloom);
  EXPECT_EQ(bloom.PlanNewFile(FileAt(6)).kind, kB);
}

// Rewriting every last-level file of the toy tree with real filters at the
// bits the planner gives, each recorded with its real bytes as the policy
// records them: the level's real bytes are its plan's bytes per key for its
// keys, to within the carry's bound -- Bloom filters by whole blocks,
// compact filters by their expected bytes, whose error the carry takes up.
// (The plan stays the same: the files keep their keys and key ranges.)
TEST(CompactPlanner, LastLevelSpendsThePlansBytes) {
  for (FilterKind kind : {kB, kC}) {
    PlannerOptions options = testing::DefaultPlannerOptions();
    if (kind == kC) options.compact_from_level = 6;
    LevelPlanner planner(options);
    testing::BuildToyTree(planner);
    const auto plan = planner.TEST_TrackedPlan("default");
    ASSERT_TRUE(plan);
    double real = 0;
    for (uint64_t i = 0; i < 400; ++i) {
      const LevelPlanner::Decision decision = planner.PlanNewFile(FileAt(6));
      ASSERT_TRUE(decision.filter);
      ASSERT_EQ(decision.kind, kind);
      const std::vector<uint64_t> hashes = golden::RandomHashes(i + 1, 1280);
      std::string bytes;
      if (kind == kC) {
        CompactFilterBuilder builder(*decision.filter);
        for (uint64_t h : hashes) builder.AddHash(h);
        bytes = builder.Finish();
      } else {
        FilterBuilder builder(*decision.filter);
        for (uint64_t h : hashes) builder.AddHash(h);
        bytes = builder.Finish();
      }
      real += static_cast<double>(bytes.size());
      planner.ObserveFilter("default", 6, KeyAt(i * kToySpace / 400), KeyAt((i + 1) * kToySpace / 400 - 1), 1280,
                            bytes.size());
    }
    const auto after = planner.TEST_TrackedPlan("default");
    ASSERT_TRUE(after);
    EXPECT_EQ(after->last_bytes_per_key, plan->last_bytes_per_key);
    const double budget = plan->last_bytes_per_key * 400 * 1280;
    EXPECT_NEAR(real, budget, kMaxCarryBlocks * kFilterBlockBytes) << static_cast<int>(kind);
  }
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
