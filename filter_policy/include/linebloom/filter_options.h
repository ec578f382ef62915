// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// How a linebloom filter is sized: bits per key (fractional allowed) or a
// target false-positive rate, and the number of probes per key.

#pragma once

#include <cstdint>

#include "linebloom/key_hash.h"

namespace linebloom {

// The number of probes a filter may use. The reader rejects anything else.
inline constexpr int kMinProbes = 1;
inline constexpr int kMaxProbes = 24;

// Bits per key are clamped to this range (as RocksDB does for its own Bloom
// filter). 100 bits/key already gives a false-positive rate of ~1e-10.
inline constexpr double kMinBitsPerKey = 1.0;
inline constexpr double kMaxBitsPerKey = 100.0;

struct FilterOptions {
  // Memory per distinct key. 9.9 and 10 give different filters.
  double bits_per_key = 10.0;
  // Probes per key; 0 picks the k that minimises the false-positive rate at
  // the bits per key the filter has after rounding up to whole blocks
  // (ProbesFor in filter_format.h).
  int num_probes = 0;
  // Seed of the key hash. Filters that are unioned or intersected must
  // share it (and their size and probes).
  uint32_t seed = 0;
  // How keys are hashed (key_hash.h); a value other than the two is
  // scheme 1. Unioned or intersected filters share it too.
  KeyHashScheme hash_scheme = KeyHashScheme::kXxh3;

  // The smallest bits per key (and its best k) whose blocked-filter
  // false-positive rate is at most `target_fpr` (clamped to [1e-10, 1]).
  static FilterOptions ForFalsePositiveRate(double target_fpr, uint32_t seed = 0);

  // bits_per_key clamped to [kMinBitsPerKey, kMaxBitsPerKey] (NaN -> 10).
  double EffectiveBitsPerKey() const;
  // num_probes if set (clamped to [kMinProbes, kMaxProbes]), else the
  // blocked optimum at bits_per_key (before any rounding to whole blocks).
  int EffectiveProbes() const;
};

}  // namespace linebloom
