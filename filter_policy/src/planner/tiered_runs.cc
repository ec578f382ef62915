// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.

#include "linebloom/planner/tiered_runs.h"

#include <algorithm>
#include <cmath>

#include "linebloom/level_allocator.h"

namespace linebloom::planner {
namespace {

// Virtual runs per level at most: the allocator re-splits bits between every
// pair of runs, so a huge fanout must not make it quadratic in thousands of
// runs. Beyond this many small runs per level the extra ones change the
// answer little.
constexpr size_t kMaxVirtualRunsPerLevel = 15;

// Typical entries of a run at `level`: the mean of the live runs there, or
// the nearest populated level's mean scaled by fanout per level.
double NominalEntries(std::span<const TieredRun> live, int level, size_t fanout) {
  int levels = level + 1;
  for (const TieredRun& r : live) levels = std::max(levels, r.level + 1);
  std::vector<double> sum(static_cast<size_t>(levels), 0), count(static_cast<size_t>(levels), 0);
  for (const TieredRun& r : live) {
    sum[static_cast<size_t>(r.level)] += static_cast<double>(r.entries);
    count[static_cast<size_t>(r.level)] += 1;
  }
  for (int d = 0; d < levels; ++d) {
    for (int l : {level - d, level + d}) {
      if (l < 0 || l >= levels || count[static_cast<size_t>(l)] == 0) continue;
      return sum[static_cast<size_t>(l)] / count[static_cast<size_t>(l)] *
             std::pow(static_cast<double>(fanout), level - l);
    }
  }
  return 1;
}

}  // namespace

std::vector<TieredRun> FullTieredShape(std::span<const TieredRun> live, size_t fanout) {
  std::vector<TieredRun> shape(live.begin(), live.end());
  int deepest = -1;
  for (const TieredRun& r : live) deepest = std::max(deepest, r.level);
  const size_t per_level = std::min(fanout - 1, kMaxVirtualRunsPerLevel);
  for (int level = 0; level < deepest; ++level) {
    const size_t present = static_cast<size_t>(
        std::count_if(live.begin(), live.end(), [level](const TieredRun& r) { return r.level == level; }));
    const auto entries = static_cast<uint64_t>(std::max(1.0, std::round(NominalEntries(live, level, fanout))));
    for (size_t i = present; i < per_level; ++i) shape.push_back({entries, level});
  }
  return shape;
}

double BitsForNewTieredRun(TieredRun new_run, std::span<const TieredRun> others, size_t fanout,
                           double average_bits_per_key, int compact_from_level) {
  std::vector<TieredRun> live{new_run};
  live.insert(live.end(), others.begin(), others.end());
  const std::vector<TieredRun> full = FullTieredShape(live, fanout);
  // full = [new run, others..., virtual runs...]: the others are fixed, the
  // new run (free[0]) and the virtual runs share the rest of the budget.
  double total_entries = 0, fixed_bits = 0, free_entries = 0;
  std::vector<uint64_t> free;
  std::vector<FilterKind> free_kinds;
  for (size_t j = 0; j < full.size(); ++j) {
    const auto n = static_cast<double>(full[j].entries);
    total_entries += n;
    if (j >= 1 && j <= others.size()) {
      fixed_bits += n * full[j].bits_per_key;
    } else {
      free.push_back(full[j].entries);
      free_kinds.push_back(full[j].level >= compact_from_level ? FilterKind::kCompact : FilterKind::kBloom);
      free_entries += n;
    }
  }
  const double average = average_bits_per_key;
  const double free_average =
      std::clamp((average * total_entries - fixed_bits) / free_entries, average / 2, kMaxLevelBitsPerKey);
  return AllocateBitsPerRun(free, {}, free_kinds, free_average).bits_per_key[0];
}

}  // namespace linebloom::planner
