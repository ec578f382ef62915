// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// The memory books of the shape estimate (docs/LEVEL_AWARE.md, "The memory
// books"): filters round up to whole 64-byte blocks and carry a trailer, so
// a level's filters spend more or less than their bits per key asked. The
// live ratio is actual over budgeted bytes, each run's recent ratio weighted
// by the run's model entries (a run with fewer than kMinObservations
// filters counts as on budget); the next file is allocated with
//     clamp(A / ratio, 0.8 A, 1.1 A)
// bits per key on average, A the configured budget.

#pragma once

#include "linebloom/planner/tracked_tree.h"

namespace linebloom::planner {

double LiveRatio(const TrackedTree& tree, double size_ratio);
double BudgetAverage(const TrackedTree& tree, double average_bits_per_key, double size_ratio);

}  // namespace linebloom::planner
