// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// The info-log lines a LevelPlanner writes when a tree's allocation
// changes: "linebloom level_aware [<tree>]: <summary>:" and one
// " L<level> <field>=<value>..." group per run.

#pragma once

#include <string>
#include <vector>

#include "linebloom/planner/tracked_plan.h"
#include "linebloom/planner/tracked_tree.h"

namespace linebloom::planner {

// The estimate's allocation: its average and each run's weight and bits.
std::string DescribeEstimate(const std::string& tree_name, const TrackedTree& tree, double average,
                             const std::vector<double>& weights, const std::vector<double>& bits_per_key);

// A tracked plan: its average, real and built-in bytes, and each run's
// entries, weight, miss probability and bits.
std::string DescribeTrackedPlan(const std::string& tree_name, const TrackedTree& tree, const TrackedPlan& plan);

}  // namespace linebloom::planner
