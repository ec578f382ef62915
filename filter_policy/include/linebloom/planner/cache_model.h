// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// Che's approximation of an LRU block cache (docs/LEVEL_AWARE.md, "Block
// cache"). Run j has B_j blocks, requested at lambda_j per lookup in all,
// spread evenly over its blocks. The cache holds C blocks; its
// characteristic time T solves
//     sum_j B_j (1 - e^(-lambda_j T / B_j)) = C,
// and a request for a block of run j misses with probability
// e^(-lambda_j T / B_j).

#pragma once

#include <span>
#include <vector>

namespace linebloom::planner {

// The miss probability of each run: 1 everywhere when capacity_blocks is 0,
// 0 everywhere when every requested block fits.
std::vector<double> CheMissProbabilities(std::span<const double> blocks, std::span<const double> rates,
                                         double capacity_blocks);

}  // namespace linebloom::planner
