// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// The planner before a tree is tracked: lookup weights from the key ranges
// of the filters it is told of, the memory books moving the average, and
// each level's bits from the weighted, move-safe allocation over the model.

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "linebloom/level_allocator.h"
#include "linebloom/planner/level_planner.h"
#include "linebloom/planner/tree_model.h"
#include "support/planner_trees.h"

namespace linebloom::planner {
namespace {

using testing::FileAt;
using testing::KeyAt;
using testing::kShapeSpace;
using testing::ModelL3ToL6;
using testing::ObserveShape;

double BitsAt(LevelPlanner& planner, int level) {
  const LevelPlanner::Decision decision = planner.PlanNewFile(FileAt(level));
  EXPECT_TRUE(decision.filter) << level;
  return decision.filter ? decision.filter->bits_per_key : -1;
}

TEST(PlannerEstimate, KeyRangesOfObservedFiltersWeighTheLevels) {
  LevelPlanner planner(testing::DefaultPlannerOptions());
  const int levels[] = {0, 3, 4, 5, 6};
  for (int level : {3, 6}) ASSERT_TRUE(planner.PlanNewFile(FileAt(level)).filter);
  const std::vector<uint64_t> model = ModelL3ToL6();
  const LevelAllocation unweighted = AllocateBitsSharedMiddle(model, {}, 10);
  // Nothing observed yet: weight 1 everywhere.
  EXPECT_EQ(planner.TEST_LookupWeights("default"), std::vector<double>(5, 1.0));
  EXPECT_EQ(BitsAt(planner, 3), unweighted.bits_per_key[1]);

  ObserveShape(planner, 1.0);
  const std::vector<double> weights = planner.TEST_LookupWeights("default");
  ASSERT_EQ(weights.size(), 5u);
  const double expected_weights[] = {1.0, 0.5, 0.6, 0.75, 1.0};
  for (size_t run = 0; run < 5; ++run) EXPECT_NEAR(weights[run], expected_weights[run], 0.01) << run;
  EXPECT_DOUBLE_EQ(planner.TEST_BudgetAverage("default"), 10.0);

  const double quantized[] = {1.0, 32.0 / 64, 38.0 / 64, 48.0 / 64, 1.0};
  const LevelAllocation expected = AllocateBitsSharedMiddle(model, quantized, 10);
  for (size_t run = 0; run < model.size(); ++run) {
    const LevelPlanner::Decision chosen = planner.PlanNewFile(FileAt(levels[run]));
    ASSERT_TRUE(chosen.filter) << levels[run];
    EXPECT_EQ(chosen.filter->bits_per_key, expected.bits_per_key[run]) << "L" << levels[run];
    // k is left to the core, which picks it after rounding (ProbesFor).
    EXPECT_EQ(chosen.filter->num_probes, 0) << "L" << levels[run];
  }
  // Sparse upper levels never get more bits than with weight 1, nor the
  // last level fewer, and the expected false positives per lookup (with
  // these weights) are no higher. (Here the shared levels' weights still sum
  // to 1.84, and both land on the same 1/8-bit grid point; sparser levels
  // move it: SharedMiddleAllocation.IsTheConstrainedOptimum.)
  EXPECT_LE(expected.bits_per_key[1], unweighted.bits_per_key[1]);
  EXPECT_GE(expected.bits_per_key[4], unweighted.bits_per_key[4]);
  double unweighted_cost = 0;
  for (size_t run = 0; run < model.size(); ++run) unweighted_cost += quantized[run] * unweighted.expected_fpr[run];
  EXPECT_LE(expected.expected_weighted_fpr_sum, unweighted_cost * (1 + 1e-12));
}

// The books: L6 filters 4 % larger than the budget for their keys. L6 is
// 1000/1111 of the model, so the live ratio r is ~1 + 0.04 * 1000/1111 and
// the next files get an average of 10 / r (to 1/64 bit). On-budget filters
// that push the over-spent ones out of the window bring it back to 10.
// Under-spending raises the average, up to 1.1 times bits_per_key.
TEST(PlannerEstimate, OverAndUnderSpendingMoveTheAverage) {
  const std::vector<uint64_t> model = ModelL3ToL6();
  {
    LevelPlanner planner(testing::DefaultPlannerOptions());
    for (int level : {3, 6}) ASSERT_TRUE(planner.PlanNewFile(FileAt(level)).filter);
    ObserveShape(planner, 1.04);
    // (The L6 filters are whole bytes: 1266 * 1.04 -> 1317.)
    const double budget_bytes = 1000 * 10 / 8 + 16;
    const double l6_ratio = std::round(budget_bytes * 1.04) / budget_bytes;
    const double ratio = 1 + (l6_ratio - 1) * static_cast<double>(model[4]) /
                                 static_cast<double>(model[0] + model[1] + model[2] + model[3] + model[4]);
    const double average = planner.TEST_BudgetAverage("default");
    EXPECT_NEAR(average, 10 / ratio, 1e-9);
    const double quantized[] = {1.0, 32.0 / 64, 38.0 / 64, 48.0 / 64, 1.0};
    const LevelAllocation expected = AllocateBitsSharedMiddle(model, quantized, std::round(average * 64) / 64);
    EXPECT_EQ(BitsAt(planner, 6), expected.bits_per_key[4]);
    EXPECT_LT(expected.total_bits, 10 * static_cast<double>(model[0] + model[1] + model[2] + model[3] + model[4]));

    // On-budget L6 filters fill the window: r -> 1.
    for (int i = 0; i < 1024; ++i) {
      planner.ObserveFilter("default", 6, KeyAt(0), KeyAt(kShapeSpace / 100), 1000,
                            static_cast<uint64_t>(budget_bytes));
    }
    EXPECT_DOUBLE_EQ(planner.TEST_BudgetAverage("default"), 10.0);
  }
  {
    LevelPlanner planner(testing::DefaultPlannerOptions());
    for (int level : {3, 6}) ASSERT_TRUE(planner.PlanNewFile(FileAt(level)).filter);
    ObserveShape(planner, 0.5);
    EXPECT_DOUBLE_EQ(planner.TEST_BudgetAverage("default"), 11.0);
  }
}

// Filters with one key each have no width: no density, weight 1.
TEST(PlannerEstimate, NoUsableRangesMeansUnweighted) {
  LevelPlanner planner(testing::DefaultPlannerOptions());
  for (int level : {3, 6}) ASSERT_TRUE(planner.PlanNewFile(FileAt(level)).filter);
  for (int i = 0; i < 8; ++i) {
    const std::string key = KeyAt(static_cast<uint64_t>(i) * 1000);
    planner.ObserveFilter("default", i % 2 == 0 ? 3 : 6, key, key, 1, 80);
  }
  EXPECT_EQ(planner.TEST_LookupWeights("default"), std::vector<double>(5, 1.0));
}

// A changed allocation is described once for the log, with each run's
// level, weight and bits; an unchanged one is not described again, and a
// caller that does not log gets no line.
TEST(PlannerEstimate, ChangedAllocationIsDescribedOnce) {
  LevelPlanner planner(testing::DefaultPlannerOptions());
  planner.PlanNewFile(FileAt(3));
  const LevelPlanner::Decision first = planner.PlanNewFile(FileAt(6));
  EXPECT_EQ(first.log.rfind("linebloom level_aware [default]: average 10.000000: L0 w=1.000 bits=", 0), 0u)
      << first.log;
  EXPECT_NE(first.log.find(" L3 w=1.000 bits="), std::string::npos) << first.log;
  EXPECT_NE(first.log.find(" L6 w=1.000 bits="), std::string::npos) << first.log;
  EXPECT_EQ(planner.PlanNewFile(FileAt(6)).log, "");
  LevelPlanner quiet(testing::DefaultPlannerOptions());
  LevelPlanner::NewFile file = FileAt(3);
  file.wants_log = false;
  EXPECT_EQ(quiet.PlanNewFile(file).log, "");
}

// L0's weight alone (what the tracked plans take of the estimate) is the
// estimate's first weight: 1 before any level >= 1, with fewer than
// kMinObservations L0 filters, or a key space of no width; else the mean
// width of L0's recent filters, clamped to [kMinLookupWeight, 1].
TEST(PlannerEstimate, L0WeightAloneIsTheEstimatesFirst) {
  TrackedTree tree;
  const auto expect_same = [&](const char* when) {
    const std::vector<double> weights = LookupWeights(tree, 10);
    EXPECT_EQ(L0LookupWeight(tree), weights.empty() ? 1.0 : weights[0]) << when;
  };
  expect_same("no level yet");
  tree.SeeLevel(3);
  tree.SeeLevel(6);
  tree.RecordFilter(6, "k000", "k999", 1000, 1300, 10);
  expect_same("no L0 filter");
  // L0 files spanning 0.6 to 0.9 of the space: the mean is the weight.
  const char* ranges[][2] = {{"k100", "k700"}, {"k000", "k900"}, {"k050", "k800"}, {"k200", "k900"}, {"k100", "k850"}};
  for (size_t i = 0; i < std::size(ranges); ++i) {
    tree.RecordFilter(0, ranges[i][0], ranges[i][1], 100, 130, 10);
    expect_same(i + 1 < TrackedTree::kMinObservations ? "too few L0 filters" : "L0 measured");
  }
  EXPECT_GT(L0LookupWeight(tree), kMinLookupWeight);
  EXPECT_LT(L0LookupWeight(tree), 1.0);
  // Narrow L0 files: the weight is clamped to the floor.
  for (int i = 0; i < 64; ++i) tree.RecordFilter(0, "k500", "k501", 10, 30, 10);
  expect_same("narrow L0 files");
  EXPECT_EQ(L0LookupWeight(tree), kMinLookupWeight);
}

}  // namespace
}  // namespace linebloom::planner
