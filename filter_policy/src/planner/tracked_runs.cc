// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.

#include "tracked_runs.h"

#include <algorithm>
#include <cmath>

#include "linebloom/planner/tracked_plan.h"
#include "linebloom/planner/tree_model.h"

namespace linebloom::planner {
TrackedRuns MeasureTrackedRuns(const TrackedTree& tree, const PlannerOptions& options) {
  const int s = tree.shallowest, d = tree.deepest;
  const size_t num_runs = tree.NumRuns();
  TrackedRuns runs;
  runs.entries.assign(num_runs, 0);
  runs.coverage.assign(num_runs, 1);
  for (size_t run = 0; run < num_runs; ++run) runs.kinds.push_back(KindOfLevel(options, tree.LevelOfRun(run), d));
  for (size_t run = 1; run < num_runs; ++run) {
    const int level = tree.LevelOfRun(run);
    const auto keys = static_cast<double>(tree.LiveKeys(level));
    const double c = tree.Coverage(level);
    if (level == d) {
      runs.entries[run] = c > 0 ? keys / c : keys;
    } else {
      runs.entries[run] = keys;
      runs.coverage[run] = c;
    }
  }
  // Upper levels at most their share; L0 from the shallowest level before
  // its cap (see the header).
  auto share = [&](int level) { return runs.entries.back() * std::pow(options.size_ratio, level - d); };
  const double shallowest_keys = std::min(runs.entries[1], kBaseLevelSlack * share(s));
  for (size_t run = 1; run + 1 < num_runs; ++run) {
    const double cap = share(tree.LevelOfRun(run));
    if (runs.entries[run] > cap && runs.entries[run] > 0) {
      runs.scale[tree.LevelOfRun(run)] = cap / runs.entries[run];
      runs.entries[run] = cap;
    }
  }
  auto l0 = tree.recent.find(0);
  runs.entries[0] = l0 != tree.recent.end() && !l0->second.empty() ? shallowest_keys : 0;
  runs.coverage[0] = L0LookupWeight(tree);
  const std::vector<double>& configured = options.cache.level_weights;
  for (size_t run = 0; run < num_runs; ++run) {
    double c = runs.coverage[run];
    const auto level = static_cast<size_t>(tree.LevelOfRun(run));
    if (level < configured.size()) c *= configured[level];
    runs.coverage[run] = std::clamp(c, kTrackedMinWeight, 1.0);
  }
  runs.n.resize(num_runs);
  for (size_t run = 0; run < num_runs; ++run) {
    runs.n[run] = static_cast<uint64_t>(std::max(1.0, std::round(runs.entries[run])));
    runs.total += static_cast<double>(runs.n[run]);
  }
  return runs;
}

}  // namespace linebloom::planner
