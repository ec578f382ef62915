// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// The 16-byte trailer that follows the blocks (byte layout in docs/FORMAT.md):
//
//   offset size field
//   0      4    hash seed, little-endian
//   4      1    number of probes k
//   5      1    hash scheme (1 = XXH3-64, fastrange block, multiplicative probes;
//                3 = scheme 1 with keys of 9 to 16 bytes hashed by one multiply)
//   6      1    version 1: reserved, 0; version 2: lead bytes L (0..63)
//   7      1    format version (1, or 2 when the blocks follow L lead bytes)
//   8      4    magic "LBLM" (0x4C 0x42 0x4C 0x4D)
//   12     4    checksum: low 32 bits of XXH3-64 (seed 0) over every byte of
//                the filter before it (lead, blocks and trailer bytes 0..11),
//                little-endian
//
// Internal header.

#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "linebloom/filter_format.h"

namespace linebloom::internal {

inline constexpr uint8_t kFormatVersion = 1;
// Version 2 differs from 1 only in trailer byte 6: the length of a run of
// zero bytes before the first block (FilterBuilder::SetLeadBytes).
inline constexpr uint8_t kFormatVersionWithLead = 2;
inline constexpr uint8_t kHashSchemeXxh3Fastrange = 1;
// Scheme 1 with keys of 9 to 16 bytes hashed by one multiply
// (KeyHashScheme::kShortKeyMultiply, key_hash.h).
inline constexpr uint8_t kHashSchemeShortKeyMultiply = 3;
// Version 3 is the compact filter (compact_layout.h): byte 4 holds its
// fingerprint bits r, byte 5 its hash scheme, byte 6 its number of layers.
inline constexpr uint8_t kFormatVersionCompact = 3;
// Version 4 is version 3 after a run of zero bytes (CompactFilterBuilder::
// SetLeadBytes). Its trailer is version 3's: the layer table fixes the
// bytes of the lines, so the lead is what the filter holds before them.
inline constexpr uint8_t kFormatVersionCompactWithLead = 4;
// Versions 5 and 6 are versions 3 and 4 whose lines may have up to
// E(r) <= 4 planes above r, the count in the metadata byte's low bits
// (compact_layout.h).
inline constexpr uint8_t kFormatVersionCompactPlanes = 5;
inline constexpr uint8_t kFormatVersionCompactPlanesWithLead = 6;
// Versions 5 and 6 with the first layer in two sections of r - 1 and r
// planes (a mixed shape, compact_math.h).
inline constexpr uint8_t kFormatVersionCompactMixed = 7;
inline constexpr uint8_t kFormatVersionCompactMixedWithLead = 8;
inline constexpr uint8_t kHashSchemeCompact = 2;
inline constexpr char kMagic[4] = {'L', 'B', 'L', 'M'};

struct Trailer {
  uint32_t seed = 0;
  uint8_t num_probes = 0;
  uint8_t hash_scheme = kHashSchemeXxh3Fastrange;
  uint8_t lead_bytes = 0;  // byte 6: the lead bytes in version 2; reserved, 0, in version 1
  uint8_t version = kFormatVersion;
};

// Writes `t` and the checksum to out[body_size, body_size + 16); `out` holds
// the lead and the blocks in out[0, body_size).
void EncodeTrailer(const Trailer& t, unsigned char* out, size_t body_size);

// Decodes the fields (no validation) of the trailer at the end of `filter`,
// which must be at least kFilterTrailerBytes long.
Trailer DecodeTrailer(std::string_view filter);
bool HasMagic(std::string_view filter);
uint32_t StoredChecksum(std::string_view filter);
// The checksum `filter` (lead + blocks + trailer) should hold.
uint32_t ComputeChecksum(std::string_view filter);

}  // namespace linebloom::internal
