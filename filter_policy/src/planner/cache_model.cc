// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.

#include "linebloom/planner/cache_model.h"

#include <algorithm>
#include <cmath>

namespace linebloom::planner {

std::vector<double> CheMissProbabilities(std::span<const double> blocks, std::span<const double> rates,
                                         double capacity_blocks) {
  const size_t n = blocks.size();
  std::vector<double> miss(n, 1.0);
  if (!(capacity_blocks > 0)) return miss;
  auto requested = [&](size_t j) { return blocks[j] > 0 && rates[j] > 0; };
  double total = 0;
  for (size_t j = 0; j < n; ++j) total += requested(j) ? blocks[j] : 0;
  if (total <= capacity_blocks) {  // every requested block fits
    std::fill(miss.begin(), miss.end(), 0.0);
    return miss;
  }
  // The occupied blocks are increasing in T: bisect for C.
  auto occupied = [&](double t) {
    double sum = 0;
    for (size_t j = 0; j < n; ++j) {
      if (requested(j)) sum += blocks[j] * -std::expm1(-rates[j] / blocks[j] * t);
    }
    return sum;
  };
  double lo = 0, hi = 1;
  while (occupied(hi) < capacity_blocks && hi < 1e300) hi *= 2;
  for (int i = 0; i < 200 && hi > lo * (1 + 1e-12); ++i) {
    const double mid = 0.5 * (lo + hi);
    (occupied(mid) < capacity_blocks ? lo : hi) = mid;
  }
  const double t = 0.5 * (lo + hi);
  for (size_t j = 0; j < n; ++j) {
    if (requested(j)) miss[j] = std::exp(-rates[j] / blocks[j] * t);
  }
  return miss;
}

}  // namespace linebloom::planner
