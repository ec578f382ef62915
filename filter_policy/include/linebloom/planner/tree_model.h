// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// The leveled-tree model the planner allocates over before it tracks a
// tree's files (docs/LEVEL_AWARE.md, "The shape estimate"): relative entries
// per run, each level size_ratio (T) times the one above, and the share of
// absent-key lookups that reach each run.
//
// Lookup weights. A lookup consults level l's filter only if its key falls
// in one of the level's files. With rho_l the keys per whole key space of
// level l's recent filters (keys over the fraction of the key space each
// spans), a level holding its model share of the last level D's keys,
// T^(l-D) of them, spread at density rho_l covers
//     c_l = T^(l-D) rho_D / rho_l
// of the key space. L0's weight is the mean fraction its recent files span.

#pragma once

#include <cstdint>
#include <vector>

#include "linebloom/planner/tracked_tree.h"

namespace linebloom::planner {

// The smallest lookup weight the estimate gives a run.
inline constexpr double kMinLookupWeight = 1.0 / 2;

// Relative entries per run of a tree whose levels >= 1 are num_non_l0_levels
// levels: L0 first (as large as the shallowest level), then the levels
// shallowest..deepest; every run at least 1.
std::vector<uint64_t> ModelEntries(double size_ratio, int num_non_l0_levels);

// The estimated lookup weight of each run of `tree` (run 0 is L0), in
// [kMinLookupWeight, 1]; 1 for a run with too few recent filters; empty
// before the tree has a level >= 1.
std::vector<double> LookupWeights(const TrackedTree& tree, double size_ratio);

// LookupWeights(tree, any ratio)[0] alone (1 before the tree has a level
// >= 1): L0's weight needs no level's density, which the others' take a
// walk of each level's recent filters to measure.
double L0LookupWeight(const TrackedTree& tree);

}  // namespace linebloom::planner
