// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// How many filter bits per key a new run gets (Options::filter_allocation).
//
// kPerLevel: Options::bits_per_key(level) for each filter kind that is on.
//
// kRunAware: the planner's run-aware bits for a size-tiered store
// (linebloom/planner/tiered_runs.h), which minimise the sum of the runs'
// false-positive rates for average_bits_per_key bits per stored key. With
// both a run filter and block filters, a lookup reads a block only if both
// say "maybe", so a run's false-positive rate is FPR_run(b_j) * FPR_block:
// the block filters stay at average_bits_per_key in every run and the run
// filter alone is allocated, which minimises the same sum scaled by a
// constant. Block filters are small (a few 64-byte blocks per data block),
// so rounding each up to whole blocks would make their real memory a lumpy
// function of the bits asked for; the run filter is one large filter and
// costs what it is given. Without a run filter the block filters take the
// allocation. A run allocated 0 bits gets no run filter.
//
// The run filter's kind (Options::compact_run_filters_from_level): kPerLevel
// gives a compact run filter its level's bits clamped to the compact
// filter's range; kRunAware prices the runs whose filters are compact (new
// and virtual runs at those levels) with the compact model, so they get the
// bits that minimise the sum with each run's own kind.
// Internal header.

#pragma once

#include <span>

#include "linebloom/filter_kind.h"
#include "linebloom/kvstore/options.h"
#include "linebloom/planner/tiered_runs.h"

namespace linebloom::kvstore::internal {

using RunShape = planner::TieredRun;
using planner::FullTieredShape;

// Bits per key of each filter of a new run; 0 = build none. The run filter
// is compact at levels >= Options::compact_run_filters_from_level, its bits
// then clamped to [kMinCompactBitsPerKey, kMaxCompactBitsPerKey].
struct RunFilterBits {
  double run_filter = 0;
  double block_filters = 0;
  FilterKind run_filter_kind = FilterKind::kBloom;
};

// Bits per key of each filter kind for a run of `new_run` written at
// new_run.level while `others` stay live (any order).
RunFilterBits ChooseRunFilterBits(const Options& options, RunShape new_run, std::span<const RunShape> others);

}  // namespace linebloom::kvstore::internal
