// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.

#include "linebloom/filter_format.h"

#include <algorithm>
#include <cmath>

#include "linebloom/bloom_math.h"

namespace linebloom {

size_t NumBlocksFor(size_t num_keys, double bits_per_key) {
  if (num_keys == 0) return 0;
  const double blocks = std::ceil(static_cast<double>(num_keys) * bits_per_key / kFilterBlockBits);
  if (blocks < 1) return 1;
  if (blocks > static_cast<double>(kMaxFilterBlocks)) return kMaxFilterBlocks;
  return static_cast<size_t>(blocks);
}

size_t FilterBytesFor(size_t num_keys, double bits_per_key) {
  return NumBlocksFor(num_keys, bits_per_key) * kFilterBlockBytes + kFilterTrailerBytes;
}

size_t MaxKeysFor(size_t bytes, double bits_per_key) {
  if (bytes < kFilterTrailerBytes + kFilterBlockBytes) return 0;
  const size_t blocks = std::min((bytes - kFilterTrailerBytes) / kFilterBlockBytes, kMaxFilterBlocks);
  // n = floor(blocks * 512 / bits_per_key), then stepped down past any
  // floating-point rounding so that n keys really fit in `blocks`.
  size_t n = static_cast<size_t>(static_cast<double>(blocks) * kFilterBlockBits / bits_per_key);
  while (n > 0 && NumBlocksFor(n, bits_per_key) > blocks) --n;
  return n;
}

int ProbesFor(const FilterOptions& options, size_t num_keys) {
  if (options.num_probes != 0 || num_keys == 0) return options.EffectiveProbes();
  const size_t blocks = NumBlocksFor(num_keys, options.EffectiveBitsPerKey());
  const double actual = static_cast<double>(blocks) * kFilterBlockBits / static_cast<double>(num_keys);
  const int k = blocks == 1 ? OptimalStandardProbes(actual) : OptimalBlockedProbes(actual);
  return std::clamp(k, kMinProbes, kMaxProbes);
}

}  // namespace linebloom
