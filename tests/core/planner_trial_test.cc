// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// TrackedTree's trial files: during a trial the tree is what recording the
// file would make it, and after it exactly what it was.

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "linebloom/planner/tracked_tree.h"

namespace linebloom::planner {
namespace {

std::string Key(uint64_t x) {
  std::string key = "k";
  for (int shift = 56; shift >= 0; shift -= 8) key.push_back(static_cast<char>(x >> shift));
  return key;
}

void ExpectSameFiles(const std::vector<TrackedFile>& a, const std::vector<TrackedFile>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].level, b[i].level);
    EXPECT_EQ(a[i].smallest, b[i].smallest);
    EXPECT_EQ(a[i].largest, b[i].largest);
    EXPECT_EQ(a[i].filter_entries, b[i].filter_entries);
    EXPECT_EQ(a[i].filter_bytes, b[i].filter_bytes);
  }
}

void ExpectSameTree(const TrackedTree& a, const TrackedTree& b) {
  ExpectSameFiles(a.LiveFiles(), b.LiveFiles());
  EXPECT_EQ(a.any_filter, b.any_filter);
  EXPECT_EQ(a.smallest, b.smallest);
  EXPECT_EQ(a.largest, b.largest);
  for (int level = 1; level <= 4; ++level) EXPECT_EQ(a.Coverage(level), b.Coverage(level)) << "level " << level;
}

TEST(PlannerTrial, ATrialIsTheRecordedFileAndLeavesNoTrace) {
  std::mt19937_64 rng(9);
  TrackedTree tree;
  for (int step = 0; step < 300; ++step) {
    const uint64_t start = rng() % 100000;
    tree.SeeLevel(1 + static_cast<int>(rng() % 3));
    tree.RecordFilter(1 + static_cast<int>(rng() % 3), Key(start), Key(start + 1 + rng() % 3000), 50, 80, 10);
  }
  tree.Coverage(2);  // remembered sums, which the trial must leave as they were
  for (int trial_number = 0; trial_number < 50; ++trial_number) {
    // Some trials widen the key space, some replace several files, some
    // open a level with no live files yet.
    const uint64_t start = rng() % 120000;
    const uint64_t end = start + 1 + rng() % 20000;
    const int level = 1 + static_cast<int>(rng() % 4);
    const TrackedTree before = tree;
    TrackedTree recorded = tree;
    recorded.WidenKeySpace(Key(start), Key(end));
    recorded.RecordLive(level, Key(start), Key(end), 77, 99);
    TrackedTree::Trial trial = tree.BeginTrial(level, Key(start), Key(end), 77, 99);
    ExpectSameTree(tree, recorded);
    tree.EndTrial(std::move(trial));
    ExpectSameTree(tree, before);
    EXPECT_EQ(tree.live.contains(4), before.live.contains(4));
  }
}

}  // namespace
}  // namespace linebloom::planner
