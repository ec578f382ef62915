// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// AllocateBitsSharedMiddle, the planner's move-safe allocation, on the
// model tree L0, L3..L6.

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "linebloom/level_allocator.h"
#include "support/planner_trees.h"

namespace linebloom {
namespace {

using testing::ModelL3ToL6;

// The move-safe allocation against two references on the same weights: the
// unconstrained optimum (never beaten: it has no constraint) and the
// earlier rule, the unconstrained optimum with levels s..D-2 cut down to
// D-1's bits afterwards (never better: it satisfies the same constraint).
// Each answer stays within the budget and gives levels s..D-1 one value.
TEST(SharedMiddleAllocation, IsTheConstrainedOptimum) {
  const std::vector<uint64_t> model = ModelL3ToL6();
  const std::vector<std::vector<double>> cases = {
      {1, 1, 1, 1, 1}, {1, 0.5, 0.6, 0.75, 1}, {0.3, 0.5, 0.5, 0.5, 1}, {1, 1, 1, 0.5, 1}, {1, 0.05, 0.2, 0.9, 1}};
  for (double average : {6.0, 10.0, 16.0}) {
    for (const std::vector<double>& w : cases) {
      const LevelAllocation safe = AllocateBitsSharedMiddle(model, w, average);
      const LevelAllocation free = AllocateBitsPerRun(model, w, average);
      LevelAllocation capped = free;
      double capped_cost = 0;
      for (size_t run = 0; run < model.size(); ++run) {
        if (run == 1 || run == 2) {
          capped.expected_fpr[run] = std::max(capped.expected_fpr[run], capped.expected_fpr[3]);
        }
        capped_cost += w[run] * capped.expected_fpr[run];
      }
      double memory = 0, total = 0;
      for (size_t run = 0; run < model.size(); ++run) {
        memory += safe.bits_per_key[run] * static_cast<double>(model[run]);
        total += static_cast<double>(model[run]);
      }
      SCOPED_TRACE(::testing::Message() << "average " << average << " weights " << w[0] << "," << w[1] << "," << w[2]
                                        << "," << w[3] << "," << w[4]);
      EXPECT_LE(memory, average * total * (1 + 1e-12));
      EXPECT_EQ(safe.bits_per_key[1], safe.bits_per_key[3]);
      EXPECT_EQ(safe.bits_per_key[2], safe.bits_per_key[3]);
      EXPECT_GE(safe.expected_weighted_fpr_sum, free.expected_weighted_fpr_sum * (1 - 1e-9));
      EXPECT_LE(safe.expected_weighted_fpr_sum, capped_cost * (1 + 1e-9));
    }
  }
  // Where every lookup reaches every level, the shared levels get more bits
  // than the old rule left them (D-1's unconstrained share), and the
  // expected false positives fall by more than 5 % (8 % here).
  const double ones[] = {1, 1, 1, 1, 1};
  const LevelAllocation safe = AllocateBitsSharedMiddle(model, ones, 10);
  const LevelAllocation free = AllocateBitsPerRun(model, ones, 10);
  EXPECT_GT(safe.bits_per_key[3], free.bits_per_key[3]);
  const double capped_sum = free.expected_fpr[0] + 3 * free.expected_fpr[3] + free.expected_fpr[4];
  EXPECT_LT(safe.expected_fpr_sum, 0.95 * capped_sum);
  // Levels that one lookup in ten reaches give bits to the last level.
  const double sparse[] = {1, 0.1, 0.1, 0.1, 1};
  const LevelAllocation sparse_safe = AllocateBitsSharedMiddle(model, sparse, 10);
  EXPECT_LT(sparse_safe.bits_per_key[3], safe.bits_per_key[3]);
  EXPECT_GT(sparse_safe.bits_per_key[4], safe.bits_per_key[4]);
}

}  // namespace
}  // namespace linebloom
