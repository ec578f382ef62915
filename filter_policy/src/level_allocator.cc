// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.

#include "linebloom/level_allocator.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <utility>
#include <vector>

#include "linebloom/bloom_math.h"
#include "linebloom/compact_math.h"
#include "linebloom/filter_options.h"

namespace linebloom {
namespace {

constexpr int kGridPerBit = 8;

// The key count the compact kind's grid is priced at: its model's rate
// depends on the key count only through the spread of small filters' line
// loads, and CompactShapeFor treats every count from 2^16 up alike.
constexpr size_t kCompactGridKeys = size_t{1} << 16;

// A kind's false-positive rate at b bits per key: FPR_blk at the best probe
// count for the Bloom filter, the compact model for the compact filter.
double KindFpr(FilterKind kind, double b) {
  return kind == FilterKind::kCompact ? CompactFpr(b, kCompactGridKeys) : BlockedFpr(b, OptimalBlockedProbes(b));
}

// A kind's rates on its grid: the Bloom filter's b = 1 + i / 8 up to
// kMaxLevelBitsPerKey (505 points), the compact filter's b =
// kMinCompactBitsPerKey + i / 8 up to kMaxCompactBitsPerKey. Computed once
// per process and shared; read-only afterwards.
struct FprGrid {
  std::vector<double> bits, fpr;
  // The rates never rise with the bits, from at most 1 (no filter's rate).
  bool rates_fall = false;
  explicit FprGrid(FilterKind kind) {
    const bool compact = kind == FilterKind::kCompact;
    const double first = compact ? kMinCompactBitsPerKey : 1.0;
    const double last = compact ? kMaxCompactBitsPerKey : kMaxLevelBitsPerKey;
    for (int i = 0; first + static_cast<double>(i) / kGridPerBit <= last; ++i) {
      const double b = first + static_cast<double>(i) / kGridPerBit;
      bits.push_back(b);
      fpr.push_back(KindFpr(kind, b));
    }
    rates_fall = fpr.front() <= 1.0 && std::is_sorted(fpr.rbegin(), fpr.rend());
  }
};

const FprGrid& Grid(FilterKind kind) {
  // Thread-safe initialisation (C++11 magic statics).
  if (kind == FilterKind::kCompact) {
    static const FprGrid compact(FilterKind::kCompact);
    return compact;
  }
  static const FprGrid bloom(FilterKind::kBloom);
  return bloom;
}

// The grid point (or -1 for "no filter") minimising w FPR(b) + lambda n b,
// the first of equal ones, among the points [from, to] (-1 <= from; from =
// -1 lets "no filter" compete). The grid's bits rise, so once lambda n b
// alone reaches the best cost no later point can be cheaper (w FPR >= 0, and
// a rounded sum is at least its larger non-negative term): the scan stops
// there with the very answer the full scan gives.
int BestPoint(const FprGrid& grid, double lambda, uint64_t n, double w, int from, int to) {
  int best = -1;
  double best_cost = w;  // no filter: every consulting lookup reads a block, no memory
  const double price = lambda * static_cast<double>(n);
  int i = 0;
  if (from >= 0) {
    best = from;
    best_cost = w * grid.fpr[from] + price * grid.bits[from];
    i = from + 1;
  }
  for (; i <= to; ++i) {
    const double memory = price * grid.bits[i];
    if (memory >= best_cost) break;
    const double cost = w * grid.fpr[i] + memory;
    if (cost < best_cost) {
      best_cost = cost;
      best = i;
    }
  }
  return best;
}

// A kind's rate at b: every allocation's bits are grid points (or the
// uniform average), and a grid point's rate is KindFpr of that very double,
// so it is read from the grid; any other b is computed once per thread for
// the last few distinct (kind, b) asked (a uniform allocation asks one b for
// every run, and a planner asks the same average again and again). Both give
// exactly KindFpr(kind, b).
double RateAt(FilterKind kind, double b) {
  const FprGrid& grid = Grid(kind);
  const double offset = (b - grid.bits.front()) * kGridPerBit;
  if (offset >= 0 && offset < static_cast<double>(grid.bits.size())) {
    const auto i = static_cast<size_t>(std::lround(offset));
    if (i < grid.bits.size() && grid.bits[i] == b) return grid.fpr[i];
  }
  struct Entry {
    FilterKind kind = FilterKind::kBloom;
    double bits = -1, fpr = 1;
  };
  thread_local std::array<Entry, 8> memo;
  thread_local size_t next = 0;
  for (const Entry& e : memo) {
    if (e.bits == b && e.kind == kind) return e.fpr;
  }
  const double fpr = KindFpr(kind, b);
  memo[next++ % memo.size()] = {kind, b, fpr};
  return fpr;
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

// Kind j of `kinds`: kCompact as given, anything else (or missing) kBloom.
std::vector<FilterKind> NormalizedKinds(std::span<const FilterKind> kinds, size_t runs) {
  std::vector<FilterKind> k(runs, FilterKind::kBloom);
  for (size_t j = 0; j < runs && j < kinds.size(); ++j) {
    if (kinds[j] == FilterKind::kCompact) k[j] = FilterKind::kCompact;
  }
  return k;
}

LevelAllocation Score(std::span<const uint64_t> entries, std::span<const double> weights,
                      std::span<const FilterKind> kinds, std::vector<double> bits) {
  LevelAllocation a;
  a.bits_per_key = std::move(bits);
  a.kinds.assign(kinds.begin(), kinds.end());
  for (size_t j = 0; j < entries.size(); ++j) {
    const double b = a.bits_per_key[j];
    const bool bloom = kinds[j] != FilterKind::kCompact;
    a.num_probes.push_back(b > 0 && bloom ? OptimalBlockedProbes(b) : 0);
    const double fpr = b > 0 ? RateAt(kinds[j], b) : 1.0;
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
  return AllocateBitsSharedMiddle(entries, weights, {}, average);
}

LevelAllocation AllocateBitsSharedMiddle(std::span<const uint64_t> entries, std::span<const double> weights,
                                         std::span<const FilterKind> given_kinds, double average) {
  const size_t num_runs = entries.size();
  if (num_runs < 4) return AllocateBitsPerRun(entries, weights, given_kinds, average);
  // Runs 1..num_runs-2 share one bits per key. Sharing is a
  // constraint of the optimisation, not a cap applied after it: with one
  // rate F for the group, sum_j w_j F = (sum_j w_j) F and the group's memory
  // is (sum_j n_j) b, so the group is one run of sum_j n_j entries consulted
  // with weight sum_j w_j. Its weight can exceed 1, so all weights are
  // divided by the largest (scaling the objective does not move its
  // minimum; the allocator clamps weights to [0, 1]).
  const size_t last_shared = num_runs - 2;
  const std::vector<double> w = NormalizedWeights(weights, num_runs);
  std::vector<FilterKind> kinds = NormalizedKinds(given_kinds, num_runs);
  std::vector<uint64_t> merged_entries = {entries[0], 0, entries[num_runs - 1]};
  std::vector<double> merged_weights = {w[0], 0, w[num_runs - 1]};
  std::vector<FilterKind> merged_kinds = {kinds[0], FilterKind::kCompact, kinds[num_runs - 1]};
  for (size_t run = 1; run <= last_shared; ++run) {
    merged_entries[1] += entries[run];
    merged_weights[1] += w[run];
    if (kinds[run] != FilterKind::kCompact) merged_kinds[1] = FilterKind::kBloom;
  }
  const double largest = *std::max_element(merged_weights.begin(), merged_weights.end());
  if (largest > 0) {
    for (double& x : merged_weights) x /= largest;
  }
  const LevelAllocation merged = AllocateBitsPerRun(merged_entries, merged_weights, merged_kinds, average);
  std::vector<double> bits(num_runs);
  for (size_t run = 0; run < num_runs; ++run) {
    const size_t group = run == 0 ? 0 : run <= last_shared ? 1 : 2;
    bits[run] = merged.bits_per_key[group];
    kinds[run] = merged_kinds[group];
  }
  return Score(entries, w, kinds, std::move(bits));
}

LevelAllocation UniformAllocation(std::span<const uint64_t> entries_per_run, double average_bits_per_key) {
  return UniformAllocation(entries_per_run, {}, average_bits_per_key);
}

LevelAllocation UniformAllocation(std::span<const uint64_t> entries_per_run, std::span<const double> lookup_weights,
                                  double average_bits_per_key) {
  return UniformAllocation(entries_per_run, lookup_weights, {}, average_bits_per_key);
}

LevelAllocation UniformAllocation(std::span<const uint64_t> entries_per_run, std::span<const double> lookup_weights,
                                  std::span<const FilterKind> kinds, double average_bits_per_key) {
  const size_t runs = entries_per_run.size();
  std::vector<double> bits(runs);
  for (size_t j = 0; j < runs; ++j) bits[j] = entries_per_run[j] == 0 ? 0.0 : average_bits_per_key;
  return Score(entries_per_run, NormalizedWeights(lookup_weights, runs), NormalizedKinds(kinds, runs), std::move(bits));
}

LevelAllocation AllocateBitsPerRun(std::span<const uint64_t> entries_per_run, double average_bits_per_key) {
  return AllocateBitsPerRun(entries_per_run, {}, average_bits_per_key);
}

namespace {

// The runs of one allocation, each on its kind's grid: point -1 is "no
// filter".
struct GridRuns {
  std::vector<const FprGrid*> grids;
  std::span<const uint64_t> entries;
  std::vector<double> w;

  size_t size() const { return entries.size(); }
  double n(size_t j) const { return static_cast<double>(entries[j]); }
  int points(size_t j) const { return static_cast<int>(grids[j]->bits.size()); }
  double bits_of(size_t j, int point) const { return point < 0 ? 0.0 : grids[j]->bits[point]; }
  double fpr_of(size_t j, int point) const { return point < 0 ? 1.0 : grids[j]->fpr[point]; }
  double Used(const std::vector<int>& p) const {
    double used = 0;
    for (size_t j = 0; j < size(); ++j) used += bits_of(j, p[j]) * n(j);
    return used;
  }
  // The last grid point whose bits for run j fit in bits_left (a grid's
  // bits increase: binary search), -1 if none.
  int MostAffordable(double bits_left, size_t j) const {
    int point = -1;
    int l = 0, r = points(j) - 1;
    while (l <= r) {
      const int m = (l + r) / 2;
      if (grids[j]->bits[m] * n(j) <= bits_left) {
        point = m;
        l = m + 1;
      } else {
        r = m - 1;
      }
    }
    return point;
  }
};

// Each run's best grid point at price lambda per bit, and the bits used.
// Run j's point is looked for in [from[j], to[j]] only: bounds from prices
// around lambda (LagrangianPoints).
std::pair<std::vector<int>, double> PointsAt(const GridRuns& runs, double lambda, const std::vector<int>& from,
                                             const std::vector<int>& to) {
  std::vector<int> points(runs.size(), -1);
  double used = 0;
  for (size_t j = 0; j < runs.size(); ++j) {
    if (runs.entries[j] == 0) continue;
    points[j] = BestPoint(*runs.grids[j], lambda, runs.entries[j], runs.w[j], from[j], to[j]);
    used += runs.bits_of(j, points[j]) * runs.n(j);
  }
  return {points, used};
}

// The Lagrangian step: memory used falls as lambda rises; bisect (in log
// space) for the cheapest price whose allocation fits the budget.
// A run's best point only moves down the grid as the price rises: if
// lambda < lambda' and a point c after a = best(lambda) were best at
// lambda' (the first of equal ones), cost_c - cost_a = w (FPR_c - FPR_a) +
// lambda n (b_c - b_a) would be >= 0 at lambda and < 0 at lambda', yet it
// grows with lambda (b_c > b_a). So each price's points lie between those
// of the bracket's ends, and the bisection scans only those:
//   simple form: every PointsAt over the whole grid, from -1 (no filter)
//   to the last point.
std::vector<int> LagrangianPoints(const GridRuns& runs, double budget) {
  double lo = 1e-30, hi = 1.0;  // at lambda = 1 a filter costs >= n >= 1 >= w: never worth it
  std::vector<int> at_hi(runs.size(), -1), at_lo(runs.size());
  for (size_t j = 0; j < runs.size(); ++j) at_lo[j] = runs.points(j) - 1;
  bool hi_scanned = false;
  for (int iter = 0; iter < 200 && hi / lo > 1 + 1e-9; ++iter) {
    const double mid = std::sqrt(lo * hi);
    auto [points, used] = PointsAt(runs, mid, at_hi, at_lo);
    if (used > budget) {
      lo = mid;
      at_lo = std::move(points);
    } else {
      hi = mid;
      at_hi = std::move(points);
      hi_scanned = true;
    }
  }
  return hi_scanned ? at_hi : PointsAt(runs, hi, at_hi, at_lo).first;
}

// Tries the grid points of run i in turn, giving run j the most bits the
// rest of the budget affords, and takes the first pair that lowers their
// weighted cost:
//   for (pi = -1; pi < points(i); ++pi) {
//     left = budget - others - bits(i, pi) n_i;  if (left < 0) break;
//     pj = MostAffordable(left, j);
//     if (w_i FPR_i(pi) + w_j FPR_j(pj) < bar) return the pair (pi, pj);
//   }
// Both terms move monotonically with pi (bits and left are monotone in the
// floating-point sums too), so the scan goes by stretches, not points:
//   - left falls as pi rises, so pj only falls; pi runs in stretches of one
//     pj each, and a stretch's end is a binary search on left;
//   - within a stretch j's term is fixed, and where i's grid rates never
//     rise with its bits, i's term only falls, so the pair's test is false
//     up to some point and true from there: a binary search finds the first
//     point passing it, or shows that none does;
//   - where j's rates never rise, j's term only grows from stretch to
//     stretch, so once it alone reaches the bar no later pair passes.
// The pair found, and every value compared, are those of the scan above.
bool ImprovePair(const GridRuns& runs, double budget, size_t i, size_t j, std::vector<int>* points) {
  std::vector<int>& p = *points;
  const double others = runs.Used(p) - runs.bits_of(i, p[i]) * runs.n(i) - runs.bits_of(j, p[j]) * runs.n(j);
  const double current = runs.w[i] * runs.fpr_of(i, p[i]) + runs.w[j] * runs.fpr_of(j, p[j]);
  const double bar = current * (1 - 1e-12);
  const auto left_at = [&](int pi) { return budget - others - runs.bits_of(i, pi) * runs.n(i); };
  const auto own_at = [&](int pi) { return runs.w[i] * runs.fpr_of(i, pi); };
  // The first point in [from, to] for which `pass` holds, given that it
  // holds from some point on (to + 1 if it holds nowhere): steps of 1, 2,
  // 4, ... from `from`, then a binary search in the last step, so a short
  // stretch costs few tests.
  const auto first_passing = [](int from, int to, const auto& pass) {
    int lo = from, step = 1;
    while (lo <= to && !pass(lo)) {
      lo += step;
      step *= 2;
    }
    if (step == 1) return lo;  // `from` passes, or the range is empty
    // The last point tested before lo failed: lo - step / 2.
    int hi = std::min(lo, to + 1);
    lo = lo - step / 2 + 1;
    while (lo < hi) {
      const int mid = lo + (hi - lo) / 2;
      if (pass(mid)) {
        hi = mid;
      } else {
        lo = mid + 1;
      }
    }
    return lo;
  };
  // Points of i up to `last` leave j a budget of at least 0.
  const int last = first_passing(-1, runs.points(i) - 1, [&](int pi) { return left_at(pi) < 0; }) - 1;
  // Points whose own term reaches the bar cannot lower the pair (j's term
  // is >= 0); where i's rates fall, those are a prefix, skipped at once.
  const bool own_falls = runs.grids[i]->rates_fall;
  int pi = own_falls ? first_passing(-1, last, [&](int q) { return own_at(q) < bar; }) : -1;
  int pj = pi <= last ? runs.MostAffordable(left_at(pi), j) : -1;
  while (pi <= last) {
    // pj for this pi: walked down from the last stretch's.
    const double left = left_at(pi);
    while (pj >= 0 && runs.grids[j]->bits[pj] * runs.n(j) > left) --pj;
    const double theirs = runs.w[j] * runs.fpr_of(j, pj);
    // The stretch [pi, end] of this pj.
    const double need = pj < 0 ? 0.0 : runs.grids[j]->bits[pj] * runs.n(j);
    const int end = pj < 0 ? last : first_passing(pi, last, [&](int q) { return need > left_at(q); }) - 1;
    const auto pass = [&](int q) { return own_at(q) + theirs < bar; };
    int found = end + 1;
    if (own_falls) {
      // The test passes from some point on, so if not at the stretch's
      // end, nowhere in it (most stretches, where no pair improves).
      found = pass(end) ? first_passing(pi, end, pass) : end + 1;
    } else {
      for (int q = pi; q <= end && found > end; ++q) {
        if (pass(q)) found = q;
      }
    }
    if (found <= end) {
      p[i] = found;
      p[j] = pj;
      return true;
    }
    if (runs.grids[j]->rates_fall && theirs >= bar) return false;
    pi = end + 1;
  }
  return false;
}

// The grid is discrete, so the Lagrangian step can leave budget unspent.
// Pairwise refinement: re-split the budget between every two runs until
// nothing improves (for two runs this is exhaustive).
void RefinePairs(const GridRuns& runs, double budget, std::vector<int>* points) {
  for (bool improved = true; improved;) {
    improved = false;
    for (size_t i = 0; i < runs.size(); ++i) {
      for (size_t j = 0; j < runs.size(); ++j) {
        if (i == j || runs.entries[i] == 0 || runs.entries[j] == 0) continue;
        if (ImprovePair(runs, budget, i, j, points)) improved = true;
      }
    }
  }
}

// Whether the uniform allocation at `average` can score below `best` (its
// weighted sum). Its score sums w_j KindFpr(kind_j, average), and average is
// seldom a grid point (a planner's average moves with every file), so a
// Bloom run's term would be a BlockedFpr sum of ~150 Poisson terms, several
// times the rest of an allocation. But the Bloom filter's rate never rises
// with the bits (at the best k it is a minimum over k of rates that each
// fall as a block holds fewer keys), so its rate at the grid point at or
// above the average bounds the term from below; a compact run's term is
// computed as Score computes it (the compact model's rate can rise a little
// between grid points, where one shape gives way to another). If even the
// bound reaches `best`, uniform cannot win and is not scored. The Bloom
// bounds are lowered by a relative 1e-9 (the model's rounding is ~1e-15),
// and the terms and their sum are taken in the order Score takes them, so
// the answer is the one scoring uniform gives. Off the Bloom grid's range,
// or on a grid whose stored rates rise somewhere, uniform is scored.
//   simple form: always score uniform
bool UniformMayWin(const GridRuns& runs, std::span<const FilterKind> kinds, double average, double best) {
  if (!(average > 0)) return true;
  double bound = 0;
  for (size_t j = 0; j < runs.size(); ++j) {
    if (runs.entries[j] == 0) continue;
    if (kinds[j] == FilterKind::kCompact) {
      bound += runs.w[j] * RateAt(FilterKind::kCompact, average);
      continue;
    }
    const FprGrid& grid = *runs.grids[j];
    if (!grid.rates_fall || average < grid.bits.front() || average > grid.bits.back()) return true;
    const auto above = std::lower_bound(grid.bits.begin(), grid.bits.end(), average);
    bound += runs.w[j] * (grid.fpr[above - grid.bits.begin()] * (1 - 1e-9));
  }
  return bound < best;
}

}  // namespace

LevelAllocation AllocateBitsPerRun(std::span<const uint64_t> entries_per_run, std::span<const double> lookup_weights,
                                   double average_bits_per_key) {
  return AllocateBitsPerRun(entries_per_run, lookup_weights, {}, average_bits_per_key);
}

LevelAllocation AllocateBitsPerRun(std::span<const uint64_t> entries_per_run, std::span<const double> lookup_weights,
                                   std::span<const FilterKind> given_kinds, double average_bits_per_key) {
  const std::vector<FilterKind> kinds = NormalizedKinds(given_kinds, entries_per_run.size());
  GridRuns runs{{}, entries_per_run, NormalizedWeights(lookup_weights, entries_per_run.size())};
  for (FilterKind kind : kinds) runs.grids.push_back(&Grid(kind));
  double total_entries = 0;
  for (uint64_t n : entries_per_run) total_entries += static_cast<double>(n);
  const double budget = average_bits_per_key * total_entries;

  std::vector<int> points = LagrangianPoints(runs, budget);
  RefinePairs(runs, budget, &points);

  std::vector<double> bits(runs.size());
  for (size_t j = 0; j < runs.size(); ++j) bits[j] = runs.bits_of(j, points[j]);
  LevelAllocation best = Score(entries_per_run, runs.w, kinds, std::move(bits));
  if (!UniformMayWin(runs, kinds, average_bits_per_key, best.expected_weighted_fpr_sum)) return best;
  LevelAllocation uniform = UniformAllocation(entries_per_run, runs.w, kinds, average_bits_per_key);
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
