// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// Level-aware bits per key ("Monkey": Dayan, Athanassoulis, Idreos, SIGMOD
// 2017). A point lookup for an absent key consults one filter per sorted run
// and pays a wasted block read for each false positive, so its expected cost
// is R = sum_j FPR(b_j) over the runs j. With a fixed memory budget
// M = sum_j n_j b_j (n_j entries in run j, b_j bits per key), uniform b_j is
// not optimal: the big last level holds most keys, so a bit taken from each
// of its keys buys many bits for each key of a small level.
//
// Unblocked Bloom filters, FPR(b) = e^(-b ln^2 2). The Lagrangian
// L = sum_j e^(-b_j c) + lambda (sum_j n_j b_j - M), c = ln^2 2, gives
// dL/db_j = -c e^(-b_j c) + lambda n_j = 0, so FPR_j = lambda n_j / c: each
// run's false-positive rate is proportional to its size. With f_j = n_j / N,
// b̄ = M / N and H = -sum_j f_j ln f_j, solving the budget for lambda gives
//     b_j = b̄ + (ln(1/f_j) - H) / ln^2 2.
//
// Blocked filters flatten at high bits per key (bloom_math.h: crowded
// blocks dominate), so the optimum has no closed form. We solve the same
// Lagrangian numerically: for a multiplier lambda each run independently
// takes the b on a 1/8-bit grid in {0} u [1, kMaxLevelBitsPerKey] that
// minimises FPR_blk(b) + lambda n_j b, where FPR_blk uses the best probe
// count for b and b = 0 means "no filter" (FPR 1, no memory); lambda is
// bisected until the budget is met. Because the grid is discrete that can
// leave bits unspent, so a pairwise pass then re-splits the budget between
// every two runs exhaustively until nothing improves. The answer is compared with the uniform
// allocation and the better one returned, so it is never worse than
// uniform and never over budget.

#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace linebloom {

// Small runs gain almost nothing past this (FPR ~1e-9), and the probe count
// stays within kMaxProbes.
inline constexpr double kMaxLevelBitsPerKey = 64.0;

struct LevelAllocation {
  // Per run; 0 means "build no filter for this run".
  std::vector<double> bits_per_key;
  // Per run: the probes for bits_per_key (0 when there is no filter).
  std::vector<int> num_probes;
  // Per run: BlockedFpr(bits_per_key, num_probes), 1 without a filter.
  std::vector<double> expected_fpr;
  // sum of expected_fpr: expected wasted block reads per absent-key lookup
  // that consults every run.
  double expected_fpr_sum = 0;
  // sum_j entries_j * bits_per_key_j (nominal, before rounding filters up to
  // whole 64-byte blocks).
  double total_bits = 0;
};

// Bits per key for each run (entries_per_run[j] keys) that minimise the sum
// of blocked-filter false-positive rates using at most
// average_bits_per_key * sum(entries) bits. Runs with 0 entries get 0.
LevelAllocation AllocateBitsPerRun(std::span<const uint64_t> entries_per_run,
                                   double average_bits_per_key);

// The uniform allocation (every run average_bits_per_key), scored the same way.
LevelAllocation UniformAllocation(std::span<const uint64_t> entries_per_run,
                                  double average_bits_per_key);

// Entries per level of a leveled LSM tree holding total_entries over
// num_levels levels, each size_ratio times the one above it (the last level
// the largest).
std::vector<uint64_t> LeveledEntries(uint64_t total_entries, double size_ratio, int num_levels);

}  // namespace linebloom
