// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// The plan of a tracked tree (docs/LEVEL_AWARE.md, "The tracked tree"):
// once the deepest level's live files are known and cover the key space,
// the planner allocates over the tree's real runs instead of the model.
//
// Over runs j (L0 as one run, then levels s..D) it minimises
//     sum_j w_j FPR_j(b_j)  subject to  sum_j n_j b_j = A N,
// n_j the run's entries from its live files, w_j the share of lookups
// reaching run j (its files' coverage of the key space, times its
// block-cache miss probability when cache-aware), with levels s..D-1
// sharing one b_j so that trivially moved files stay within budget. The
// nominal average A is set so that the filters take no more real bytes
// than RocksDB's built-in Bloom filter would for the same files; the last
// level then takes exactly what is left of those bytes.

#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "linebloom/planner/planner_options.h"
#include "linebloom/planner/tracked_tree.h"

namespace linebloom::planner {

// When a tree is tracked: the deepest level has at least kTrackedMinFiles
// live files covering at least kTrackedCoverage of the key space.
inline constexpr double kTrackedCoverage = 0.9;
inline constexpr size_t kTrackedMinFiles = 128;
// The smallest lookup weight a tracked run gets.
inline constexpr double kTrackedMinWeight = 1.0 / 32;
// The model L0 run is the shallowest level's records, at most this many
// times that level's share of the last level's keys, T^(s-D).
inline constexpr double kBaseLevelSlack = 3;
// The last level's per-file block dither carries at most this many blocks.
inline constexpr double kMaxCarryBlocks = 4;

// The engine's block cache, as the cache-aware weights see it.
struct BlockCache {
  double capacity_bytes = 0;  // 0: no cache (every read goes to storage)
  double block_size = 4096;
  double filter_bytes = 0;  // filter bytes the cache holds beside data blocks
};

struct TrackedPlan {
  int shallowest = -1;
  // Per run (L0 first, then shallowest..deepest): bits per key, weights
  // used, entries and cache miss probability.
  std::vector<double> bits_per_key, weights, entries, miss;
  // Per run, the bits of an upper-level file that cannot move (its level's
  // own), at which such live files are booked.
  std::vector<double> own_bits_per_key;
  double average = 0;        // the nominal average A solved for
  double real_bytes = 0;     // predicted for the live files
  double builtin_bytes = 0;  // the built-in's for the same files
  // The last level's share of the built-in's bytes per key (what is left
  // after the other levels' real bytes), for the per-file block dither.
  double last_bytes_per_key = 0;
};

// RocksDB's built-in Bloom filter's bytes (format_version 5) for `keys`
// keys at `bits_per_key`: 5 + 64 ceil(ceil(keys * millibits / 8000) / 64).
uint64_t BuiltinFilterBytes(uint64_t keys, double bits_per_key);

// Whether `tree` is tracked (see kTrackedCoverage).
bool IsTracked(const TrackedTree& tree);

// The plan of `tree`, or nullopt when it is not tracked: levels s..D-1
// share their bits (AllocateBitsSharedMiddle), and each run's own bits
// (AllocateBitsPerRun) are those of a file that cannot move.
std::optional<TrackedPlan> PlanTrackedTree(const TrackedTree& tree, const PlannerOptions& options,
                                           const BlockCache& cache);

// PlanTrackedTree(tree, options, cache)->own_bits_per_key[run], or nullopt
// when `tree` is not tracked or has no such run; what a file that cannot
// move gets (LevelPlanner::BitsAtFinish), without the books of every live
// file and the bisection that fit the last level's shared bits to them.
std::optional<double> OwnBitsPerKey(const TrackedTree& tree, const PlannerOptions& options, const BlockCache& cache,
                                    size_t run);

}  // namespace linebloom::planner
