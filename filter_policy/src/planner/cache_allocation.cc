// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.

#include "cache_allocation.h"

#include <algorithm>
#include <cmath>

#include "linebloom/planner/cache_model.h"

namespace linebloom::planner {
namespace {

constexpr int kCheIterations = 8;
// The smallest miss probability a run is weighed with.
constexpr double kMinMissProbability = 1.0 / 1024;

// The fixed point of allocation and Che's misses from `miss`; runs ranked
// below `forced` by blocks are held at the floor (assumed cached).
CachedAllocation FixedPoint(const CacheRuns& cache, double average, std::vector<double> miss, size_t forced,
                            bool move_safe) {
  const TrackedRuns& runs = *cache.runs;
  const size_t num_runs = runs.n.size();
  CachedAllocation p;
  p.weights = runs.coverage;
  const int rounds = cache.cache_aware ? kCheIterations : 1;
  for (int round = 0; round < rounds; ++round) {
    for (size_t run = 0; run < num_runs; ++run) {
      p.weights[run] = runs.coverage[run] * std::max(miss[run], kMinMissProbability);
    }
    const double largest = *std::max_element(p.weights.begin(), p.weights.end());
    std::vector<double> normalized(p.weights);
    for (double& w : normalized) w /= largest;
    p.allocation = move_safe ? AllocateBitsSharedMiddle(runs.n, normalized, runs.kinds, average)
                             : AllocateBitsPerRun(runs.n, normalized, runs.kinds, average);
    if (!cache.cache_aware) break;
    std::vector<double> rates(num_runs);
    for (size_t run = 0; run < num_runs; ++run) rates[run] = runs.coverage[run] * p.allocation.expected_fpr[run];
    const std::vector<double> next = CheMissProbabilities(cache.blocks, rates, cache.capacity_blocks);
    for (size_t run = 0; run < num_runs; ++run) {
      if (cache.blocks_rank[run] < forced) continue;
      miss[run] = round == 0 ? next[run] : std::sqrt(std::max(miss[run], 1e-12) * std::max(next[run], 1e-12));
    }
    if (round + 1 == rounds) {
      for (size_t run = 0; run < num_runs; ++run) p.cost += rates[run] * next[run];
    }
  }
  p.miss = std::move(miss);
  return p;
}

}  // namespace

CacheRuns DescribeCache(const TrackedRuns& runs, const TrackedTree& tree, const PlannerOptions& options,
                        const BlockCache& cache) {
  const size_t num_runs = runs.n.size();
  CacheRuns c;
  c.runs = &runs;
  c.cache_aware =
      options.cache.enabled && options.cache.level_weights.empty() && cache.capacity_bytes > 0 && cache.block_size > 0;
  const double data_bytes_per_key =
      options.cache.data_bytes_per_key > 0 ? options.cache.data_bytes_per_key : tree.MeanKeyBytes(16) + 40;
  c.capacity_blocks = std::max(0.0, cache.capacity_bytes - cache.filter_bytes) / cache.block_size;
  c.blocks.resize(num_runs);
  for (size_t run = 0; run < num_runs; ++run) {
    c.blocks[run] = std::max(1.0, std::ceil(static_cast<double>(runs.n[run]) * data_bytes_per_key / cache.block_size));
  }
  std::vector<size_t> order(num_runs);
  for (size_t run = 0; run < num_runs; ++run) order[run] = run;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return c.blocks[a] < c.blocks[b]; });
  c.blocks_rank.resize(num_runs);
  for (size_t rank = 0; rank < num_runs; ++rank) c.blocks_rank[order[rank]] = rank;
  return c;
}

CachedAllocation AllocateWithCache(const CacheRuns& cache, double average, bool move_safe) {
  const size_t num_runs = cache.runs->n.size();
  // Two starts: every false positive a miss (the cache-oblivious optimum),
  // and the misses of a tree without filters (every covered level read on
  // every lookup: small levels hot and cached). A level given many bits is
  // read rarely, so its blocks are cold and its weight stays high; given
  // few, it is read often, cached and cheap.
  CachedAllocation best = FixedPoint(cache, average, std::vector<double>(num_runs, 1.0), 0, move_safe);
  if (!cache.cache_aware) return best;
  CachedAllocation other = FixedPoint(
      cache, average, CheMissProbabilities(cache.blocks, cache.runs->coverage, cache.capacity_blocks), 0, move_safe);
  if (other.cost < best.cost) best = std::move(other);
  // And the cached fixed points neither start reaches (a level is cached
  // only once it has few bits, and gets few bits only once cached): the p
  // runs with the fewest blocks held at the floor while the others
  // iterate, for every p whose blocks fit in the cache.
  for (size_t p = 1; p < num_runs; ++p) {
    double held = 0;
    for (size_t run = 0; run < num_runs; ++run) held += cache.blocks_rank[run] < p ? cache.blocks[run] : 0;
    if (held > cache.capacity_blocks) break;
    std::vector<double> start(num_runs, 1.0);
    for (size_t run = 0; run < num_runs; ++run) start[run] = cache.blocks_rank[run] < p ? kMinMissProbability : 1.0;
    CachedAllocation forced = FixedPoint(cache, average, start, p, move_safe);
    if (forced.cost < best.cost) best = std::move(forced);
  }
  return best;
}

}  // namespace linebloom::planner
