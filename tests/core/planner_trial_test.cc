// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// TrackedTree's trial files: during a trial the tree is what recording the
// file would make it, and after it exactly what it was.

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "linebloom/planner/tracked_plan.h"
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

// The keys of a level's live files, summed afresh.
uint64_t SummedKeys(const TrackedTree& tree, int level) {
  uint64_t keys = 0;
  for (const TrackedFile& file : tree.LiveFiles()) keys += file.level == level ? file.filter_entries : 0;
  return keys;
}

// The built-in's bytes for a level's live files at 10 bits/key, summed afresh.
uint64_t SummedBuiltinBytes(const TrackedTree& tree, int level) {
  uint64_t bytes = 0;
  for (const TrackedFile& file : tree.LiveFiles()) {
    bytes += file.level == level ? BuiltinFilterBytes(file.filter_entries, 10) : 0;
  }
  return bytes;
}

// The filter bytes of every live file, summed afresh.
uint64_t SummedLiveBytes(const TrackedTree& tree) {
  uint64_t bytes = 0;
  for (const TrackedFile& file : tree.LiveFiles()) bytes += file.filter_bytes;
  return bytes;
}

void ExpectSameTree(const TrackedTree& a, const TrackedTree& b) {
  ExpectSameFiles(a.LiveFiles(), b.LiveFiles());
  EXPECT_EQ(a.live_bytes, SummedLiveBytes(a));
  EXPECT_EQ(b.live_bytes, SummedLiveBytes(b));
  for (int level = 1; level <= 4; ++level) {
    EXPECT_EQ(a.LiveKeys(level), SummedKeys(a, level)) << "level " << level;
    EXPECT_EQ(b.LiveKeys(level), SummedKeys(b, level)) << "level " << level;
    // Asked of both trees, so the remembered sums are checked next time.
    EXPECT_EQ(a.LiveBuiltinBytes(level, 10), SummedBuiltinBytes(a, level)) << "level " << level;
    EXPECT_EQ(b.LiveBuiltinBytes(level, 10), SummedBuiltinBytes(b, level)) << "level " << level;
  }
  EXPECT_EQ(a.any_filter, b.any_filter);
  EXPECT_EQ(a.smallest, b.smallest);
  EXPECT_EQ(a.largest, b.largest);
  // Against sums computed afresh, not remembered ones.
  TrackedTree fresh = b;
  fresh.coverage_units.clear();
  for (int level = 1; level <= 4; ++level) EXPECT_EQ(a.Coverage(level), fresh.Coverage(level)) << "level " << level;
}

TEST(PlannerTrial, ATrialIsTheRecordedFileAndLeavesNoTrace) {
  std::mt19937_64 rng(9);
  TrackedTree tree;
  for (int step = 0; step < 300; ++step) {
    // Level 1 covers the key space; levels 2 and 3 a part of it.
    const uint64_t start = rng() % 100000;
    const int level = 1 + static_cast<int>(rng() % 3);
    const uint64_t width = level == 1 ? 3000 : level == 2 ? 300 : 30;
    tree.SeeLevel(level);
    tree.RecordFilter(level, Key(start), Key(start + 1 + rng() % width), 50, 80 + rng() % 40, 10);
  }
  ASSERT_LT(tree.Coverage(3), 0.1);
  // Remembered sums, which the trial must leave as they were.
  for (int level = 1; level <= 3; ++level) tree.Coverage(level);
  for (int trial_number = 0; trial_number < 50; ++trial_number) {
    // Some trials widen the key space, some replace several files, some
    // open a level with no live files yet.
    const uint64_t start = rng() % 120000;
    const uint64_t end = start + 1 + rng() % 20000;
    const int level = 1 + static_cast<int>(rng() % 4);
    // Half the trials start with no remembered sums.
    if (trial_number % 2 == 0) tree.coverage_units.clear();
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

// The keys of a level's recent filters, summed afresh.
uint64_t SummedRecentKeys(const TrackedTree& tree, int level) {
  uint64_t keys = 0;
  auto it = tree.recent.find(level);
  if (it != tree.recent.end()) {
    for (const TrackedTree::Filter& filter : it->second) keys += filter.keys;
  }
  return keys;
}

uint64_t KeptRecentKeys(const TrackedTree& tree, int level) {
  auto it = tree.recent_keys.find(level);
  return it == tree.recent_keys.end() ? 0 : it->second;
}

// The live keys and bytes kept with the files: recorded files replacing
// others, and a listing from the engine that names one file twice (the later wins).
// The recent filters' keys kept with them, as the oldest leave.
TEST(PlannerTrial, LiveKeysFollowTheFiles) {
  std::mt19937_64 rng(4);
  TrackedTree tree;
  for (int step = 0; step < 200; ++step) {
    const uint64_t start = rng() % 100000;
    const int level = 1 + static_cast<int>(rng() % 2);
    tree.SeeLevel(level);
    tree.RecordFilter(level, Key(start), Key(start + 1 + rng() % 3000), 1 + rng() % 500, 80 + rng() % 400, 10);
    ASSERT_EQ(tree.live_bytes, SummedLiveBytes(tree)) << "step " << step;
    for (int l = 1; l <= 2; ++l) {
      ASSERT_EQ(tree.LiveKeys(l), SummedKeys(tree, l)) << "step " << step;
      ASSERT_EQ(tree.LiveBuiltinBytes(l, 10), SummedBuiltinBytes(tree, l)) << "step " << step;
      ASSERT_EQ(KeptRecentKeys(tree, l), SummedRecentKeys(tree, l)) << "step " << step;
    }
  }
  EXPECT_EQ(tree.recent.at(1).size(), TrackedTree::kRecentFilters);  // the oldest have left
  EXPECT_GT(tree.LiveKeys(1), 0u);
  const std::vector<TrackedFile> listing = {{1, Key(5), Key(9), 40, 60},
                                            {2, Key(3), Key(4), 7, 30},
                                            {1, Key(5), Key(8), 25, 50},
                                            {1, Key(20), Key(30), 6, 40}};
  tree.ReplaceLive(listing);
  EXPECT_EQ(tree.LiveKeys(1), 31u);
  EXPECT_EQ(tree.LiveKeys(2), 7u);
  EXPECT_EQ(tree.LiveKeys(3), 0u);
  EXPECT_EQ(SummedKeys(tree, 1), 31u);
  EXPECT_EQ(tree.live_bytes, 50u + 30 + 40);
  // BuiltinFilterBytes at 10 bits/key: 25 keys 37 bytes, 6 keys 13 bytes:
  // one 64-byte line each, plus 5.
  EXPECT_EQ(tree.LiveBuiltinBytes(1, 10), 2u * 69);
  EXPECT_EQ(tree.LiveBuiltinBytes(2, 10), 69u);
  EXPECT_EQ(tree.LiveBuiltinBytes(3, 10), 0u);
  // Another bits per key is summed afresh: 25 keys at 30 bits/key are 94
  // bytes, two lines.
  EXPECT_EQ(tree.LiveBuiltinBytes(1, 30), 133u + 69);
}

}  // namespace
}  // namespace linebloom::planner
