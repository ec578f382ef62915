// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// docs/FORMAT.md, section 1, written out a second time as plain code: where a
// hash lands, how the bits are set and tested, and how the trailer and its
// checksum are laid out. It deliberately shares nothing with filter_policy/
// except libxxhash, so a test that compares the library against it
// (kernel_test, golden_test, the filter fuzz targets) checks the library
// against the written format, not against itself.
//
// Written for clarity, not speed: one bit at a time, no prefetching, no SIMD.

#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>  // Build takes the hashes as a vector

#define XXH_INLINE_ALL
#include <xxhash.h>

namespace linebloom::reference {

inline constexpr size_t kBlockBytes = 64;
inline constexpr size_t kTrailerBytes = 16;

// Hash scheme 3's hash of a key of 9 to 16 bytes: the low and high 64 bits
// of the 128-bit product of two 64-bit words, from four 32 x 32 -> 64-bit
// partial products (schoolbook), the way FORMAT.md states it.
inline uint64_t ShortKeyMultiply(std::string_view key, uint32_t seed) {
  const size_t len = key.size();
  auto word_at = [&](size_t offset) {
    uint64_t w = 0;
    for (int i = 7; i >= 0; --i) w = w << 8 | static_cast<unsigned char>(key[offset + i]);
    return w;
  };
  const uint64_t lo = word_at(0), hi = word_at(len - 8);
  const uint64_t x = lo ^ (0x9E3779B97F4A7C15u + seed), y = hi ^ 0xD6E8FEB86659FD93u;
  const uint64_t x0 = x & 0xFFFFFFFFu, x1 = x >> 32, y0 = y & 0xFFFFFFFFu, y1 = y >> 32;
  const uint64_t p00 = x0 * y0, p01 = x0 * y1, p10 = x1 * y0, p11 = x1 * y1;
  const uint64_t middle = (p00 >> 32) + (p01 & 0xFFFFFFFFu) + (p10 & 0xFFFFFFFFu);
  const uint64_t product_lo = (middle << 32) | (p00 & 0xFFFFFFFFu);
  const uint64_t product_hi = p11 + (p01 >> 32) + (p10 >> 32) + (middle >> 32);
  const uint64_t h = ((product_lo ^ product_hi) + (lo ^ hi ^ uint64_t{len})) * 0xD1B54A32D192ED03u;
  return h ^ (h >> 32);
}

// The key's hash under hash scheme `scheme` (1 or 3): XXH3-64, except
// scheme 3's keys of 9 to 16 bytes.
inline uint64_t Hash(std::string_view key, uint32_t seed, int scheme = 1) {
  if (scheme == 3 && key.size() >= 9 && key.size() <= 16) return ShortKeyMultiply(key, seed);
  return XXH3_64bits_withSeed(key.data(), key.size(), seed);
}

// The hash scheme byte of a filter whose trailer is valid.
inline int Scheme(std::string_view filter) {
  return reinterpret_cast<const unsigned char*>(filter.data())[filter.size() - kTrailerBytes + 5];
}

inline uint32_t Le32(const unsigned char* p) {
  return uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 | uint32_t{p[3]} << 24;
}

// b = ((h mod 2^32) * N) >> 32
inline uint64_t Block(uint64_t h, uint64_t num_blocks) { return ((h & 0xFFFFFFFFu) * num_blocks) >> 32; }

// Calls visit(bit) for the k bit positions (0..511) of hash h in its block.
template <typename Visit>
void ForEachProbeBit(uint64_t h, int num_probes, Visit visit) {
  uint32_t a = static_cast<uint32_t>(h >> 32);
  for (int j = 0; j < num_probes; ++j) {
    visit(a >> 23);
    a = static_cast<uint32_t>(uint64_t{a} * 0x9E3779B9u);
  }
}

// Tests hash h against `blocks`, the num_blocks blocks of a filter (its
// bytes after the lead).
inline bool MayContainHash(std::string_view blocks, uint64_t num_blocks, int num_probes, uint64_t h) {
  if (num_blocks == 0) return false;
  const auto* block = reinterpret_cast<const unsigned char*>(blocks.data()) + Block(h, num_blocks) * kBlockBytes;
  bool all_set = true;
  ForEachProbeBit(h, num_probes, [&](unsigned bit) {
    if (((block[bit / 8] >> (bit % 8)) & 1) == 0) all_set = false;
  });
  return all_set;
}

// The number of zero bytes before the first block of a filter whose trailer
// is valid: trailer byte 6 in version 2, none in version 1.
inline size_t LeadBytes(std::string_view filter) {
  const auto* t = reinterpret_cast<const unsigned char*>(filter.data()) + filter.size() - kTrailerBytes;
  return t[7] == 2 ? t[6] : 0;
}

// The whole filter (lead + blocks + trailer + checksum) for these hashes,
// of keys hashed by `scheme`: version 1 without lead bytes, version 2 with.
inline std::string Build(const std::vector<uint64_t>& hashes, uint64_t num_blocks, int num_probes, uint32_t seed,
                         size_t lead = 0, int scheme = 1) {
  std::string out(lead + num_blocks * kBlockBytes + kTrailerBytes, '\0');
  auto* bytes = reinterpret_cast<unsigned char*>(out.data()) + lead;
  for (uint64_t h : hashes) {
    unsigned char* block = bytes + Block(h, num_blocks) * kBlockBytes;
    ForEachProbeBit(h, num_probes,
                    [&](unsigned bit) { block[bit / 8] |= static_cast<unsigned char>(1u << (bit % 8)); });
  }
  unsigned char* t = bytes + num_blocks * kBlockBytes;
  for (int i = 0; i < 4; ++i) t[i] = static_cast<unsigned char>(seed >> (8 * i));
  t[4] = static_cast<unsigned char>(num_probes);
  t[5] = static_cast<unsigned char>(scheme);  // hash scheme: 1 or 3 (the hashes' own)
  t[6] = static_cast<unsigned char>(lead);    // version 1: reserved, 0
  t[7] = lead == 0 ? 1 : 2;                   // format version
  t[8] = 'L', t[9] = 'B', t[10] = 'L', t[11] = 'M';
  const uint32_t sum = static_cast<uint32_t>(XXH3_64bits(out.data(), out.size() - 4));
  for (int i = 0; i < 4; ++i) t[12 + i] = static_cast<unsigned char>(sum >> (8 * i));
  return out;
}

// What a reader must decide about `bytes`, in the order FORMAT.md lists the
// checks. Returns 0 for a valid filter, else the 1-based index of the first
// failing check (1 too short, 2 magic, 3 version, 4 hash scheme, 5 probes,
// 6 reserved byte / lead bytes, 7 size, 8 too many blocks, 9 checksum).
inline int FirstFailingCheck(std::string_view bytes, bool verify_checksum) {
  if (bytes.size() < kTrailerBytes) return 1;
  const auto* t = reinterpret_cast<const unsigned char*>(bytes.data()) + bytes.size() - kTrailerBytes;
  if (t[8] != 'L' || t[9] != 'B' || t[10] != 'L' || t[11] != 'M') return 2;
  if (t[7] != 1 && t[7] != 2) return 3;
  if (t[5] != 1 && t[5] != 3) return 4;
  if (t[4] < 1 || t[4] > 24) return 5;
  if (t[7] == 1 && t[6] != 0) return 6;
  const size_t lead = t[7] == 2 ? t[6] : 0;
  if (lead > 63) return 6;
  if (bytes.size() - kTrailerBytes < lead) return 7;
  const size_t body = bytes.size() - kTrailerBytes - lead;
  if (body % kBlockBytes != 0) return 7;
  if (body / kBlockBytes > 0xFFFFFFFFu) return 8;
  if (verify_checksum && Le32(t + 12) != static_cast<uint32_t>(XXH3_64bits(bytes.data(), bytes.size() - 4))) {
    return 9;
  }
  return 0;
}

}  // namespace linebloom::reference
