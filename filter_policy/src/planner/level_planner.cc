// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.

#include "linebloom/planner/level_planner.h"

#include <algorithm>
#include <cmath>

#include "linebloom/compact_math.h"
#include "linebloom/filter_format.h"
#include "linebloom/planner/budget_average.h"
#include "linebloom/planner/tree_model.h"
#include "plan_log.h"

namespace linebloom::planner {
namespace {

// Weights and averages are cached in 64ths: kUnit = weight 1.
constexpr int kUnit = 64;
// Steps per bit of a compact last-level file's bits per key.
constexpr double kCompactBitsSteps = 16;
// Past this many cached estimate allocations the cache is emptied (weights
// drift slowly; this bounds memory in a long-lived DB).
constexpr size_t kMaxCachedAllocations = 4096;

}  // namespace

LevelPlanner::LevelPlanner(PlannerOptions options) : options_(std::move(options)) {}

FilterOptions LevelPlanner::WithBits(double bits_per_key) const {
  FilterOptions filter;
  filter.bits_per_key = bits_per_key;
  // 0: the core picks k for the bits the filter has after rounding.
  filter.num_probes = options_.num_probes;
  return filter;
}

BlockCache LevelPlanner::CacheFor(const TrackedTree& tree, const NewFile& file) const {
  BlockCache cache;
  cache.block_size = std::max(file.block_size, 1.0);
  cache.capacity_bytes =
      options_.cache.block_cache_bytes > 0 ? options_.cache.block_cache_bytes : file.cache_capacity_bytes;
  // The live files' bytes, an integer well below 2^53: the sum a walk of
  // the files in doubles gives, exactly.
  if (file.filters_in_cache) cache.filter_bytes = static_cast<double>(tree.live_bytes);
  return cache;
}

LevelPlanner::Decision LevelPlanner::PlanNewFile(const NewFile& file) {
  const int level = file.level;
  Decision decision;
  decision.kind = KindOfLevel(options_, level);
  if (!file.leveled || level < 0 || (file.num_levels > 0 && level >= file.num_levels)) {
    decision.filter = WithBits(options_.average_bits_per_key);
    return decision;
  }
  MutexLock lock(&mutex_);
  TreeState& state = trees_[file.tree];
  if (level > 0) state.tree.SeeLevel(level);
  if (!state.tree.HasShape()) {  // only L0 so far: no shape yet
    decision.filter = WithBits(options_.average_bits_per_key);
    return decision;
  }
  decision.kind = KindOfLevel(options_, level, state.tree.deepest);
  state.cache = CacheFor(state.tree, file);
  std::optional<double> bits = TrackedBitsLocked(state, file, &decision.log);
  if (!bits) bits = EstimatedBitsLocked(state, file, &decision.log);
  if (*bits > 0) decision.filter = WithBits(*bits);
  return decision;
}

std::optional<double> LevelPlanner::TrackedBitsLocked(TreeState& state, const NewFile& file, std::string* log) {
  const TrackedTree& tree = state.tree;
  if (!IsTracked(tree)) return std::nullopt;
  const bool shape_changed =
      state.plan && (state.plan->shallowest != tree.shallowest || state.plan->bits_per_key.size() != tree.NumRuns());
  if (!state.plan || shape_changed || tree.observations >= state.plan_at + kReplanEvery) {
    state.plan = PlanTrackedTree(tree, options_, state.cache);
    state.plan_at = tree.observations;
    if (state.plan && file.wants_log) *log = DescribeTrackedPlan(file.tree, tree, *state.plan);
  }
  if (!state.plan) return std::nullopt;
  const size_t run = tree.RunOfLevel(file.level);
  if (run >= state.plan->bits_per_key.size()) return std::nullopt;
  const double bits = state.plan->bits_per_key[run];
  if (bits <= 0) return 0.0;
  if (file.level == tree.deepest && state.plan->last_bytes_per_key > 0) {
    return LastLevelBits(state, bits, KindOfLevel(options_, file.level, tree.deepest));
  }
  return bits;
}

// The budget's bytes for the predicted keys plus the carry
// (docs/LEVEL_AWARE.md, "The last level's bytes"). A Bloom filter takes
// them in whole blocks: bits half a block below, so that rounding up gives
// them. A compact filter has no blocks to round to: the bits its expected
// bytes spend them at, and the carry takes up what it spends more or less.
double LevelPlanner::LastLevelBits(const TreeState& state, double bits, FilterKind kind) const {
  auto recent = state.tree.recent.find(state.tree.deepest);
  auto recent_keys = state.tree.recent_keys.find(state.tree.deepest);
  if (recent == state.tree.recent.end() || recent_keys == state.tree.recent_keys.end()) return bits;
  const auto keys = static_cast<double>(recent_keys->second);
  if (recent->second.empty() || !(keys > 0)) return bits;
  const double predicted = keys / static_cast<double>(recent->second.size());
  const double wanted = state.plan->last_bytes_per_key * predicted + state.carry_bytes;
  if (kind == FilterKind::kCompact) {
    // In 1/16 bits per key, a few bytes per file that the carry takes up:
    // files of one size then share a few settings, and with them the
    // shapes the builder searches for (CompactShapeFor keeps the last 64).
    const double overhead = CompactOverheadBytes(static_cast<size_t>(predicted));
    const double exact = (wanted - overhead) * 8 / predicted;
    return std::clamp(std::round(exact * kCompactBitsSteps) / kCompactBitsSteps, kMinBitsPerKey, kMaxLevelBitsPerKey);
  }
  const double blocks = std::max(1.0, std::round((wanted - kFilterTrailerBytes) / kFilterBlockBytes));
  return std::clamp((blocks - 0.5) * kFilterBlockBits / predicted, kMinBitsPerKey, kMaxLevelBitsPerKey);
}

double LevelPlanner::EstimatedBitsLocked(TreeState& state, const NewFile& file, std::string* log) {
  const std::vector<double> weights = LookupWeights(state.tree, options_.size_ratio);
  std::vector<int> key(weights.size());
  for (size_t j = 0; j < weights.size(); ++j) {
    key[j] = std::clamp(static_cast<int>(std::lround(weights[j] * kUnit)), 1, kUnit);
  }
  for (size_t j = 0; j < weights.size(); ++j) {
    key.push_back(static_cast<int>(KindOfLevel(options_, state.tree.LevelOfRun(j), state.tree.deepest)));
  }
  const double budget = BudgetAverage(state.tree, options_.average_bits_per_key, options_.size_ratio);
  key.push_back(static_cast<int>(std::lround(budget * kUnit)));
  const LevelAllocation& allocation = AllocationLocked(key);
  if (key != state.last_logged && file.wants_log) {
    std::vector<double> quantized(weights.size());
    for (size_t j = 0; j < weights.size(); ++j) quantized[j] = static_cast<double>(key[j]) / kUnit;
    *log = DescribeEstimate(file.tree, state.tree, static_cast<double>(key.back()) / kUnit, quantized,
                            allocation.bits_per_key);
    state.last_logged = key;
  }
  return allocation.bits_per_key[state.tree.RunOfLevel(file.level)];
}

const LevelAllocation& LevelPlanner::AllocationLocked(const std::vector<int>& key) {
  auto it = allocations_.find(key);
  if (it == allocations_.end()) {
    if (allocations_.size() >= kMaxCachedAllocations) allocations_.clear();
    // The key: each run's weight in kUnits, each run's kind, the budget.
    const size_t num_runs = (key.size() - 1) / 2;
    const std::vector<uint64_t> entries = ModelEntries(options_.size_ratio, static_cast<int>(num_runs) - 1);
    std::vector<double> weights(num_runs);
    std::vector<FilterKind> kinds(num_runs);
    for (size_t j = 0; j < num_runs; ++j) {
      weights[j] = static_cast<double>(key[j]) / kUnit;
      kinds[j] = static_cast<FilterKind>(key[num_runs + j]);
    }
    const double average = static_cast<double>(key.back()) / kUnit;
    it = allocations_.emplace(key, AllocateBitsSharedMiddle(entries, weights, kinds, average)).first;
  }
  return it->second;
}

void LevelPlanner::ObserveFilter(const std::string& tree, int level, std::string_view smallest,
                                 std::string_view largest, uint64_t keys, uint64_t filter_bytes) {
  if (level < 0 || keys == 0 || largest < smallest) return;
  MutexLock lock(&mutex_);
  TreeState& state = trees_[tree];
  state.tree.RecordFilter(level, smallest, largest, keys, filter_bytes, options_.average_bits_per_key);
  if (level > 0 && level == state.tree.deepest && state.plan && state.plan->last_bytes_per_key > 0) {
    const double limit = kMaxCarryBlocks * kFilterBlockBytes;
    state.carry_bytes = std::clamp(state.carry_bytes + state.plan->last_bytes_per_key * static_cast<double>(keys) -
                                       static_cast<double>(filter_bytes),
                                   -limit, limit);
  }
}

std::optional<double> LevelPlanner::BitsAtFinish(const std::string& tree, int level, std::string_view smallest,
                                                 std::string_view largest, uint64_t keys) {
  if (level < 1 || keys == 0 || largest < smallest) return std::nullopt;
  MutexLock lock(&mutex_);
  auto found = trees_.find(tree);
  if (found == trees_.end()) return std::nullopt;
  TreeState& state = found->second;
  if (!state.tree.Pinned(level, smallest, largest) || !IsTracked(state.tree)) return std::nullopt;
  // The plan with this file recorded, as ObserveFilter will record it; then
  // the tree as it was.
  TrackedTree::Trial trial =
      state.tree.BeginTrial(level, smallest, largest, keys, FilterBytesFor(keys, options_.average_bits_per_key));
  const std::optional<double> bits = OwnBitsPerKey(state.tree, options_, state.cache, state.tree.RunOfLevel(level));
  state.tree.EndTrial(std::move(trial));
  if (!bits || *bits <= 0) return std::nullopt;
  return bits;
}

void LevelPlanner::SyncLiveFiles(const std::string& tree, std::span<const TrackedFile> files) {
  MutexLock lock(&mutex_);
  // A tree the planner builds no filters for (another policy's, seen by a
  // listener of the same DB) is not recorded.
  auto found = trees_.find(tree);
  if (found == trees_.end()) return;
  found->second.tree.ReplaceLive(files);
  found->second.plan.reset();
}

std::vector<TrackedFile> LevelPlanner::RecordedLiveFiles(const std::string& tree) {
  MutexLock lock(&mutex_);
  auto it = trees_.find(tree);
  return it == trees_.end() ? std::vector<TrackedFile>{} : it->second.tree.LiveFiles();
}

bool LevelPlanner::BuildsFor(const std::string& tree) {
  MutexLock lock(&mutex_);
  return trees_.contains(tree);
}

bool LevelPlanner::RecordsAnyOf(const std::string& tree, std::span<const TrackedFile> files) {
  MutexLock lock(&mutex_);
  auto it = trees_.find(tree);
  return it != trees_.end() && it->second.tree.RecordsAnyOf(files);
}

std::optional<TrackedPlan> LevelPlanner::TEST_TrackedPlan(const std::string& tree) {
  MutexLock lock(&mutex_);
  auto it = trees_.find(tree);
  if (it == trees_.end()) return std::nullopt;
  return PlanTrackedTree(it->second.tree, options_, it->second.cache);
}

double LevelPlanner::TEST_BudgetAverage(const std::string& tree) {
  MutexLock lock(&mutex_);
  auto it = trees_.find(tree);
  return it == trees_.end() ? options_.average_bits_per_key
                            : BudgetAverage(it->second.tree, options_.average_bits_per_key, options_.size_ratio);
}

std::vector<double> LevelPlanner::TEST_LookupWeights(const std::string& tree) {
  MutexLock lock(&mutex_);
  auto it = trees_.find(tree);
  return it == trees_.end() ? std::vector<double>{} : LookupWeights(it->second.tree, options_.size_ratio);
}

}  // namespace linebloom::planner
