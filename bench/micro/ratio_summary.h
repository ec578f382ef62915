// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// The statistic every alternating benchmark reports: one ratio per
// repetition, taken between two timings of that repetition (so drift
// between repetitions cancels), then their median with the smallest and
// largest. Lower than 1 means the measured filter took less time.

#pragma once

#include <algorithm>
#include <cstddef>
#include <span>
#include <stdexcept>
#include <vector>

namespace linebloom::bench {

struct RatioSummary {
  double median = 0;
  double min = 0;
  double max = 0;
  size_t count = 0;  // repetitions with both timings
};

// The median of `values` (the mean of the middle two for an even count);
// 0 for none.
inline double Median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const size_t mid = values.size() / 2;
  return values.size() % 2 == 1 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
}

// ns[i] / reference_ns[i] for every repetition i whose reference time is
// positive, summarised.
inline RatioSummary SummarizeRatios(std::span<const double> ns, std::span<const double> reference_ns) {
  if (ns.size() != reference_ns.size()) {
    throw std::invalid_argument("SummarizeRatios: the two timings differ in repetitions");
  }
  std::vector<double> ratios;
  for (size_t i = 0; i < ns.size(); ++i) {
    if (reference_ns[i] > 0) ratios.push_back(ns[i] / reference_ns[i]);
  }
  RatioSummary s;
  if (ratios.empty()) return s;
  s.count = ratios.size();
  s.min = *std::min_element(ratios.begin(), ratios.end());
  s.max = *std::max_element(ratios.begin(), ratios.end());
  s.median = Median(std::move(ratios));
  return s;
}

}  // namespace linebloom::bench
