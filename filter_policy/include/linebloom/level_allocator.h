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
// every two runs exhaustively until nothing improves. The answer is compared
// with the uniform allocation and the better one returned, so it is never
// worse than uniform and never over budget.
//
// Lookup weights. The sum above assumes every absent-key lookup consults
// every run. In a real LSM tree it does not: a leveled lookup consults level
// l's filter only if the key falls inside one of its files' key ranges, and
// the upper levels of a growing tree often cover a small part of the key
// space. With w_j the probability that a lookup consults run j, the cost is
// R_w = sum_j w_j FPR(b_j) and the Lagrangian condition becomes
// w_j c e^(-b_j c) = lambda n_j, i.e. FPR_j = lambda n_j / (c w_j): a run
// that few lookups reach is priced as if it were 1/w_j times larger. For
// unblocked filters, with g_j = ln(w_j / f_j),
//     b_j = b̄ + (g_j - sum_i f_i g_i) / ln^2 2,
// which is the formula above plus (ln w_j - sum_i f_i ln w_i) / ln^2 2; a
// run with w_j = 0 gets no filter, and any run whose optimal rate
// lambda n_j / (c w_j) would reach 1 gets none either. The blocked solver is
// the same with each run's cost w_j FPR_blk(b) + lambda n_j b (no filter:
// w_j), and the pairwise pass and the uniform comparison use R_w.
//
// Two kinds of filter. A run may be given the compact filter
// (compact_filter.h) instead: its grid is b in [kMinCompactBitsPerKey,
// kMaxCompactBitsPerKey] with the compact model's rate (CompactFpr), and
// the solver is unchanged, since each run's best point is searched on its
// own grid. The compact kind's rate per bit is much lower, so a budget that
// gives the big last level the compact kind leaves the small levels above
// it many Bloom bits.

#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "linebloom/filter_kind.h"

namespace linebloom {

// Small runs gain almost nothing past this (FPR ~1e-9), and the probe count
// stays within kMaxProbes.
inline constexpr double kMaxLevelBitsPerKey = 64.0;

struct LevelAllocation {
  // Per run; 0 means "build no filter for this run".
  std::vector<double> bits_per_key;
  // Per run: the kind of filter priced (kBloom unless the caller asked
  // for kCompact).
  std::vector<FilterKind> kinds;
  // Per run: the probes for bits_per_key (0 when there is no filter or it
  // is compact).
  std::vector<int> num_probes;
  // Per run: BlockedFpr(bits_per_key, num_probes), or CompactFpr for a
  // compact run; 1 without a filter.
  std::vector<double> expected_fpr;
  // sum of expected_fpr: expected wasted block reads per absent-key lookup
  // that consults every run.
  double expected_fpr_sum = 0;
  // sum_j w_j expected_fpr_j: expected wasted block reads per absent-key
  // lookup that consults run j with probability w_j (the objective of the
  // weighted allocation; equal to expected_fpr_sum without weights).
  double expected_weighted_fpr_sum = 0;
  // sum_j entries_j * bits_per_key_j (nominal, before rounding filters up to
  // whole 64-byte blocks).
  double total_bits = 0;
};

// Bits per key for each run (entries_per_run[j] keys) that minimise the sum
// of blocked-filter false-positive rates using at most
// average_bits_per_key * sum(entries) bits. Runs with 0 entries get 0.
LevelAllocation AllocateBitsPerRun(std::span<const uint64_t> entries_per_run, double average_bits_per_key);

// As above, minimising sum_j lookup_weights[j] * FPR_j: lookup_weights[j] is
// the probability that an absent-key lookup consults run j's filter. Weights
// are clamped to [0, 1]; a NaN or a missing weight (fewer weights than runs)
// counts as 1 (every lookup), extra weights are ignored. All weights 1 gives
// exactly the unweighted answer. A run of weight 0 gets no filter.
LevelAllocation AllocateBitsPerRun(std::span<const uint64_t> entries_per_run, std::span<const double> lookup_weights,
                                   double average_bits_per_key);
// As above, with run j's filter of kind kinds[j] (kBloom or kCompact; a
// missing kind, or any other value, is kBloom).
LevelAllocation AllocateBitsPerRun(std::span<const uint64_t> entries_per_run, std::span<const double> lookup_weights,
                                   std::span<const FilterKind> kinds, double average_bits_per_key);

// As the weighted AllocateBitsPerRun, subject to runs 1..size-2 (the
// levels between L0, run 0, and the last level) all getting the same bits
// per key: the best allocation when a file of any of those levels may end
// up in another without being rewritten (RocksDB's trivial moves). With
// fewer than 4 runs there is no constraint. The sums in the result use the
// given weights (clamped, missing ones 1, as above).
LevelAllocation AllocateBitsSharedMiddle(std::span<const uint64_t> entries_per_run,
                                         std::span<const double> lookup_weights, double average_bits_per_key);
// With kinds as above. The shared runs are priced as compact only if all
// of them are compact, else as Bloom.
LevelAllocation AllocateBitsSharedMiddle(std::span<const uint64_t> entries_per_run,
                                         std::span<const double> lookup_weights, std::span<const FilterKind> kinds,
                                         double average_bits_per_key);

// The uniform allocation (every run average_bits_per_key), scored the same
// way (optionally with lookup weights, as above).
LevelAllocation UniformAllocation(std::span<const uint64_t> entries_per_run, double average_bits_per_key);
LevelAllocation UniformAllocation(std::span<const uint64_t> entries_per_run, std::span<const double> lookup_weights,
                                  double average_bits_per_key);
LevelAllocation UniformAllocation(std::span<const uint64_t> entries_per_run, std::span<const double> lookup_weights,
                                  std::span<const FilterKind> kinds, double average_bits_per_key);

// Entries per level of a leveled LSM tree holding total_entries over
// num_levels levels, each size_ratio times the one above it (the last level
// the largest).
std::vector<uint64_t> LeveledEntries(uint64_t total_entries, double size_ratio, int num_levels);

}  // namespace linebloom
