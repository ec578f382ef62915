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

// XXH3 takes one of seven paths by key length. Inlined whole into a single
// query, the paths for longer and for very short keys make every query save
// and restore registers and set up a stack frame. So single queries take
// two paths: keys of 9 to 16 bytes (the common short key: a 64-bit id and a
// prefix, db_bench's 16 bytes) hash inline through XXH3's 9-16 byte path
// alone; other lengths go to a query function of their own, reached by a
// tail call. Same value as HashKey either way (XXH3_64bits_withSeed with
// 9 <= len <= 16 is exactly this call with the default secret; the kernel
// test compares the two for every length). The 9-16 byte function is called
// by name, not reached through XXH3_64bits_withSeed with a range hint: that
// would inline the long-input path too, whose 64-byte aligned accumulators
// leave a stack-realigning frame in every query.
inline bool IsShortKey(size_t size) { return size - 9 < 8; }
inline uint64_t HashShortKey(std::string_view key, uint32_t seed) {
  return XXH3_len_9to16_64b(reinterpret_cast<const xxh_u8*>(key.data()), key.size(), XXH3_kSecret, seed);
}

inline uint64_t Checksum64(const void* data, size_t size) { return XXH3_64bits(data, size); }

}  // namespace linebloom::internal
