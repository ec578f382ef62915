// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.

#include "filter_allocation.h"

#include <algorithm>
#include <cmath>

#include "linebloom/level_allocator.h"

namespace linebloom::kvstore::internal {
namespace {

// Virtual runs per level at most: the allocator re-splits bits between every
// pair of runs, so a huge fanout must not make it quadratic in thousands of
// runs. Beyond this many small runs per level the extra ones change the
// answer little.
constexpr size_t kMaxVirtualRunsPerLevel = 15;

// Typical entries of a run at `level`: the mean of the live runs there, or
// the nearest populated level's mean scaled by fanout per level.
double NominalEntries(std::span<const RunShape> live, int level, size_t fanout) {
  std::vector<double> sum(kMaxLevels, 0), count(kMaxLevels, 0);
  for (const RunShape& r : live) {
    sum[r.level] += static_cast<double>(r.entries);
    count[r.level] += 1;
  }
  for (int d = 0; d < kMaxLevels; ++d) {
    for (int l : {level - d, level + d}) {
      if (l < 0 || l >= kMaxLevels || count[l] == 0) continue;
      return sum[l] / count[l] * std::pow(static_cast<double>(fanout), level - l);
    }
  }
  return 1;
}

}  // namespace

std::vector<RunShape> FullTieredShape(std::span<const RunShape> live, size_t fanout) {
  std::vector<RunShape> shape(live.begin(), live.end());
  int deepest = -1;
  for (const RunShape& r : live) deepest = std::max(deepest, r.level);
  const size_t per_level = std::min(fanout - 1, kMaxVirtualRunsPerLevel);
  for (int level = 0; level < deepest; ++level) {
    const size_t present = static_cast<size_t>(
        std::count_if(live.begin(), live.end(), [level](const RunShape& r) { return r.level == level; }));
    const auto entries = static_cast<uint64_t>(std::max(1.0, std::round(NominalEntries(live, level, fanout))));
    for (size_t i = present; i < per_level; ++i) shape.push_back({entries, level});
  }
  return shape;
}

RunFilterBits ChooseRunFilterBits(const Options& options, RunShape new_run, std::span<const RunShape> others) {
  const int kinds = int{options.run_filters} + int{options.block_filters};
  if (kinds == 0) return {};
  if (options.filter_allocation == FilterAllocation::kPerLevel) {
    const double b = options.bits_per_key ? options.bits_per_key(new_run.level) : 10.0;
    return {options.run_filters ? b : 0, options.block_filters ? b : 0};
  }

  std::vector<RunShape> live{new_run};
  live.insert(live.end(), others.begin(), others.end());
  const std::vector<RunShape> full = FullTieredShape(live, options.tier_fanout);
  // full = [new run, others..., virtual runs...]: the others are fixed, the
  // new run (free[0]) and the virtual runs share the rest of the budget.
  double total_entries = 0, fixed_bits = 0, free_entries = 0;
  std::vector<uint64_t> free;
  for (size_t j = 0; j < full.size(); ++j) {
    const auto n = static_cast<double>(full[j].entries);
    total_entries += n;
    if (j >= 1 && j <= others.size()) {
      fixed_bits += n * full[j].bits_per_key;
    } else {
      free.push_back(full[j].entries);
      free_entries += n;
    }
  }
  const double average = options.average_bits_per_key;
  const double free_average =
      std::clamp((average * total_entries - fixed_bits) / free_entries, average / 2, kMaxLevelBitsPerKey);
  const double bits = AllocateBitsPerRun(free, free_average).bits_per_key[0];
  if (!options.run_filters) return {0, bits};
  return {bits, options.block_filters ? options.average_bits_per_key : 0};
}

}  // namespace linebloom::kvstore::internal
