// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.

#include "linebloom/planner/tracked_plan.h"

#include <algorithm>
#include <cmath>

#include "cache_allocation.h"
#include "linebloom/filter_format.h"
#include "linebloom/level_allocator.h"
#include "plan_books.h"
#include "tracked_runs.h"

namespace linebloom::planner {
namespace {

constexpr int kBudgetBisections = 40;
// Upper-level rewrites that may end after the last level's last file:
// compactions run side by side (RocksDB's max_background_jobs, 2 by
// default).
constexpr double kLateUpperRewrites = 2;

// The allocation's bits per run with the last run taking what the
// allocator's grid left unspent of average * total.
std::vector<double> WithLastRunTopped(std::vector<double> bits, const TrackedRuns& runs, double average) {
  double spent = 0;
  for (size_t run = 0; run + 1 < bits.size(); ++run) spent += static_cast<double>(runs.n[run]) * bits[run];
  const double last = static_cast<double>(runs.n.back());
  bits.back() = std::clamp((average * runs.total - spent) / last, bits.back(), kMaxLevelBitsPerKey);
  return bits;
}

// Each run's own bits (AllocateBitsPerRun, as for files that cannot move),
// the last run topped.
std::vector<double> OwnBits(const CacheRuns& cache_runs, const TrackedRuns& runs, double average) {
  return WithLastRunTopped(AllocateWithCache(cache_runs, average, /*move_safe=*/false).allocation.bits_per_key, runs,
                           average);
}

// The largest last-level bits (by bisection) whose real bytes, with the
// other levels at their bits, stay within the built-in's.
double FitLastLevel(const PlanBooks& books, const std::vector<double>& bits, const std::vector<double>& own_bits) {
  return books.FitLastRun(bits, own_bits, kMaxLevelBitsPerKey, kBudgetBisections);
}

// The last level's bytes per key for the block dither: the built-in's
// bytes less the other levels' real bytes and a margin. The dither's carry
// may end up to kMaxCarryBlocks blocks (plus one file's rounding) over, and
// the upper levels keep changing after the last level's files were sized:
// a compaction into an upper level rewrites a file there with up to about
// one file's more keys, each at that level's bits where the built-in spends
// its average. The largest upper-level file's excess bounds one such
// rewrite, and kLateUpperRewrites may end after the last level's last file.
double LastBytesPerKey(const PlanBooks& books, const TrackedPlan& plan, double last_keys) {
  std::vector<double> without_last = plan.bits_per_key;
  without_last.back() = 0;
  const double others = books.RealBytes(without_last, plan.own_bits_per_key);
  const double margin = (kMaxCarryBlocks + 1) * kFilterBlockBytes +
                        kLateUpperRewrites * books.LargestUpperExcess(plan.bits_per_key, plan.own_bits_per_key);
  return last_keys > 0 ? (books.builtin_bytes() - margin - others) / last_keys : 0;
}

}  // namespace

uint64_t BuiltinFilterBytes(uint64_t keys, double bits_per_key) {
  // FastLocalBloomBitsBuilder::CalculateSpace: whole bytes for the millibits,
  // rounded up to whole 64-byte cache lines, plus 5 bytes of metadata.
  const auto millibits = static_cast<uint64_t>(std::lround(bits_per_key * 1000));
  const uint64_t raw = (keys * millibits + 7999) / 8000;
  return ((raw + 63) / 64) * 64 + 5;
}

bool IsTracked(const TrackedTree& tree) {
  if (!tree.HasShape() || tree.deepest <= tree.shallowest) return false;
  auto it = tree.live.find(tree.deepest);
  return it != tree.live.end() && it->second.size() >= kTrackedMinFiles &&
         tree.CoverageAtLeast(tree.deepest, kTrackedCoverage);
}

std::optional<TrackedPlan> PlanTrackedTree(const TrackedTree& tree, const PlannerOptions& options,
                                           const BlockCache& cache) {
  if (!IsTracked(tree)) return std::nullopt;
  const TrackedRuns runs = MeasureTrackedRuns(tree, options);
  const CacheRuns cache_runs = DescribeCache(runs, tree, options, cache);
  const PlanBooks books(tree, runs, options);
  const double average = books.NominalAverage();

  TrackedPlan plan;
  CachedAllocation best = AllocateWithCache(cache_runs, average, /*move_safe=*/true);
  plan.bits_per_key = WithLastRunTopped(std::move(best.allocation.bits_per_key), runs, average);
  plan.weights = std::move(best.weights);
  plan.miss = std::move(best.miss);
  plan.own_bits_per_key = OwnBits(cache_runs, runs, average);
  auto deepest = tree.live.find(tree.deepest);
  if (deepest != tree.live.end() && books.recorded_keys() > 0) {
    const double lo = FitLastLevel(books, plan.bits_per_key, plan.own_bits_per_key);
    if (lo >= 1) plan.bits_per_key.back() = lo;
  }
  plan.shallowest = tree.shallowest;
  plan.average = average;
  plan.entries = runs.entries;
  plan.real_bytes = books.RealBytes(plan.bits_per_key, plan.own_bits_per_key);
  plan.builtin_bytes = books.builtin_bytes();
  if (deepest != tree.live.end()) {
    plan.last_bytes_per_key = LastBytesPerKey(books, plan, static_cast<double>(tree.LiveKeys(tree.deepest)));
  }
  return plan;
}

std::optional<double> OwnBitsPerKey(const TrackedTree& tree, const PlannerOptions& options, const BlockCache& cache,
                                    size_t run) {
  if (!IsTracked(tree)) return std::nullopt;
  const TrackedRuns runs = MeasureTrackedRuns(tree, options);
  const CacheRuns cache_runs = DescribeCache(runs, tree, options, cache);
  const BookTotals totals(tree, runs, options);
  const std::vector<double> own = OwnBits(cache_runs, runs, totals.NominalAverage());
  if (run >= own.size()) return std::nullopt;
  return own[run];
}

}  // namespace linebloom::planner
