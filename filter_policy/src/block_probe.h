// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// Where a hash lands: which 64-byte block, and which k of its 512 bits.
// Shared by the builder and the reader so the two cannot disagree.
//
// The 64-bit XXH3 hash is split in two independent halves:
//   low 32 bits  -> block index = (lo * num_blocks) >> 32   ("fastrange":
//                   a multiply instead of a modulo, uniform to within 2^-32);
//   high 32 bits -> probe state a; probe j (0 <= j < k) is the top 9 bits
//                   of a * M^j mod 2^32, M = 0x9E3779B9 (2^32 / golden ratio).
// Multiplying by an odd constant is a bijection on 32-bit words whose top bits
// depend on all bits of a, so successive probes are well spread; the powers
// M^j are fixed, which lets a SIMD kernel compute 8 probes in one multiply.
// Bit b of a block is bit (b % 8) of byte (b / 8): the format is the same on
// every platform.
//
// Internal header.

#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "linebloom/filter_format.h"
#include "linebloom/filter_options.h"

namespace linebloom::internal {

inline constexpr uint32_t kProbeMultiplier = 0x9E3779B9u;

inline size_t BlockIndex(uint64_t hash, size_t num_blocks) {
  return static_cast<size_t>(((hash & 0xFFFFFFFFu) * num_blocks) >> 32);
}

inline uint32_t ProbeState(uint64_t hash) { return static_cast<uint32_t>(hash >> 32); }

// M^0 .. M^(kMaxProbes-1) mod 2^32. Probe j is computed from a directly
// (a * M^j) rather than by multiplying the previous state, so the k probes
// of a key have no dependency chain between them.
struct ProbePowers {
  alignas(32) uint32_t value[kMaxProbes];
  constexpr ProbePowers() : value() {
    uint32_t p = 1;
    for (uint32_t& v : value) {
      v = p;
      p *= kProbeMultiplier;
    }
  }
};
inline constexpr ProbePowers kProbePowers{};

inline uint32_t ProbeBit(uint32_t a, int j) { return (a * kProbePowers.value[j]) >> 23; }

// The rows a SIMD kernel of kLanes 32-bit lanes tests a filter of up to
// kLanes probes with in one round, without a lane mask: value[k] holds M^j
// in lane j < k and M^0 in the lanes past the last probe, which therefore
// test probe 0 again -- a bit the key needs anyway -- followed by kLanes 1s.
// Read through the row pointer the 1s cost one load, where GCC builds a
// constant vector of 1s with two or three instructions in every query.
// Instances have internal linkage (static), so that position-independent
// code addresses them directly, not through the GOT.
template <int kLanesT>
struct OneRoundPowersTable {
  static constexpr int kLanes = kLanesT;
  alignas(4 * kLanes) uint32_t value[kLanes + 1][2 * kLanes];
  constexpr OneRoundPowersTable() : value() {
    for (int k = 0; k <= kLanes; ++k) {
      for (int j = 0; j < kLanes; ++j) value[k][j] = j < k ? kProbePowers.value[j] : kProbePowers.value[0];
      for (int j = kLanes; j < 2 * kLanes; ++j) value[k][j] = 1;
    }
  }
};

// Sets bit `bit` (0..511) of a block. On a little-endian machine bit b of
// byte b / 8 is also bit b % 64 of the 64-bit word b / 64, and a word OR
// takes two instructions fewer than a byte OR (the shift count needs no
// masking: x86 shifts use the low 6 bits). The word is read and written
// with memcpy: a filter may start anywhere (FinishInto's buffer, lead
// bytes), and memcpy compiles to the same single OR to memory.
inline void SetBit(unsigned char* block, uint32_t bit) {
  if constexpr (std::endian::native == std::endian::little) {
    unsigned char* const at = block + (bit >> 6) * sizeof(uint64_t);
    uint64_t word;
    std::memcpy(&word, at, sizeof word);
    word |= uint64_t{1} << (bit & 63);
    std::memcpy(at, &word, sizeof word);
  } else {
    block[bit >> 3] |= static_cast<unsigned char>(1u << (bit & 7));
  }
}

inline bool AllProbesSet(const unsigned char* block, uint32_t a, int num_probes) {
  for (int j = 0; j < num_probes; ++j) {
    const uint32_t bit = ProbeBit(a, j);
    if (((block[bit >> 3] >> (bit & 7)) & 1) == 0) return false;
  }
  return true;
}

// A block is one cache line only when it starts on a 64-byte boundary;
// bytes RocksDB reads from an SST land wherever malloc puts them, so unless
// the filter was laid out for that memory (lead bytes) a block may straddle
// two lines. Prefetching the first and last byte covers both cases (the
// second is a no-op when they share a line).
// A straddling block is read whole, its two lines requested together. A
// negative key needs one clear bit, so testing first the probes in the line
// holding more of the block (a share m = max(64 - off, off) / 64 of it,
// off = address % 64) would need the other line only when they are all set
// and some probe is elsewhere: with a fraction f of bits set, probability
// (1 - m (1 - f))^k - (m f)^k, 0.04 at off = 16 or 48 and 0.14 at off = 32
// for 10 bits/key (k = 7, f = 1 - e^(-k/10) = 0.50). But that other line is then a second
// fetch that depends on the first line's bits: a longer chain per query
// (or a branch mispredicted whenever the answers change) where a whole
// block's two lines are requested together, and in a batch a demand miss
// after the prefetched ones. Measured on batches, that cost more than the
// second line's fetch saves.
// Locality 1 (prefetcht2 on x86, RocksDB's choice too), not 3: a batch
// prefetches up to 2 * kQueryChunk lines of a straddling filter, more than
// the L1 data cache can track in flight; with the hint for the outer levels
// they queue there instead of stalling the batch behind the L1's miss
// buffers (BENCHMARKS.md: the batch beyond L3 in RocksDB's heap memory).
inline void PrefetchBlock(const unsigned char* block) {
  __builtin_prefetch(block, 0, 1);
  __builtin_prefetch(block + 63, 0, 1);
}
inline void PrefetchBlockForWrite(unsigned char* block) {
  __builtin_prefetch(block, 1, 3);
  __builtin_prefetch(block + 63, 1, 3);
}

}  // namespace linebloom::internal
