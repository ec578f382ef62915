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

inline uint64_t Checksum64(const void* data, size_t size) { return XXH3_64bits(data, size); }

}  // namespace linebloom::internal
