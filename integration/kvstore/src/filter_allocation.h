// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// How many filter bits per key a new run gets (Options::filter_allocation).
//
// kPerLevel: Options::bits_per_key(level) for each filter kind that is on.
//
// kRunAware: every run spans the whole key range (size-tiered), so a Get of
// an absent key consults every live run, and its expected wasted block reads
// are exactly sum_j FPR_j. linebloom::AllocateBitsPerRun (Monkey) minimises
// that sum for a memory budget of average_bits_per_key bits per stored key;
// the optimum gives each run an FPR proportional to its entries, so the small
// recent runs get more bits per key than the big old ones.
//
// Filters are built once, when a run is written, and kept until a compaction
// rewrites the run; so a run's bits must suit the shape of the store over the
// run's whole life, not just the moment it is written. Tiering makes that
// shape predictable: a big run is written by a compaction cascade that has
// just emptied every level below it, and those levels then refill with up to
// fanout - 1 runs each before the big run is merged again. Allocating against
// the shape of that instant would give the big run the full average and then
// overspend on every small run that follows. So the allocation is made over
// the "full" shape: the live runs (with the new one), plus, on every level
// below the deepest live one, virtual runs up to fanout - 1 per level, sized
// like that level's live runs (or scaled by fanout from the nearest level
// that has one).
//
// The live runs keep the bits they were built with (their real bytes,
// rounding included), so the new run and the virtual runs share what the
// budget over the full shape leaves: the optimum of the separable problem
// with the live runs fixed. A run written small-first (a deep run written
// while the levels above it were empty) thus hands its unspent bits to the
// runs that follow, and one that overspent takes them back. The share is
// kept in [average / 2, 64] bits per key, so a budget lowered between opens
// does not leave new runs unfiltered. In a full shape the filters then use
// the budget; while levels are not full, less. Entry counts of a run being
// written are an upper bound (before deduplication).
//
// With both a run filter and block filters, a lookup reads a block only if
// both say "maybe", so a run's false-positive rate is FPR_run(b_j) *
// FPR_block: the block filters stay at average_bits_per_key in every run and
// the run filter alone is allocated, which minimises the same sum scaled by
// a constant. Block filters are small (a few 64-byte blocks per data block),
// so rounding each up to whole blocks would make their real memory a lumpy
// function of the bits asked for; the run filter is one large filter and
// costs what it is given. Without a run filter the block filters take the
// allocation (their rounding then makes the memory approximate). A run
// allocated 0 bits gets no run filter (the block filters still answer).
// Internal header.

#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "linebloom/kvstore/options.h"

namespace linebloom::kvstore::internal {

struct RunShape {
  uint64_t entries = 0;
  int level = 0;
  // Of a live run: the bits per key its allocated filter kind really holds
  // (bytes * 8 / entries). Unused for the run being written.
  double bits_per_key = 0;
};

// Bits per key of each filter kind of a new run; 0 = build none.
struct RunFilterBits {
  double run_filter = 0;
  double block_filters = 0;
};

// The full shape described above: `live` (the new run included) followed by
// the virtual runs that pad each level below the deepest live one to
// fanout - 1 runs.
std::vector<RunShape> FullTieredShape(std::span<const RunShape> live, size_t fanout);

// Bits per key of each filter kind for a run of `new_run` written at
// new_run.level while `others` stay live (any order).
RunFilterBits ChooseRunFilterBits(const Options& options, RunShape new_run, std::span<const RunShape> others);

}  // namespace linebloom::kvstore::internal
