// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// TrackedTree's coverage: the fixed-point sums each level keeps, updated
// file by file, must equal a sum over the level's files computed afresh,
// through random files recorded, replaced and key spaces widened; and they
// must be the fractions' real sum to within their rounding.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "linebloom/planner/tracked_tree.h"
#include "planner/key_space.h"

namespace linebloom::planner {
namespace {

// The coverage of `tree` summed afresh: a copy that keeps no sums.
double FreshCoverage(const TrackedTree& tree, int level) {
  TrackedTree copy = tree;
  copy.coverage_units.clear();
  return copy.Coverage(level);
}

// The fractions of the level's files added as doubles, in file order.
double DoubleCoverage(const TrackedTree& tree, int level) {
  const KeySpace space(tree.smallest, tree.largest);
  double sum = 0;
  for (const TrackedFile& f : tree.LiveFiles()) sum += f.level == level ? space.Fraction(f.smallest, f.largest) : 0;
  return std::min(sum, 1.0);
}

std::string Key(uint64_t x) {
  std::string key = "key";
  for (int shift = 56; shift >= 0; shift -= 8) key.push_back(static_cast<char>(x >> shift));
  return key;
}

// Files of level 2 and 3 of random ranges, recorded one by one (a new file
// replaces the ones it overlaps).
void RecordRandomFile(std::mt19937_64& rng, TrackedTree* tree) {
  const uint64_t start = (rng() % 1000000) + 1000000;
  const uint64_t width = 1 + rng() % 5000;
  const int level = 2 + static_cast<int>(rng() % 2);
  tree->RecordFilter(level, Key(start), Key(start + width), 100, 200, 10);
}

void ExpectKeptSumIsFresh(const TrackedTree& tree, int level) {
  const double fresh = FreshCoverage(tree, level);
  ASSERT_EQ(tree.Coverage(level), fresh);
  // Each term is rounded to 2^-56, a double sum by up to n ulps.
  EXPECT_NEAR(fresh, DoubleCoverage(tree, level), 1e-12);
  EXPECT_TRUE(tree.CoverageAtLeast(level, fresh));
  EXPECT_FALSE(tree.CoverageAtLeast(level, std::nextafter(fresh, 2.0)));
}

TEST(PlannerCoverage, KeptSumsMatchAFreshSum) {
  std::mt19937_64 rng(7);
  TrackedTree tree;
  tree.WidenKeySpace(Key(0), Key(2500000));  // the files fall inside, mostly
  tree.SeeLevel(2);
  tree.SeeLevel(3);
  for (int step = 0; step < 3000; ++step) {
    RecordRandomFile(rng, &tree);
    if (step % 500 == 499) {
      tree.WidenKeySpace(Key(step), Key(2500000 + step));
      ASSERT_TRUE(tree.coverage_units.empty());  // every fraction changed
    }
    if (step % 50 == 0) {
      // Kept since the level was last walked: updated file by file.
      ASSERT_TRUE(step == 0 || step % 500 == 0 || tree.coverage_units.contains(2));
      ExpectKeptSumIsFresh(tree, 2);
      ExpectKeptSumIsFresh(tree, 3);
    }
  }
  EXPECT_GT(tree.Coverage(2), 0.1);
}

TEST(PlannerCoverage, ReplacingTheLiveFilesForgetsTheSums) {
  std::mt19937_64 rng(11);
  TrackedTree tree;
  tree.SeeLevel(2);
  for (int step = 0; step < 200; ++step) RecordRandomFile(rng, &tree);
  ASSERT_GT(tree.Coverage(2), 0);
  const std::vector<TrackedFile> files = {{2, Key(1000000), Key(1500000), 10, 20}};
  tree.ReplaceLive(files);
  EXPECT_EQ(tree.Coverage(2), FreshCoverage(tree, 2));
  EXPECT_EQ(tree.Coverage(3), 0);
  ExpectKeptSumIsFresh(tree, 2);
}

}  // namespace
}  // namespace linebloom::planner
