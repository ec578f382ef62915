// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// TrackedTree's coverage answers: the remembered sums and the running sum
// that CoverageAtLeast answers from must agree with a coverage summed
// afresh, through random files recorded, replaced and key spaces widened.

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>

#include "linebloom/planner/tracked_tree.h"

namespace linebloom::planner {
namespace {

// The coverage of `tree` summed afresh: a copy that remembers nothing.
double FreshCoverage(const TrackedTree& tree, int level) {
  TrackedTree copy = tree;
  copy.coverage_memo.clear();
  copy.coverage_running.clear();
  return copy.Coverage(level);
}

std::string Key(uint64_t x) {
  std::string key = "key";
  for (int shift = 56; shift >= 0; shift -= 8) key.push_back(static_cast<char>(x >> shift));
  return key;
}

// Files of level 2 and 3 of random ranges, recorded one by one (a new file
// replaces the ones it overlaps), with the key space sometimes widened.
void RecordRandomFile(std::mt19937_64& rng, TrackedTree* tree) {
  const uint64_t start = (rng() % 1000000) + 1000000;
  const uint64_t width = 1 + rng() % 5000;
  const int level = 2 + static_cast<int>(rng() % 2);
  tree->RecordFilter(level, Key(start), Key(start + width), 100, 200, 10);
}

void ExpectAnswersAgree(const TrackedTree& tree, int level) {
  const double fresh = FreshCoverage(tree, level);
  ASSERT_EQ(tree.Coverage(level), fresh);
  // Thresholds at, just around and away from the value: the running sum's
  // bound must send every close call to the exact sum.
  for (double t :
       {fresh, std::nextafter(fresh, 0.0), std::nextafter(fresh, 2.0), fresh - 1e-9, fresh + 1e-9, 0.5, 0.9, 1.0}) {
    TrackedTree probe = tree;  // answers from the running sum, not the exact one
    probe.coverage_memo.clear();
    EXPECT_EQ(probe.CoverageAtLeast(level, t), fresh >= t) << "threshold " << t << " coverage " << fresh;
  }
}

TEST(PlannerCoverage, RememberedAndRunningSumsMatchAFreshSum) {
  std::mt19937_64 rng(7);
  TrackedTree tree;
  tree.WidenKeySpace(Key(0), Key(2500000));  // the files fall inside, mostly
  tree.SeeLevel(2);
  tree.SeeLevel(3);
  for (int step = 0; step < 3000; ++step) {
    RecordRandomFile(rng, &tree);
    if (step % 500 == 499) tree.WidenKeySpace(Key(step), Key(2500000 + step));
    if (step % 50 == 0) {
      ASSERT_TRUE(step == 0 || step % 500 == 0 || tree.coverage_running.contains(2));
      ExpectAnswersAgree(tree, 2);
      ExpectAnswersAgree(tree, 3);
    }
  }
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
  ExpectAnswersAgree(tree, 2);
}

TEST(PlannerCoverage, AnyThresholdAnsweredAsTheSumWould) {
  std::mt19937_64 rng(3);
  TrackedTree tree;
  tree.WidenKeySpace(Key(0), Key(2500000));
  tree.SeeLevel(3);
  for (int step = 0; step < 400; ++step) {
    RecordRandomFile(rng, &tree);
    if (step == 200) tree.Coverage(3);  // from here on a running sum
  }
  ASSERT_TRUE(tree.coverage_running.contains(3));
  const double fresh = FreshCoverage(tree, 3);
  std::uniform_real_distribution<double> threshold(0, 1.2);
  for (int i = 0; i < 1000; ++i) {
    const double t = threshold(rng);
    TrackedTree probe = tree;
    probe.coverage_memo.clear();
    EXPECT_EQ(probe.CoverageAtLeast(3, t), fresh >= t);
  }
}

}  // namespace
}  // namespace linebloom::planner
