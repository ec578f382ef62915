// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// The per-block filter of table format 2 (policy "linebloom.split64",
// docs/FORMAT.md section 2): a filter of S bytes, sized to the byte, split
// into P = ceil(S / 64) parts of q or q + 1 bytes (q = S / P, the first
// S mod P parts one byte larger). A key picks one part and sets k bits in it,
// as in a standard Bloom filter of that part's bits. A part is at most 64
// bytes, so a query touches at most two adjacent 64-byte lines (one when the
// part lies inside one line, as every part does for S <= 64 bytes that do not
// cross a line, and for large filters sized to whole lines).
//
// The parameters (k and the hash seed) are stored once per table, not per
// filter. Internal header.

#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "linebloom/finite_bloom_fpr.h"

namespace linebloom::sstable::internal {

inline constexpr size_t kSplitPartBytes = 64;
inline constexpr uint32_t kSplitProbeMultiplier = 0x9E3779B9u;

struct SplitLayout {
  uint64_t parts = 0;       // P
  uint64_t small_bytes = 0; // q
  uint64_t large_parts = 0; // S mod P: parts 0 .. large_parts-1 have q + 1 bytes

  explicit SplitLayout(uint64_t filter_bytes)
      : parts((filter_bytes + kSplitPartBytes - 1) / kSplitPartBytes),
        small_bytes(parts ? filter_bytes / parts : 0),
        large_parts(parts ? filter_bytes % parts : 0) {}

  uint64_t PartOffset(uint64_t j) const { return j * small_bytes + (j < large_parts ? j : large_parts); }
  uint64_t PartBytes(uint64_t j) const { return small_bytes + (j < large_parts ? 1 : 0); }
  // The part of a key: fastrange of the hash's low 32 bits.
  uint64_t PartOf(uint64_t hash) const { return ((hash & 0xFFFFFFFFu) * parts) >> 32; }
  std::vector<FiniteBloomFpr::PartGroup> Groups() const {
    return {{large_parts, 8 * (small_bytes + 1)}, {parts - large_parts, 8 * small_bytes}};
  }
};

// Sets the bits of `hash` in the filter `bytes` (its size is S).
void SplitFilterAdd(uint64_t hash, int probes, std::string& bytes);
// False only if the key of `hash` was certainly not added. An empty filter
// answers true: it has no bits that could say "no".
bool SplitFilterMayMatch(uint64_t hash, int probes, std::string_view bytes);

}  // namespace linebloom::sstable::internal
