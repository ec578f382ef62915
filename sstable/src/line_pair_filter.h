// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// The line pair filter: linebloom's table filter in table format 2 (policy
// "linebloom.linepairs", docs/FORMAT.md section 2), per block or per file.
// Filters lie back to back in the table's filter region, which the reader
// holds 64-byte aligned; a filter of S bytes at region offset o, with
// r = o mod 64, covers bytes [0, S) on a grid of 128-byte line pairs
// shifted by r:
//
//   part j = bytes [max(0, 128 j - r), min(S, 128 (j + 1) - r))
//
// so part j lies in the two adjacent cache lines 2j and 2j + 1 counted from
// the filter's first line. A filter that spans at most two lines (r + S <=
// 128; every filter of up to 64 bytes that does not cross two boundaries,
// and all of them from a 4 KiB block at 10 bits/key) is a single part: one
// standard Bloom filter of 8 S bits. A key picks a bit position u uniformly
// in [0, 8 S) (fastrange of the hash's low 32 bits) and uses the part that
// holds u, so a part gets keys in proportion to its size; then it sets k
// bits of that part, as in a standard Bloom filter of the part's bits.
//
// The parameters (k and the hash seed) are stored once per table, not per
// filter. The policy that builds and reads these filters is
// NewLinebloomLinePairPolicy (linebloom_block_filter.cc). Internal header.

#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "linebloom/finite_bloom_fpr.h"

namespace linebloom::sstable::internal {

inline constexpr uint64_t kLinePairBytes = 128;
inline constexpr uint32_t kProbeMultiplier = 0x9E3779B9u;

struct LinePairLayout {
  uint64_t bytes = 0;  // S
  uint64_t shift = 0;  // r = region offset mod 64

  uint64_t NumParts() const { return bytes == 0 ? 0 : (shift + bytes + kLinePairBytes - 1) / kLinePairBytes; }
  uint64_t PartBegin(uint64_t j) const { return j == 0 ? 0 : kLinePairBytes * j - shift; }
  uint64_t PartEnd(uint64_t j) const {
    const uint64_t end = kLinePairBytes * (j + 1) - shift;
    return end < bytes ? end : bytes;
  }
  // The part sizes in bits, grouped (first, middle ones, last).
  std::vector<FiniteBloomFpr::PartGroup> Groups() const;
};

// Sets the bits of `hash` in `filter`, which sits at `region_offset`.
void LinePairAdd(uint64_t hash, int probes, uint64_t region_offset, std::string& filter);
// False only if the key of `hash` was certainly not added. An empty filter
// answers true: it has no bits that could say "no".
bool LinePairMayMatch(uint64_t hash, int probes, uint64_t region_offset, std::string_view filter);

// The table's parameters: u8 k | u32 seed.
inline constexpr size_t kLinePairParametersSize = 5;
// False if `parameters` are not a line pair filter's (size, k out of range).
bool ParseLinePairParameters(std::string_view parameters, int* probes, uint32_t* seed);

// The expected false-positive rate of one line pair filter of
// `filter_bytes` bytes at `region_offset` in its table's filter region,
// holding `keys` distinct keys, for a table with `parameters` (exact;
// FiniteBloomFpr), or -1 if the parameters are not a line pair filter's.
double LinePairFilterFpr(std::string_view parameters, uint64_t filter_bytes, uint64_t region_offset, uint64_t keys,
                         FiniteBloomFpr* model);

}  // namespace linebloom::sstable::internal
