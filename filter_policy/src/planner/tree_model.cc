// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.

#include "linebloom/planner/tree_model.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include "key_space.h"
#include "linebloom/level_allocator.h"

namespace linebloom::planner {
namespace {

// The model's entries are relative; a large unit keeps the smallest level of
// a deep tree with a big ratio well above zero entries after rounding
// (2^60 / 100^8 is still 1e2).
constexpr uint64_t kModelEntries = uint64_t{1} << 60;

// Keys per whole key space of the recent filters of `level`; nullopt if too
// few were seen (or they have no width: one key each).
std::optional<double> Density(const TrackedTree& tree, const KeySpace& space, int level) {
  auto it = tree.recent.find(level);
  if (it == tree.recent.end() || it->second.size() < TrackedTree::kMinObservations) return std::nullopt;
  double keys = 0, widths = 0;
  for (const TrackedTree::Filter& f : it->second) {
    keys += static_cast<double>(f.keys);
    widths += space.Fraction(f.smallest, f.largest);
  }
  if (!(widths > 0)) return std::nullopt;
  return keys / widths;
}

}  // namespace

std::vector<uint64_t> ModelEntries(double size_ratio, int num_non_l0_levels) {
  std::vector<uint64_t> levels = LeveledEntries(kModelEntries, size_ratio, std::max(num_non_l0_levels, 1));
  for (auto& n : levels) n = std::max<uint64_t>(n, 1);
  std::vector<uint64_t> runs;
  runs.reserve(levels.size() + 1);
  runs.push_back(levels.front());  // L0: as large as the shallowest level
  runs.insert(runs.end(), levels.begin(), levels.end());
  return runs;
}

namespace {

// L0's weight (the mean fraction its recent files span), unclamped; 1 with
// too few of them.
double MeanL0Width(const TrackedTree& tree, const KeySpace& space) {
  auto it = tree.recent.find(0);
  if (it == tree.recent.end() || it->second.size() < TrackedTree::kMinObservations) return 1.0;
  double widths = 0;
  for (const TrackedTree::Filter& f : it->second) widths += space.Fraction(f.smallest, f.largest);
  return widths / static_cast<double>(it->second.size());
}

}  // namespace

double L0LookupWeight(const TrackedTree& tree) {
  const KeySpace space(tree.smallest, tree.largest);
  if (!tree.HasShape() || !space.HasWidth()) return 1.0;
  return std::clamp(MeanL0Width(tree, space), kMinLookupWeight, 1.0);
}

std::vector<double> LookupWeights(const TrackedTree& tree, double size_ratio) {
  if (!tree.HasShape()) return {};
  const int s = tree.shallowest, d = tree.deepest;
  std::vector<double> weights(tree.NumRuns(), 1.0);
  const KeySpace space(tree.smallest, tree.largest);
  if (!space.HasWidth()) return weights;  // one key, or nothing seen: no scale

  weights[0] = MeanL0Width(tree, space);
  // Levels above the deepest: c_l = T^(l-D) rho_D / rho_l.
  if (const std::optional<double> deepest = Density(tree, space, d)) {
    for (int level = s; level < d; ++level) {
      if (const std::optional<double> rho = Density(tree, space, level)) {
        weights[tree.RunOfLevel(level)] = std::pow(size_ratio, level - d) * *deepest / *rho;
      }
    }
  }
  for (double& w : weights) w = std::clamp(w, kMinLookupWeight, 1.0);
  return weights;
}

}  // namespace linebloom::planner
