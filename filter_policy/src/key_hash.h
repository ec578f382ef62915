// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// XXH3-64 from libxxhash, compiled inline (XXH_INLINE_ALL) so the query path
// hashes without a call into the shared library. Internal header.

#pragma once

#include <cstdint>
#include <string_view>

#define XXH_INLINE_ALL
#include <xxhash.h>

namespace linebloom::internal {

inline uint64_t HashKey(std::string_view key, uint32_t seed) {
  return XXH3_64bits_withSeed(key.data(), key.size(), seed);
}

// XXH3's paths for keys over 16 bytes hold more values in registers; inlined
// into a single query they make every query save and restore registers and
// set up a stack frame. So single queries take two paths: keys of up to
// kShortKeyBytes hash here, inline, with no call; longer keys go to a query
// function of their own, reached by a tail call. Same value as HashKey.
inline constexpr size_t kShortKeyBytes = 16;
inline uint64_t HashShortKey(std::string_view key, uint32_t seed) {
  if (key.size() > kShortKeyBytes) __builtin_unreachable();
  return XXH3_64bits_withSeed(key.data(), key.size(), seed);
}

inline uint64_t Checksum64(const void* data, size_t size) { return XXH3_64bits(data, size); }

}  // namespace linebloom::internal
