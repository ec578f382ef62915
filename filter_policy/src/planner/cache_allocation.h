// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// A tracked plan's allocation at a nominal average, with cache-aware
// weights (docs/LEVEL_AWARE.md, "Block cache"): a false positive costs a
// device read only when its data block misses the cache, so run j weighs
// c_j m_j (coverage times miss probability). The misses depend on the
// allocation (fewer bits, more reads, hotter blocks) and the allocation on
// the misses, so the two are iterated to a fixed point (kCheIterations
// rounds, each miss the geometric mean of the last two). Different starts
// can settle in different fixed points, and the one with the fewest
// expected device reads per lookup, sum_j c_j f_j m_j, is kept.

#pragma once

#include <cstdint>
#include <vector>

#include "linebloom/level_allocator.h"
#include "linebloom/planner/tracked_plan.h"
#include "tracked_runs.h"

namespace linebloom::planner {

struct CacheRuns {
  const TrackedRuns* runs = nullptr;
  bool cache_aware = false;
  std::vector<double> blocks;       // data blocks per run
  double capacity_blocks = 0;       // the cache, less the filters it holds
  std::vector<size_t> blocks_rank;  // each run's rank by blocks, smallest first
};

struct CachedAllocation {
  LevelAllocation allocation;
  std::vector<double> weights, miss;  // weights: coverage times miss
  double cost = 0;                    // expected device reads per lookup
};

// The cache as seen by `runs` of `tree`: cache-aware when configured so, no
// level weights are configured and the engine reports a cache.
CacheRuns DescribeCache(const TrackedRuns& runs, const TrackedTree& tree, const PlannerOptions& options,
                        const BlockCache& cache);

// The cheapest fixed point at `average` bits per key over `cache.runs`.
CachedAllocation AllocateWithCache(const CacheRuns& cache, double average, bool move_safe);

}  // namespace linebloom::planner
