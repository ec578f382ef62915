// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// XXH3-64 from libxxhash, compiled inline (XXH_INLINE_ALL) so the query path
// hashes without a call into the shared library. Internal header.

#pragma once

#include <bit>
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

// Hash scheme 3's hash of a key of 9 to 16 bytes (docs/FORMAT.md): its
// first and last 8 bytes as little-endian words lo and hi (overlapping
// below 16 bytes), each offset by a constant and multiplied to 128 bits,
// the halves xored: every bit of the upper half depends on every bit of
// both words. lo ^ hi ^ len is added, which keeps keys apart where a
// factor is 0 (lo or hi equal to its constant) and keys of different
// lengths whose words agree. The product is still linear in a key that
// counts in a few of its bits (a counter c in hi adds c * lo' * 2^s to it,
// an arithmetic progression in both halves), which would give keys of a
// counter correlated blocks and probes; a multiply by an odd constant
// carries every bit of x into the high 32 bits, and the xorshift brings
// those into the low 32, where the Bloom filter takes the block (fastrange
// of the low 32 bits) and the probes (the high 32). That finish is XXH3's
// avalanche (xorshift, multiply, xorshift) without its first xorshift; the
// 9-16 byte path of XXH3 also byte-swaps and adds a word, so this is a few
// instructions and a few cycles of latency shorter.
//   simple form: h = XXH3_64bits_withSeed(key, len, seed) (scheme 1).
inline constexpr uint64_t kShortKeyLoOffset = 0x9E3779B97F4A7C15;
inline constexpr uint64_t kShortKeyHiOffset = 0xD6E8FEB86659FD93;
inline constexpr uint64_t kShortKeyFinal = 0xD1B54A32D192ED03;
inline uint64_t HashShortKeyMultiply(std::string_view key, uint32_t seed) {
  const size_t len = key.size();
  uint64_t lo, hi;
  __builtin_memcpy(&lo, key.data(), 8);
  __builtin_memcpy(&hi, key.data() + len - 8, 8);
  if constexpr (std::endian::native == std::endian::big) {
    lo = __builtin_bswap64(lo);
    hi = __builtin_bswap64(hi);
  }
  const unsigned __int128 product =
      static_cast<unsigned __int128>(lo ^ (kShortKeyLoOffset + seed)) * (hi ^ kShortKeyHiOffset);
  const uint64_t h =
      ((static_cast<uint64_t>(product) ^ static_cast<uint64_t>(product >> 64)) + (lo ^ hi ^ len)) * kShortKeyFinal;
  return h ^ (h >> 32);
}

// A scheme's hash of a key of 9 to 16 bytes.
template <KeyHashScheme kScheme>
inline uint64_t HashShortKeyOf(std::string_view key, uint32_t seed) {
  if constexpr (kScheme == KeyHashScheme::kShortKeyMultiply) {
    return HashShortKeyMultiply(key, seed);
  } else {
    return HashShortKey(key, seed);
  }
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
// The same under scheme kScheme: only keys of 9 to 16 bytes differ.
template <KeyHashScheme kScheme = KeyHashScheme::kXxh3>
inline uint64_t HashKeyTiered(std::string_view key, uint32_t seed) {
  if (IsShortKey(key.size())) return HashShortKeyOf<kScheme>(key, seed);
  if (IsMediumKey(key.size())) return HashMediumKey(key, seed);
  return KeyHash(key, seed);
}

// A scheme's hash of any key, every path inline.
template <KeyHashScheme kScheme>
inline uint64_t HashKeyOf(std::string_view key, uint32_t seed) {
  if (kScheme == KeyHashScheme::kShortKeyMultiply && IsShortKey(key.size())) return HashShortKeyMultiply(key, seed);
  return HashKey(key, seed);
}
inline uint64_t HashKey(std::string_view key, uint32_t seed, KeyHashScheme scheme) {
  return scheme == KeyHashScheme::kShortKeyMultiply ? HashKeyOf<KeyHashScheme::kShortKeyMultiply>(key, seed)
                                                    : HashKey(key, seed);
}

inline uint64_t Checksum64(const void* data, size_t size) { return XXH3_64bits(data, size); }

}  // namespace linebloom::internal
