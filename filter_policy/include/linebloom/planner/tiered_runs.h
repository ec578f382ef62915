// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// Run-aware bits for a size-tiered store, where every run spans the whole
// key range, so an absent-key lookup consults every live run and its
// expected wasted reads are exactly sum_j FPR_j (docs/KVSTORE.md, "Filter
// allocation").
//
// A run's filter lives as long as the run, so its bits must suit the store
// over that life, not the instant it is written: a big run is written by a
// cascade that has just emptied every level below it, and those levels
// then refill with up to fanout - 1 runs each. So the allocation is made
// over the full shape: the live runs plus, on every level below the deepest
// live one, virtual runs up to fanout - 1 per level, sized like the level's
// live runs (or scaled by fanout from the nearest level that has some).
// The live runs keep the bits they were built with; the new run and the
// virtual runs share what the budget over the full shape leaves (within
// [average / 2, kMaxLevelBitsPerKey]), split by AllocateBitsPerRun, each
// priced with the model of its filter's kind: a run at a level of at least
// compact_from_level gets the compact filter, the others the Bloom filter.

#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

namespace linebloom::planner {

struct TieredRun {
  uint64_t entries = 0;
  int level = 0;
  // Of a live run: the bits per key its filter really holds (bytes * 8 /
  // entries). Unused for the run being written.
  double bits_per_key = 0;
};

// `live` followed by the virtual runs that pad each level below the deepest
// live one to fanout - 1 runs.
std::vector<TieredRun> FullTieredShape(std::span<const TieredRun> live, size_t fanout);

// Bits per key for `new_run` while `others` stay live (any order), for a
// budget of average_bits_per_key per stored key. Runs (the new one and the
// virtual ones) at levels >= compact_from_level are priced as compact
// filters (CompactFpr), the others as Bloom filters; the default, no level,
// prices every run as Bloom. A compact run's bits are in
// [kMinCompactBitsPerKey, kMaxCompactBitsPerKey].
double BitsForNewTieredRun(TieredRun new_run, std::span<const TieredRun> others, size_t fanout,
                           double average_bits_per_key, int compact_from_level = std::numeric_limits<int>::max());

}  // namespace linebloom::planner
