// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.

#include "linebloom/planner/budget_average.h"

#include <algorithm>
#include <vector>

#include "linebloom/planner/tree_model.h"

namespace linebloom::planner {

double LiveRatio(const TrackedTree& tree, double size_ratio) {
  if (!tree.HasShape()) return 1.0;
  const std::vector<uint64_t> entries = ModelEntries(size_ratio, tree.deepest - tree.shallowest + 1);
  double weighted = 0, total = 0;
  for (size_t run = 0; run < entries.size(); ++run) {
    const double n = static_cast<double>(entries[run]);
    double ratio = 1;
    if (auto it = tree.spend.find(tree.LevelOfRun(run));
        it != tree.spend.end() && it->second.recent.size() >= TrackedTree::kMinObservations && it->second.budget > 0) {
      ratio = it->second.actual / it->second.budget;
    }
    weighted += n * ratio;
    total += n;
  }
  return weighted / total;
}

double BudgetAverage(const TrackedTree& tree, double average_bits_per_key, double size_ratio) {
  return std::clamp(average_bits_per_key / LiveRatio(tree, size_ratio), 0.8 * average_bits_per_key,
                    1.1 * average_bits_per_key);
}

}  // namespace linebloom::planner
