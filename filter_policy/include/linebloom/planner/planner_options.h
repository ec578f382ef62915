// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// What a LevelPlanner is configured with: the memory budget, the tree's
// size ratio and how block-cache misses weigh the levels
// (docs/LEVEL_AWARE.md).

#pragma once

#include <climits>
#include <optional>
#include <string>
#include <vector>

#include "linebloom/filter_kind.h"

namespace linebloom::planner {

struct CacheOptions {
  // Weigh each level by the probability that a false positive there misses
  // the block cache (Che's approximation, cache_model.h).
  bool enabled = true;
  double block_cache_bytes = 0;       // 0: the capacity the engine reports
  double data_bytes_per_key = 0;      // 0: mean key bytes + 40
  std::vector<double> level_weights;  // configured, L0 first; empty: none
};

struct PlannerOptions {
  double average_bits_per_key = 10;  // the memory budget
  int num_probes = 0;                // 0: the best probe count for each level's bits
  double size_ratio = 10;            // T: each level T times the one above
  CacheOptions cache;
  // Files at this level and deeper get the compact filter
  // (linebloom/compact_filter.h), priced with its model; the levels above,
  // the Bloom filter. As RocksDB's bloom_before_level: INT_MAX (the
  // default) never, 0 every level.
  int compact_from_level = INT_MAX;
  // Files of the deepest level (>= 1) get the compact filter too, whatever
  // compact_from_level says: RocksDB's bottommost files.
  bool compact_deepest = false;
};

// The kind of filter `options` give a file at `level` of a tree whose
// deepest level is `deepest` (-1: not known).
inline FilterKind KindOfLevel(const PlannerOptions& options, int level, int deepest = -1) {
  const bool deepest_level = options.compact_deepest && level >= 1 && level == deepest;
  return level >= options.compact_from_level || deepest_level ? FilterKind::kCompact : FilterKind::kBloom;
}

// "w0:w1:..." (each in [0, 1]) as numbers; the empty string gives an empty
// list; nullopt if malformed.
std::optional<std::vector<double>> ParseLevelWeights(const std::string& text);

}  // namespace linebloom::planner
