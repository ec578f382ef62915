// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// XXH3-64 from libxxhash, compiled inline (XXH_INLINE_ALL) so the query path
// hashes without a call into the shared library. Internal header.

#pragma once

#include <cstdint>
#include <string_view>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "linebloom/key_hash.h"

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

// Keys of 17 to 32 bytes (db_bench's 17-byte absent keys, a UUID and a
// prefix): XXH3's 17-128 byte path, which is XXH3_64bits_withSeed's value
// for them too. Callers test IsMediumKey first; the hint below lets the
// compiler drop the path's branches for longer keys. A second tier, tested
// only when IsShortKey fails, so the 9-16 byte path keeps its code and its
// registers.
inline bool IsMediumKey(size_t size) { return size - 17 < 16; }
inline uint64_t HashMediumKey(std::string_view key, uint32_t seed) {
  if (!IsMediumKey(key.size())) __builtin_unreachable();
  return XXH3_len_17to128_64b(reinterpret_cast<const xxh_u8*>(key.data()), key.size(), XXH3_kSecret,
                              sizeof(XXH3_kSecret), seed);
}

// Any key's hash (HashKey's value), with keys of 9 to 32 bytes hashed
// inline and the others by a call: the loops over many keys (a build, a
// batch of queries) thus carry two short XXH3 paths, not all seven.
inline uint64_t HashKeyTiered(std::string_view key, uint32_t seed) {
  if (IsShortKey(key.size())) return HashShortKey(key, seed);
  if (IsMediumKey(key.size())) return HashMediumKey(key, seed);
  return KeyHash(key, seed);
}

inline uint64_t Checksum64(const void* data, size_t size) { return XXH3_64bits(data, size); }

}  // namespace linebloom::internal
