// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// LevelPlanner: level-aware bits per key for the filters of leveled LSM
// trees ("Monkey": Dayan, Athanassoulis, Idreos, SIGMOD 2017), one tree per
// name (a RocksDB column family). It learns each tree from the filters
// built for it (ObserveFilter) and from the engine's lists of live files
// (SyncLiveFiles), and decides each new file's bits from its level:
//   - before the tree is tracked, over the model shape (tree_model.h) with
//     estimated lookup weights and the budget corrected by the memory books
//     (budget_average.h), levels s..D-1 sharing their bits;
//   - once tracked, by its plan (tracked_plan.h), replanned every
//     kReplanEvery filters, the last level's files dithered to whole blocks
//     so that the tree spends the built-in Bloom filter's bytes;
//   - uniform average_bits_per_key where the model does not apply (unknown
//     level, other compaction styles, L0 before any other level is seen).
// Design and measurements: docs/LEVEL_AWARE.md.
//
// Thread-safe: every member function may be called concurrently.

#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "linebloom/filter_options.h"
#include "linebloom/foundation/mutex.h"
#include "linebloom/level_allocator.h"
#include "linebloom/planner/planner_options.h"
#include "linebloom/planner/tracked_plan.h"
#include "linebloom/planner/tracked_tree.h"

namespace linebloom::planner {

class LevelPlanner {
 public:
  static constexpr uint64_t kReplanEvery = 64;

  explicit LevelPlanner(PlannerOptions options);

  // A file about to be built, as the engine describes it.
  struct NewFile {
    std::string tree;                 // the column family
    int level = -1;                   // -1: unknown
    int num_levels = 0;               // 0: unknown
    bool leveled = true;              // leveled compaction
    double cache_capacity_bytes = 0;  // the engine's block cache; 0: none
    double block_size = 4096;         // data block bytes
    bool filters_in_cache = false;    // filters are cached beside data blocks
    bool wants_log = true;            // the caller logs Decision::log
  };
  struct Decision {
    std::optional<FilterOptions> filter;  // nullopt: build no filter
    // The kind of filter to build: KindOfLevel of the file's level.
    FilterKind kind = FilterKind::kBloom;
    std::string log;  // a changed allocation, for the info log; "" if none
  };
  // The filter for `file`; records its level in the tree's shape, so call
  // it only for files that are really being built.
  Decision PlanNewFile(const NewFile& file);

  // Records one finished filter: `keys` keys, bytewise smallest..largest,
  // `filter_bytes` long, of a file created at `level` (>= 0) of `tree`.
  void ObserveFilter(const std::string& tree, int level, std::string_view smallest, std::string_view largest,
                     uint64_t keys, uint64_t filter_bytes);

  // The bits for a filter of `keys` keys, bytewise smallest..largest, about
  // to be finished in a file created at `level` of `tree` when it is pinned
  // (tracked tree, an upper level, and a live file of the level below
  // overlaps it: docs/LEVEL_AWARE.md, "Files that cannot move"); nullopt
  // otherwise (the file keeps the bits it was created with).
  std::optional<double> BitsAtFinish(const std::string& tree, int level, std::string_view smallest,
                                     std::string_view largest, uint64_t keys);

  // Replaces the live files of `tree` at levels >= 1 by `files`, the
  // engine's own list; the next file gets a fresh plan. Files without filter
  // entries are skipped; a tree the planner has built nothing for is not
  // recorded.
  void SyncLiveFiles(const std::string& tree, std::span<const TrackedFile> files);
  // The live files of `tree` at levels >= 1 as recorded.
  std::vector<TrackedFile> RecordedLiveFiles(const std::string& tree);
  // Whether the planner allocated or observed a filter of `tree`.
  bool BuildsFor(const std::string& tree);
  // Whether a file recorded live in `tree` starts at the smallest key of
  // one of `files` (TrackedTree::RecordsAnyOf).
  bool RecordsAnyOf(const std::string& tree, std::span<const TrackedFile> files);

  // For tests: the tracked plan of `tree`, the budget average and lookup
  // weights the next estimated file would get.
  std::optional<TrackedPlan> TEST_TrackedPlan(const std::string& tree);
  double TEST_BudgetAverage(const std::string& tree);
  std::vector<double> TEST_LookupWeights(const std::string& tree);

 private:
  struct TreeState {
    TrackedTree tree;
    BlockCache cache;  // from the last new file
    std::optional<TrackedPlan> plan;
    uint64_t plan_at = 0;          // observations when planned
    double carry_bytes = 0;        // last level: budgeted minus real bytes so far
    std::vector<int> last_logged;  // the estimate's allocation key last logged
  };

  FilterOptions WithBits(double bits_per_key) const;
  BlockCache CacheFor(const TrackedTree& tree, const NewFile& file) const;
  // The tracked plan's bits for a file at `level` (0: no filter), nullopt
  // when the tree is not tracked.
  std::optional<double> TrackedBitsLocked(TreeState& state, const NewFile& file, std::string* log)
      LINEBLOOM_REQUIRES(mutex_);
  // A last-level file's bits: the plan's last-level bytes per key and the
  // carry, in a filter of `kind`.
  double LastLevelBits(const TreeState& state, double bits, FilterKind kind) const;
  // The estimate's bits for a file at `level` (0: no filter).
  double EstimatedBitsLocked(TreeState& state, const NewFile& file, std::string* log) LINEBLOOM_REQUIRES(mutex_);
  // Keyed by the runs' quantized weights and, last, the quantized average.
  const LevelAllocation& AllocationLocked(const std::vector<int>& key) LINEBLOOM_REQUIRES(mutex_);

  const PlannerOptions options_;
  Mutex mutex_;
  std::map<std::string, TreeState> trees_ LINEBLOOM_GUARDED_BY(mutex_);
  std::map<std::vector<int>, LevelAllocation> allocations_ LINEBLOOM_GUARDED_BY(mutex_);
};

}  // namespace linebloom::planner
