// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// The plan of a tracked tree (the deepest level's live files cover the key
// space): its books against RocksDB's built-in Bloom filter's bytes, files
// that cannot move, and stale upper-level records.

#include <gtest/gtest.h>

#include <optional>
#include <utility>

#include "linebloom/filter_format.h"
#include "linebloom/planner/level_planner.h"
#include "linebloom/planner/tracked_plan.h"
#include "support/planner_trees.h"

namespace linebloom::planner {
namespace {

using testing::BuildToyTree;
using testing::FileAt;
using testing::KeyAt;
using testing::kToySpace;

// The built-in's size formula (FastLocalBloom, format_version 5) on values
// sst_dump reported for RocksDB 7.8.3's filters at 10 bits/key.
TEST(PlannerTrackedPlan, BuiltinBytesMatchRocksdb) {
  EXPECT_EQ(BuiltinFilterBytes(1283, 10), 1669u);
  EXPECT_EQ(BuiltinFilterBytes(891, 10), 1157u);
  EXPECT_EQ(BuiltinFilterBytes(1847, 10), 2373u);
}

// The plan's real bytes stay within the built-in's for the same files, the
// live coverage of a sparse upper level is its weight, and the levels above
// the last share their bits.
TEST(PlannerTrackedPlan, TrackedTreeStaysWithinTheBuiltinsBytes) {
  LevelPlanner planner(testing::DefaultPlannerOptions());
  BuildToyTree(planner);
  const auto plan = planner.TEST_TrackedPlan("default");
  ASSERT_TRUE(plan);
  EXPECT_LE(plan->real_bytes, plan->builtin_bytes);
  EXPECT_DOUBLE_EQ(plan->builtin_bytes, 444.0 * BuiltinFilterBytes(1280, 10));
  ASSERT_EQ(plan->weights.size(), 4u);  // L0, L4, L5, L6
  EXPECT_NEAR(plan->weights[1], 0.25, 0.01);
  EXPECT_DOUBLE_EQ(plan->entries[1], 4 * 1280.0);
  EXPECT_GT(plan->bits_per_key[1], plan->bits_per_key[3]);
  // Move-safe: a file L4 moves down unrewritten brings L5's bits.
  EXPECT_EQ(plan->bits_per_key[1], plan->bits_per_key[2]);
  // Real bytes within one block per file of the built-in's.
  EXPECT_GT(plan->real_bytes, plan->builtin_bytes - 444.0 * 64);
}

// A file that cannot move down unrewritten -- an upper level's, overlapping
// a live file of the level below -- gets its level's own bits once its key
// range is known, from the plan without the shared constraint with the file
// recorded; one that could move keeps the bits it was created with. Toy
// tree: L4's 4 files cover a quarter of the key space; a new L4 file
// spanning all of it raises L4's coverage, and so its bits, above the
// shared bits of L4 and L5.
TEST(PlannerTrackedPlan, PinnedUpperFileGetsItsLevelsOwnBits) {
  LevelPlanner planner(testing::DefaultPlannerOptions());
  BuildToyTree(planner);
  const auto plan = planner.TEST_TrackedPlan("default");
  ASSERT_TRUE(plan);
  const double shared = plan->bits_per_key[1];
  ASSERT_EQ(shared, plan->bits_per_key[2]);
  // Spans the key space: overlaps L5's files, so it is pinned.
  const std::optional<double> wide = planner.BitsAtFinish("default", 4, KeyAt(0), KeyAt(kToySpace - 1), 1280);
  ASSERT_TRUE(wide);
  EXPECT_GT(*wide, shared + 2);
  // An L5 file (pinned by L6) gets L5's own bits: fewer than L4's.
  const std::optional<double> l5 = planner.BitsAtFinish("default", 5, KeyAt(0), KeyAt(kToySpace / 40 - 1), 1280);
  ASSERT_TRUE(l5);
  EXPECT_LT(*l5, *wide);
  // Past every live L5 file: it may move down, no change.
  EXPECT_FALSE(planner.BitsAtFinish("default", 4, KeyAt(2 * kToySpace), KeyAt(3 * kToySpace), 1280));
  // The last level and L0 are sized when created.
  EXPECT_FALSE(planner.BitsAtFinish("default", 6, KeyAt(0), KeyAt(kToySpace / 400 - 1), 1280));
  EXPECT_FALSE(planner.BitsAtFinish("default", 0, KeyAt(0), KeyAt(kToySpace - 1), 1280));
  EXPECT_FALSE(planner.BitsAtFinish("other", 4, KeyAt(0), KeyAt(kToySpace - 1), 1280));
  // Asking records nothing: the plan is unchanged.
  const auto again = planner.TEST_TrackedPlan("default");
  ASSERT_TRUE(again);
  EXPECT_EQ(again->bits_per_key, plan->bits_per_key);
  // The plan books the live files as they are sized: every L4 and L5 file
  // overlaps the level below, so at their levels' own bits; L6 at its.
  ASSERT_EQ(plan->own_bits_per_key.size(), 4u);
  EXPECT_NE(plan->own_bits_per_key[1], shared);
  const double booked = 4.0 * FilterBytesFor(1280, plan->own_bits_per_key[1]) +
                        40.0 * FilterBytesFor(1280, plan->own_bits_per_key[2]) +
                        400.0 * FilterBytesFor(1280, plan->bits_per_key[3]);
  EXPECT_DOUBLE_EQ(plan->real_bytes, booked);
  EXPECT_LE(plan->real_bytes, plan->builtin_bytes);
}

// Stale records: a tree whose upper levels drained after their files were
// recorded (compacted down with no replacement at their level), as when
// writes stop. L6 covers the key space in 400 files; L5's records cover it
// in 200 (5 x the model's tenth of L6) and L4's in 40 (10 x its hundredth).
// The smaller upper levels get more bits per key, so booked at their
// recorded keys they would take the last level's bytes. Each upper level
// counts as at most its model share, in the allocation and in the books
// alike, so the last level keeps about its bits.
TEST(PlannerTrackedPlan, StaleUpperLevelRecordsDoNotStarveTheLastLevel) {
  LevelPlanner planner(testing::DefaultPlannerOptions());
  for (int level : {4, 5, 6}) ASSERT_TRUE(planner.PlanNewFile(FileAt(level)).filter);
  for (auto [level, files] : {std::pair{6, 400}, {5, 200}, {4, 40}}) {
    for (uint64_t i = 0; i < static_cast<uint64_t>(files); ++i) {
      planner.ObserveFilter("default", level, KeyAt(i * kToySpace / files), KeyAt((i + 1) * kToySpace / files - 1),
                            1280, 1616);
    }
  }
  const auto plan = planner.TEST_TrackedPlan("default");
  ASSERT_TRUE(plan);
  ASSERT_EQ(plan->entries.size(), 4u);  // L0, L4, L5, L6
  const double last = plan->entries[3];
  EXPECT_NEAR(plan->entries[2], last / 10, 1e-6 * last);
  EXPECT_NEAR(plan->entries[1], last / 100, 1e-6 * last);
  EXPECT_GE(plan->bits_per_key[3], 8.0);
  EXPECT_LE(plan->real_bytes, plan->builtin_bytes);

  // L0 is booked as large as the shallowest level as recorded, not as its
  // share (RocksDB keeps the base level at least max_bytes_for_level_base,
  // and L0 grows to about the base level's size before it is compacted),
  // but at most kBaseLevelSlack times the share: L4's 40 files are 10 x.
  EXPECT_DOUBLE_EQ(plan->entries[0], 0.0);  // no L0 file built yet
  planner.ObserveFilter("default", 0, KeyAt(0), KeyAt(kToySpace - 1), 1280, 1616);
  const auto with_l0 = planner.TEST_TrackedPlan("default");
  ASSERT_TRUE(with_l0);
  EXPECT_NEAR(with_l0->entries[0], kBaseLevelSlack * last / 100, 1e-6 * last);
  EXPECT_LE(with_l0->real_bytes, with_l0->builtin_bytes);
}

// Once tracked, a new file's bits come from the plan, described once for
// the log with each run's entries, weight, miss probability and bits.
TEST(PlannerTrackedPlan, NewFilesFollowThePlan) {
  LevelPlanner planner(testing::DefaultPlannerOptions());
  BuildToyTree(planner);
  const auto plan = planner.TEST_TrackedPlan("default");
  ASSERT_TRUE(plan);
  const LevelPlanner::Decision l4 = planner.PlanNewFile(FileAt(4));
  ASSERT_TRUE(l4.filter);
  EXPECT_EQ(l4.filter->bits_per_key, plan->bits_per_key[1]);
  EXPECT_EQ(l4.log.rfind("linebloom level_aware [default]: tracked tree, average ", 0), 0u) << l4.log;
  EXPECT_NE(l4.log.find(" L6 n="), std::string::npos) << l4.log;
  EXPECT_EQ(planner.PlanNewFile(FileAt(5)).log, "");  // the same plan
}

}  // namespace
}  // namespace linebloom::planner
