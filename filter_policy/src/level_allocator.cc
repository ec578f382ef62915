// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.

#include "linebloom/level_allocator.h"

#include <algorithm>
#include <cmath>

#include "linebloom/bloom_math.h"
#include "linebloom/filter_options.h"

namespace linebloom {
namespace {

constexpr int kGridPerBit = 8;

// FPR_blk at the best probe count on the grid b = 1 + i / 8. Computed once
// per process (505 points) and shared; read-only afterwards.
struct FprGrid {
  std::vector<double> bits, fpr;
  std::vector<int> probes;
  FprGrid() {
    for (int i = 0; 1.0 + static_cast<double>(i) / kGridPerBit <= kMaxLevelBitsPerKey; ++i) {
      const double b = 1.0 + static_cast<double>(i) / kGridPerBit;
      const int k = OptimalBlockedProbes(b);
      bits.push_back(b);
      probes.push_back(k);
      fpr.push_back(BlockedFpr(b, k));
    }
  }
};

const FprGrid& Grid() {
  static const FprGrid grid;  // thread-safe initialisation (C++11 magic statics)
  return grid;
}

// The grid point (or -1 for "no filter") minimising w FPR(b) + lambda n b.
int BestPoint(const FprGrid& grid, double lambda, uint64_t n, double w) {
  int best = -1;
  double best_cost = w;  // no filter: every consulting lookup reads a block, no memory
  for (size_t i = 0; i < grid.bits.size(); ++i) {
    const double cost = w * grid.fpr[i] + lambda * static_cast<double>(n) * grid.bits[i];
    if (cost < best_cost) {
      best_cost = cost;
      best = static_cast<int>(i);
    }
  }
  return best;
}

// Weight j of `lookup_weights`, per the header's rules: clamped to [0, 1],
// NaN or missing = 1.
std::vector<double> NormalizedWeights(std::span<const double> lookup_weights, size_t runs) {
  std::vector<double> w(runs, 1.0);
  for (size_t j = 0; j < runs && j < lookup_weights.size(); ++j) {
    const double x = lookup_weights[j];
    if (!std::isnan(x)) w[j] = std::clamp(x, 0.0, 1.0);
  }
  return w;
}

LevelAllocation Score(std::span<const uint64_t> entries, std::span<const double> weights, std::vector<double> bits) {
  LevelAllocation a;
  a.bits_per_key = std::move(bits);
  for (size_t j = 0; j < entries.size(); ++j) {
    const double b = a.bits_per_key[j];
    const int k = b > 0 ? OptimalBlockedProbes(b) : 0;
    const double fpr = b > 0 ? BlockedFpr(b, k) : 1.0;
    a.num_probes.push_back(k);
    a.expected_fpr.push_back(entries[j] == 0 ? 0.0 : fpr);
    a.expected_fpr_sum += a.expected_fpr.back();
    a.expected_weighted_fpr_sum += weights[j] * a.expected_fpr.back();
    a.total_bits += static_cast<double>(entries[j]) * b;
  }
  return a;
}

}  // namespace

LevelAllocation AllocateBitsSharedMiddle(std::span<const uint64_t> entries, std::span<const double> weights,
                                         double average) {
  const size_t num_runs = entries.size();
  if (num_runs < 4) return AllocateBitsPerRun(entries, weights, average);
  // Runs 1..num_runs-2 share one bits per key. Sharing is a
  // constraint of the optimisation, not a cap applied after it: with one
  // rate F for the group, sum_j w_j F = (sum_j w_j) F and the group's memory
  // is (sum_j n_j) b, so the group is one run of sum_j n_j entries consulted
  // with weight sum_j w_j. Its weight can exceed 1, so all weights are
  // divided by the largest (scaling the objective does not move its
  // minimum; the allocator clamps weights to [0, 1]).
  const size_t last_shared = num_runs - 2;
  const std::vector<double> w = NormalizedWeights(weights, num_runs);
  std::vector<uint64_t> merged_entries = {entries[0], 0, entries[num_runs - 1]};
  std::vector<double> merged_weights = {w[0], 0, w[num_runs - 1]};
  for (size_t run = 1; run <= last_shared; ++run) {
    merged_entries[1] += entries[run];
    merged_weights[1] += w[run];
  }
  const double largest = *std::max_element(merged_weights.begin(), merged_weights.end());
  if (largest > 0) {
    for (double& x : merged_weights) x /= largest;
  }
  const LevelAllocation merged = AllocateBitsPerRun(merged_entries, merged_weights, average);
  std::vector<double> bits(num_runs);
  for (size_t run = 0; run < num_runs; ++run)
    bits[run] = merged.bits_per_key[run == 0 ? 0 : run <= last_shared ? 1 : 2];
  return Score(entries, w, std::move(bits));
}

LevelAllocation UniformAllocation(std::span<const uint64_t> entries_per_run, double average_bits_per_key) {
  return UniformAllocation(entries_per_run, {}, average_bits_per_key);
}

LevelAllocation UniformAllocation(std::span<const uint64_t> entries_per_run, std::span<const double> lookup_weights,
                                  double average_bits_per_key) {
  std::vector<double> bits(entries_per_run.size());
  for (size_t j = 0; j < bits.size(); ++j) bits[j] = entries_per_run[j] == 0 ? 0.0 : average_bits_per_key;
  return Score(entries_per_run, NormalizedWeights(lookup_weights, entries_per_run.size()), std::move(bits));
}

LevelAllocation AllocateBitsPerRun(std::span<const uint64_t> entries_per_run, double average_bits_per_key) {
  return AllocateBitsPerRun(entries_per_run, {}, average_bits_per_key);
}

LevelAllocation AllocateBitsPerRun(std::span<const uint64_t> entries_per_run, std::span<const double> lookup_weights,
                                   double average_bits_per_key) {
  const FprGrid& grid = Grid();
  const std::vector<double> w = NormalizedWeights(lookup_weights, entries_per_run.size());
  double total_entries = 0;
  for (uint64_t n : entries_per_run) total_entries += static_cast<double>(n);
  const double budget = average_bits_per_key * total_entries;

  const size_t runs = entries_per_run.size();
  auto n = [&](size_t j) { return static_cast<double>(entries_per_run[j]); };
  auto bits_of = [&](int point) { return point < 0 ? 0.0 : grid.bits[point]; };
  auto fpr_of = [&](int point) { return point < 0 ? 1.0 : grid.fpr[point]; };

  // 1. Lagrangian: for a price lambda per bit, each run takes its best grid
  //    point. Memory used falls as lambda rises; bisect (in log space) for
  //    the cheapest price whose allocation fits the budget.
  auto points_at = [&](double lambda) {
    std::vector<int> points(runs, -1);
    double used = 0;
    for (size_t j = 0; j < runs; ++j) {
      if (entries_per_run[j] == 0) continue;
      points[j] = BestPoint(grid, lambda, entries_per_run[j], w[j]);
      used += bits_of(points[j]) * n(j);
    }
    return std::pair{points, used};
  };
  double lo = 1e-30, hi = 1.0;  // at lambda = 1 a filter costs >= n >= 1 >= w: never worth it
  for (int iter = 0; iter < 200 && hi / lo > 1 + 1e-9; ++iter) {
    const double mid = std::sqrt(lo * hi);
    (points_at(mid).second > budget ? lo : hi) = mid;
  }
  std::vector<int> points = points_at(hi).first;

  // 2. The grid is discrete, so step 1 can leave budget unspent. Pairwise
  //    refinement: for each pair (i, j), try every grid point for run i and
  //    give run j the most bits the rest of the budget affords. Repeat
  //    until nothing improves (for two runs this is exhaustive).
  auto used_by = [&](const std::vector<int>& p) {
    double used = 0;
    for (size_t j = 0; j < runs; ++j) used += bits_of(p[j]) * n(j);
    return used;
  };
  auto most_affordable = [&](double bits_left, size_t j) {
    int point = -1;  // grid.bits is increasing: binary search the last that fits
    int l = 0, r = static_cast<int>(grid.bits.size()) - 1;
    while (l <= r) {
      const int m = (l + r) / 2;
      if (grid.bits[m] * n(j) <= bits_left) {
        point = m;
        l = m + 1;
      } else {
        r = m - 1;
      }
    }
    return point;
  };
  for (bool improved = true; improved;) {
    improved = false;
    for (size_t i = 0; i < runs; ++i) {
      for (size_t j = 0; j < runs; ++j) {
        if (i == j || entries_per_run[i] == 0 || entries_per_run[j] == 0) continue;
        const double others = used_by(points) - bits_of(points[i]) * n(i) - bits_of(points[j]) * n(j);
        const double current = w[i] * fpr_of(points[i]) + w[j] * fpr_of(points[j]);
        for (int pi = -1; pi < static_cast<int>(grid.bits.size()); ++pi) {
          const double left = budget - others - bits_of(pi) * n(i);
          if (left < 0) break;
          const int pj = most_affordable(left, j);
          if (w[i] * fpr_of(pi) + w[j] * fpr_of(pj) < current * (1 - 1e-12)) {
            points[i] = pi;
            points[j] = pj;
            improved = true;
            break;
          }
        }
      }
    }
  }

  std::vector<double> bits(runs);
  for (size_t j = 0; j < runs; ++j) bits[j] = bits_of(points[j]);
  LevelAllocation best = Score(entries_per_run, w, std::move(bits));
  LevelAllocation uniform = UniformAllocation(entries_per_run, w, average_bits_per_key);
  return uniform.expected_weighted_fpr_sum < best.expected_weighted_fpr_sum ? uniform : best;
}

std::vector<uint64_t> LeveledEntries(uint64_t total_entries, double size_ratio, int num_levels) {
  std::vector<uint64_t> entries(std::max(num_levels, 0));
  if (entries.empty()) return entries;
  // Level j holds T^j / sum_i T^i of the entries.
  double weight_sum = 0;
  for (int j = 0; j < num_levels; ++j) weight_sum += std::pow(size_ratio, j);
  uint64_t assigned = 0;
  for (int j = 0; j + 1 < num_levels; ++j) {
    entries[j] = static_cast<uint64_t>(std::llround(total_entries * std::pow(size_ratio, j) / weight_sum));
    assigned += entries[j];
  }
  entries.back() = total_entries - std::min(assigned, total_entries);
  return entries;
}

}  // namespace linebloom
