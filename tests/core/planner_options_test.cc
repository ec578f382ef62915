// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// The planner's option text: configured level weights.

#include <gtest/gtest.h>

#include <vector>

#include "linebloom/planner/planner_options.h"

namespace linebloom::planner {
namespace {

TEST(PlannerOptions, LevelWeightsParse) {
  EXPECT_EQ(ParseLevelWeights("")->size(), 0u);
  const auto w = ParseLevelWeights("0.1:1:0.25");
  ASSERT_TRUE(w);
  EXPECT_EQ(*w, (std::vector<double>{0.1, 1, 0.25}));
  for (const char* bad : {"1:", ":1", "2", "-0.5", "x", "1::1"}) EXPECT_FALSE(ParseLevelWeights(bad)) << bad;
}

}  // namespace
}  // namespace linebloom::planner
