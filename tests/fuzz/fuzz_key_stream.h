// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// What the filter-building fuzz targets read from their input: the bits
// per key, and the key stream, whose entries are keys or 64-bit hashes
// passed to AddHash directly (callers that hash their own keys do that);
// bulk hashes come from SplitMix64, so a short input can build a filter of
// thousands of keys.

#pragma once

#include <fuzzer/FuzzedDataProvider.h>

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "support/reference_filter.h"

namespace linebloom::fuzz {

struct Entry {
  bool is_hash = false;
  std::string key;
  uint64_t hash = 0;
};

// A bits-per-key setting: one of a few values that a builder clamping to
// [min, max] must clamp or default, otherwise a plain value in [lo, hi].
inline double ChooseBitsPerKey(FuzzedDataProvider& in, double min, double max, double lo, double hi) {
  const double odd[] = {std::numeric_limits<double>::quiet_NaN(),
                        std::numeric_limits<double>::infinity(),
                        -std::numeric_limits<double>::infinity(),
                        0.0,
                        -1.0,
                        min - 0.001,
                        min,
                        max,
                        max + 0.001,
                        1e300};
  const uint8_t mode = in.ConsumeIntegral<uint8_t>();
  if (mode < std::size(odd)) return odd[mode];
  return in.ConsumeFloatingPointInRange<double>(lo, hi);
}

inline uint64_t SplitMix64(uint64_t& state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15u);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
  return z ^ (z >> 31);
}

// An entry's hash under hash scheme `scheme` (1 or 3; the compact filter's
// keys hash as scheme 1's).
inline uint64_t HashOf(const Entry& e, uint32_t seed, int scheme = 1) {
  return e.is_hash ? e.hash : reference::Hash(e.key, seed, scheme);
}

// The hashes a builder keeps: one per entry, adjacent repeats dropped.
inline std::vector<uint64_t> DistinctAdjacent(const std::vector<Entry>& entries, uint32_t seed, int scheme = 1) {
  std::vector<uint64_t> out;
  for (const Entry& e : entries) {
    const uint64_t h = HashOf(e, seed, scheme);
    if (out.empty() || out.back() != h) out.push_back(h);
  }
  return out;
}

// The fuzzer's own keys, to the end of the input or until `max_entries`:
// each is inserted, inserted twice in a row (the builder drops adjacent
// repeats), passed as a raw hash, or only probed.
inline void ReadFuzzerKeys(FuzzedDataProvider& in, uint32_t seed, size_t max_entries, size_t max_key_length,
                           std::vector<Entry>* inserted, std::vector<std::string>* probes) {
  while (in.remaining_bytes() > 0 && inserted->size() + probes->size() < max_entries) {
    const uint8_t what = in.ConsumeIntegralInRange<uint8_t>(0, 3);
    std::string key = in.ConsumeRandomLengthString(max_key_length);
    switch (what) {
      case 0: inserted->push_back({.key = key}); break;
      case 1:
        inserted->push_back({.key = key});
        inserted->push_back({.key = key});
        break;
      case 2: inserted->push_back({.is_hash = true, .hash = reference::Hash(key, seed) ^ 1}); break;
      default: probes->push_back(std::move(key)); break;
    }
  }
}

}  // namespace linebloom::fuzz
