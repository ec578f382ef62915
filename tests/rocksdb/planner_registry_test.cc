// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// The registry of level planners that a listener without a column family's
// handle finds the planner of a listing through.

#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "linebloom/planner/level_planner.h"
#include "linebloom/rocksdb/linebloom_filter_policy.h"
#include "planner_registry.h"
#include "support/planner_trees.h"

namespace linebloom::rocksdb_plugin {
namespace {

// The registry hands a listing to the one live planner that records one of
// its files (at any level: here the file has moved down), to none when no
// planner does, and to none when two do (column families of one name in two
// DBs holding equal files): it does not guess.
TEST(RocksdbPlannerRegistry, HandsAListingToTheOnePlannerRecordingIt) {
  const std::string cf = "owner_of_test";  // no other test's policies build for it
  auto first = std::make_shared<planner::LevelPlanner>(linebloom::testing::DefaultPlannerOptions());
  auto second = std::make_shared<planner::LevelPlanner>(linebloom::testing::DefaultPlannerOptions());
  RegisterPlanner(first);
  RegisterPlanner(second);
  first->ObserveFilter(cf, 3, "k100", "k200", 1000, 1296);
  second->ObserveFilter(cf, 3, "k300", "k400", 1000, 1296);
  const std::vector<LiveSstFile> moved{LiveSstFile{4, "k100", "k200", 1000, 1296}};
  const std::vector<LiveSstFile> unknown{LiveSstFile{4, "k500", "k600", 1000, 1296}};
  EXPECT_EQ(PlannerRecording(cf, moved), first);
  EXPECT_EQ(PlannerRecording(cf, unknown), nullptr);
  EXPECT_EQ(PlannerRecording("another_family", moved), nullptr);
  // A listener lists no files for a column family no state builds for.
  EXPECT_TRUE(AnyPlannerBuildsFor(cf));
  EXPECT_FALSE(AnyPlannerBuildsFor("another_family"));
  second->ObserveFilter(cf, 5, "k100", "k250", 1000, 1296);
  EXPECT_EQ(PlannerRecording(cf, moved), nullptr);
  second.reset();
  EXPECT_EQ(PlannerRecording(cf, moved), first);
}

}  // namespace
}  // namespace linebloom::rocksdb_plugin
