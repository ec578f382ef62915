// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// The books of a tracked plan (filter_policy/src/planner/plan_books.h): the
// search for the last level's bits (FitLastRun) must find what a bisection
// of RealBytes finds, to the last bit, or plans would change with it.

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "linebloom/compact_math.h"
#include "linebloom/planner/planner_options.h"
#include "linebloom/planner/tracked_plan.h"
#include "linebloom/planner/tracked_tree.h"
#include "planner/plan_books.h"
#include "planner/tracked_runs.h"

namespace linebloom::planner {
namespace {

std::string Key(uint64_t x) {
  std::string key(8, '\0');
  for (int i = 7; i >= 0; --i, x >>= 8) key[static_cast<size_t>(i)] = static_cast<char>(x & 0xff);
  return key;
}

// L4..L6 over keys 0..999 999: L6 in 200 files of uneven key counts that
// cover everything, L5 in 12 and L4 in 3 narrower files, every one of
// them over a live file of the level below (so pinned), and one L0 file.
// With `equal_sizes`, most L6 files have one key count instead, as an
// engine's files cut at a target size with records of one size do (a few
// differ, as the last file of a compaction does).
TrackedTree UnevenTree(bool equal_sizes = false) {
  TrackedTree tree;
  auto record = [&tree](int level, uint64_t first, uint64_t last, uint64_t keys) {
    if (level > 0) tree.SeeLevel(level);
    tree.RecordFilter(level, Key(first), Key(last), keys, keys * 10 / 8 + 16, 10);
  };
  for (uint64_t i = 0; i < 200; ++i) {
    const uint64_t keys = equal_sizes && i % 17 != 5 ? 2179 : 1500 + (i * 37) % 900;
    record(6, i * 5000, i * 5000 + 4999, keys);
  }
  for (uint64_t i = 0; i < 12; ++i) record(5, i * 80000, i * 80000 + 9999, 700 + i * 11);
  for (uint64_t i = 0; i < 3; ++i) record(4, i * 300000, i * 300000 + 999, 90 + i);
  record(0, 0, 999999, 400);
  return tree;
}

// The bisection as RealBytes alone answers it.
double ReferenceFit(const PlanBooks& books, std::vector<double> bits, const std::vector<double>& own_bits) {
  double lo = 0, hi = 64;
  for (int step = 0; step < 40; ++step) {
    bits.back() = 0.5 * (lo + hi);
    (books.RealBytes(bits, own_bits) <= books.builtin_bytes() ? lo : hi) = bits.back();
  }
  return lo;
}

// FitLastRun against ReferenceFit over upper levels from spending little to
// spending the most bits; the fits found.
std::set<double> ExpectFitsOfReference(const TrackedTree& tree, const PlannerOptions& options = {}) {
  std::set<double> fits;
  const TrackedRuns runs = MeasureTrackedRuns(tree, options);
  const PlanBooks books(tree, runs, options);
  const size_t num_runs = tree.NumRuns();
  EXPECT_EQ(num_runs, 4u);  // L0, L4, L5, L6
  for (double upper : {0.0, 3.0, 9.7, 14.0, 20.5, 31.0, 64.0}) {
    for (double own_over : {0.0, 0.4, 2.0}) {
      std::vector<double> bits(num_runs), own_bits(num_runs);
      for (size_t run = 0; run + 1 < num_runs; ++run) {
        bits[run] = upper * (1.0 - 0.1 * static_cast<double>(run));
        own_bits[run] = bits[run] + own_over;
      }
      bits.back() = own_bits.back() = 5;
      const double fit = books.FitLastRun(bits, own_bits, 64, 40);
      EXPECT_EQ(fit, ReferenceFit(books, bits, own_bits)) << "upper " << upper << " own +" << own_over;
      fits.insert(fit);
    }
  }
  return fits;
}

TEST(PlanBooks, FitLastRunIsTheBisectionOfRealBytes) {
  const TrackedTree tree = UnevenTree();
  ASSERT_TRUE(IsTracked(tree));
  // Each setting leaves the last level its own room.
  const std::set<double> fits = ExpectFitsOfReference(tree);
  EXPECT_EQ(fits.size(), 21u);
  EXPECT_GT(*fits.begin(), 1.0);
  EXPECT_LT(*fits.rbegin(), 64.0);
}

// Files of one key count share their terms (and their block boundaries, at
// one of which the search ends): the same fit as the bisection.
TEST(PlanBooks, FitLastRunOverFilesOfEqualSizeIsTheBisection) {
  const TrackedTree tree = UnevenTree(/*equal_sizes=*/true);
  ASSERT_TRUE(IsTracked(tree));
  const std::set<double> fits = ExpectFitsOfReference(tree);
  EXPECT_GE(fits.size(), 5u);
}

// A compact last level is priced at its files' expected bytes, which have
// no blocks to round to: the fit is still the bisection's, and the books'
// real bytes are ExpectedCompactBytes for each last-level file.
TEST(PlanBooks, CompactLastLevelIsPricedAtItsExpectedBytes) {
  const TrackedTree tree = UnevenTree(/*equal_sizes=*/true);
  PlannerOptions options;
  options.compact_from_level = 6;
  const std::set<double> fits = ExpectFitsOfReference(tree, options);
  EXPECT_EQ(fits.size(), 21u);  // continuous: every setting its own fit
  const TrackedRuns runs = MeasureTrackedRuns(tree, options);
  const PlanBooks compact(tree, runs, options);
  const PlanBooks bloom(tree, runs, PlannerOptions{});
  std::vector<double> bits(tree.NumRuns(), 0.0);
  bits.back() = 9.3;
  double expected = 0;
  for (const auto& [smallest, file] : tree.live.at(6)) expected += ExpectedCompactBytes(file.keys, 9.3);
  EXPECT_DOUBLE_EQ(compact.RealBytes(bits, bits), expected);
  EXPECT_NE(bloom.RealBytes(bits, bits), expected);
}

// A pinned file's bits (LevelPlanner::BitsAtFinish) come from OwnBitsPerKey,
// which skips the books of every file: the very bits of the whole plan, for
// every run below the last, without a cache and with caches that hold
// little or much of the tree.
TEST(PlanBooks, OwnBitsPerKeyAreThePlansOwnBits) {
  const TrackedTree tree = UnevenTree();
  ASSERT_TRUE(IsTracked(tree));
  const PlannerOptions options;
  size_t own_differs = 0;
  for (double capacity : {0.0, 2e4, 3e5, 1e8}) {
    BlockCache cache;
    cache.capacity_bytes = capacity;
    const std::optional<TrackedPlan> plan = PlanTrackedTree(tree, options, cache);
    ASSERT_TRUE(plan);
    ASSERT_EQ(plan->own_bits_per_key.size(), tree.NumRuns());
    for (size_t run = 0; run + 1 < tree.NumRuns(); ++run) {
      const std::optional<double> own = OwnBitsPerKey(tree, options, cache, run);
      ASSERT_TRUE(own) << "run " << run;
      EXPECT_EQ(*own, plan->own_bits_per_key[run]) << "capacity " << capacity << " run " << run;
      own_differs += *own != plan->bits_per_key[run];
    }
    EXPECT_FALSE(OwnBitsPerKey(tree, options, cache, tree.NumRuns()));
  }
  // The own bits are not the shared ones the plan gives files that can move.
  EXPECT_GT(own_differs, 0u);
  EXPECT_FALSE(OwnBitsPerKey(TrackedTree{}, options, BlockCache{}, 1));
}

}  // namespace
}  // namespace linebloom::planner
