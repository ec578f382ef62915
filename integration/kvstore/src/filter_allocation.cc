// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.

#include "filter_allocation.h"

#include <algorithm>

#include "linebloom/compact_math.h"

namespace linebloom::kvstore::internal {
namespace {

RunFilterBits ChooseBits(const Options& options, RunShape new_run, std::span<const RunShape> others) {
  const int kinds = int{options.run_filters} + int{options.block_filters};
  if (kinds == 0) return {};
  if (options.filter_allocation == FilterAllocation::kPerLevel) {
    const double b = options.bits_per_key ? options.bits_per_key(new_run.level) : 10.0;
    return {options.run_filters ? b : 0, options.block_filters ? b : 0};
  }
  if (!options.run_filters) {
    return {0, planner::BitsForNewTieredRun(new_run, others, options.tier_fanout, options.average_bits_per_key)};
  }
  // The run filters take the allocation, so their kinds price it.
  const double bits = planner::BitsForNewTieredRun(new_run, others, options.tier_fanout, options.average_bits_per_key,
                                                   options.compact_run_filters_from_level);
  return {bits, options.block_filters ? options.average_bits_per_key : 0};
}

}  // namespace

RunFilterBits ChooseRunFilterBits(const Options& options, RunShape new_run, std::span<const RunShape> others) {
  RunFilterBits bits = ChooseBits(options, new_run, others);
  if (bits.run_filter > 0 && new_run.level >= options.compact_run_filters_from_level) {
    bits.run_filter_kind = FilterKind::kCompact;
    bits.run_filter = std::clamp(bits.run_filter, kMinCompactBitsPerKey, kMaxCompactBitsPerKey);
  }
  return bits;
}

}  // namespace linebloom::kvstore::internal
