// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// The runs of a tracked tree as its plan counts them: entries and lookup
// weight (coverage) per run, from the live files.
//
// The last level's entries are its live keys over its coverage (the keys of
// the whole key space). An upper level counts at most its share of the
// quiesced tree, T^(l-D) of the last level: a file compacted down without a
// replacement at its level stays recorded, and while writes outrun
// compaction the live upper levels hold several times their share, which a
// last level planned for would keep after they drain. Such a level's keys,
// and its bytes in the books, are scaled down alike. L0 is modelled as the
// shallowest level as recorded, at most kBaseLevelSlack times its share,
// once L0 files were built; none built (a tree rewritten by compactions
// alone) spends nothing.

#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "linebloom/planner/planner_options.h"
#include "linebloom/planner/tracked_tree.h"

namespace linebloom::planner {

struct TrackedRuns {
  std::vector<double> entries;    // per run
  std::vector<double> coverage;   // per run: lookup weight before the cache
  std::vector<uint64_t> n;        // entries rounded, at least 1
  std::vector<FilterKind> kinds;  // per run: its level's kind (KindOfLevel)
  double total = 0;               // sum of n
  std::map<int, double> scale;    // by upper level capped at its share

  // The fraction at which a level's live keys and bytes count.
  double Scale(int level) const {
    auto it = scale.find(level);
    return it == scale.end() ? 1.0 : it->second;
  }
};

// The runs of `tree`, which must be tracked (IsTracked).
TrackedRuns MeasureTrackedRuns(const TrackedTree& tree, const PlannerOptions& options);

}  // namespace linebloom::planner
