// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.

#include <algorithm>
#include <cmath>

#include "linebloom/bloom_math.h"
#include "linebloom/filter_options.h"

namespace linebloom {

FilterOptions FilterOptions::ForFalsePositiveRate(double target_fpr, uint32_t seed) {
  FilterOptions options;
  options.bits_per_key = BlockedBitsPerKeyForFpr(target_fpr);
  options.num_probes = OptimalBlockedProbes(options.bits_per_key);
  options.seed = seed;
  return options;
}

double FilterOptions::EffectiveBitsPerKey() const {
  if (std::isnan(bits_per_key)) return 10.0;
  return std::clamp(bits_per_key, kMinBitsPerKey, kMaxBitsPerKey);
}

int FilterOptions::EffectiveProbes() const {
  if (num_probes == 0) return OptimalBlockedProbes(EffectiveBitsPerKey());
  return std::clamp(num_probes, kMinProbes, kMaxProbes);
}

}  // namespace linebloom
