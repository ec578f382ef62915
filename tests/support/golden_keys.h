// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// The fixed inputs of the golden tests and the digest they pin. Keys are
// "<prefix><decimal index>"; raw hashes come from mt19937_64, whose output
// sequence the C++ standard fixes, so both are the same everywhere.

#pragma once

#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#define XXH_INLINE_ALL
#include <xxhash.h>

namespace linebloom::golden {

inline std::string Named(std::string_view prefix, uint64_t i) { return std::string(prefix).append(std::to_string(i)); }

inline std::vector<uint64_t> RandomHashes(uint64_t seed, size_t n) {
  std::mt19937_64 rng(seed);
  std::vector<uint64_t> hashes(n);
  for (auto& h : hashes) h = rng();
  return hashes;
}

// XXH3-128 of `bytes` as 32 hex digits, high half first.
inline std::string Xxh128Hex(std::string_view bytes) {
  const XXH128_hash_t h = XXH3_128bits(bytes.data(), bytes.size());
  char out[33];
  std::snprintf(out, sizeof out, "%016llx%016llx", static_cast<unsigned long long>(h.high64),
                static_cast<unsigned long long>(h.low64));
  return out;
}

}  // namespace linebloom::golden
