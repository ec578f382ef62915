// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// The query paths of a filter, inline and templated on the probe kernel, so
// that a caller which picks its kernel once -- FilterReader per call,
// RocksDB's reader per filter (integration/rocksdb) -- compiles hashing,
// block location and probing into one function with no call between them.
// Internal header.
//
// A Probe is a functor `bool(const unsigned char* block, uint32_t a, int k)`
// answering "are all k probes of state a set in this block"; the ones below
// wrap the kernels of block_probe.h, probe_avx2.h and probe_avx512.h.
// Templates that inline a target-specific probe must be instantiated inside
// a function compiled for that target (target("avx2") etc.).

#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "block_probe.h"
#include "key_hash.h"
#include "linebloom/filter_format.h"
#include "probe_avx2.h"
#include "probe_avx512.h"

namespace linebloom::internal {

struct PortableProbe {
  bool operator()(const unsigned char* block, uint32_t a, int k) const { return AllProbesSet(block, a, k); }
};

#if defined(__x86_64__)
struct Avx2Probe {
  __attribute__((target("avx2"))) bool operator()(const unsigned char* block, uint32_t a, int k) const {
    return k <= 8 ? FirstRoundSetAvx2(block, a, k) : ManyProbesSetAvx2(block, a, k);
  }
};

// Up to 8 probes (every filter up to ~13 bits/key) need one AVX2 round, so
// a loop over such a filter has no per-key round count to test, and the
// filter's row of powers is loaded once, before the loop.
struct Avx2OneRoundProbe {
  __m256i powers, ones;
  // `powers_row` is kOneRoundPowers.value[k].
  __attribute__((target("avx2"))) explicit Avx2OneRoundProbe(const uint32_t* powers_row)
      : powers(_mm256_load_si256(reinterpret_cast<const __m256i*>(powers_row))),
        ones(_mm256_load_si256(reinterpret_cast<const __m256i*>(powers_row + 8))) {}
  __attribute__((target("avx2"))) bool operator()(const unsigned char* block, uint32_t a, int) const {
    return OneRoundSetAvx2(block, a, powers, ones);
  }
};

struct Avx512Probe {
  __attribute__((target("avx512f"))) bool operator()(const unsigned char* block, uint32_t a, int k) const {
    return k <= kOneRoundPowers512.kLanes ? OneRoundSetAvx512(block, a, kOneRoundPowers512.value[k])
                                          : ManyProbesSetAvx512(block, a, k);
  }
};

// As Avx2OneRoundProbe, for up to 16 probes.
struct Avx512OneRoundProbe {
  __m512i powers, ones;
  // `powers_row` is kOneRoundPowers512.value[k].
  __attribute__((target("avx512f"))) explicit Avx512OneRoundProbe(const uint32_t* powers_row)
      : powers(_mm512_load_si512(powers_row)), ones(_mm512_load_si512(powers_row + kOneRoundPowers512.kLanes)) {}
  __attribute__((target("avx512f"))) bool operator()(const unsigned char* block, uint32_t a, int) const {
    return OneRoundSetAvx512(block, a, powers, ones);
  }
};
#endif

// One query from its hash: locate the block, probe it.
template <typename Probe>
__attribute__((always_inline)) inline bool QueryHash(const unsigned char* blocks, size_t num_blocks, int num_probes,
                                                     uint64_t hash, Probe probe) {
  return probe(blocks + BlockIndex(hash, num_blocks) * kFilterBlockBytes, ProbeState(hash), num_probes);
}

// A chunk of a batch whose blocks have been located and prefetched.
inline constexpr size_t kQueryChunk = 32;
struct PrefetchedChunk {
  const unsigned char* block[kQueryChunk];
  uint32_t state[kQueryChunk];
};

// The probe by reference: a probe holding a 512-bit register passed by value
// draws GCC's note on the ABI of 64-byte aligned parameters (-Wpsabi).
template <typename Probe>
__attribute__((always_inline)) inline void ProbeChunk(const PrefetchedChunk& chunk, size_t n, int num_probes, bool* out,
                                                      const Probe& probe) {
  for (size_t i = 0; i < n; ++i) out[i] = probe(chunk.block[i], chunk.state[i], num_probes);
}

// Hashes keys start to end - 1 (at most kQueryChunk) into `chunk`: each
// block is located and prefetched as soon as its hash is known, so the
// misses start while later keys are still being hashed.
template <typename HashOf>
__attribute__((always_inline)) inline void StageChunk(const unsigned char* blocks, size_t num_blocks, size_t start,
                                                      size_t end, HashOf hash_of, PrefetchedChunk& chunk) {
  for (size_t i = start; i < end; ++i) {
    const uint64_t hash = hash_of(i);
    chunk.block[i - start] = blocks + BlockIndex(hash, num_blocks) * kFilterBlockBytes;
    PrefetchBlock(chunk.block[i - start]);
    chunk.state[i - start] = ProbeState(hash);
  }
}

// Answers n queries whose hashes hash_of(i) yields, software-pipelined in
// chunks: chunk c + 1 is staged (StageChunk) before chunk c is probed by
// probe_chunk(chunk, n, out).
// About 2 * kQueryChunk misses are in flight, and the probes of chunk c
// overlap the misses of chunk c + 1.
template <typename HashOf, typename ProbeChunkFn>
__attribute__((always_inline)) inline void QueryPipelined(const unsigned char* blocks, size_t num_blocks, size_t n,
                                                          bool* out, HashOf hash_of, ProbeChunkFn probe_chunk) {
  PrefetchedChunk ring[2];
  auto stage = [&](size_t start, PrefetchedChunk& chunk) {
    StageChunk(blocks, num_blocks, start, std::min(n, start + kQueryChunk), hash_of, chunk);
  };
  // Step c stages chunk c and probes chunk c - 1.
  const size_t num_chunks = (n + kQueryChunk - 1) / kQueryChunk;
  for (size_t c = 0; c <= num_chunks; ++c) {
    if (c < num_chunks) stage(c * kQueryChunk, ring[c & 1]);
    if (c == 0) continue;
    const size_t start = (c - 1) * kQueryChunk;
    probe_chunk(ring[(c - 1) & 1], std::min(kQueryChunk, n - start), out + start);
  }
}

// Per kernel: one query of a key, and the probing of one prefetched chunk.
// Keys of 9 to 16 bytes hash inline (XXH3's always-inline 9-16 byte
// function), others reach a function of their own by a tail call (key_hash.h,
// IsShortKey), so the common path makes no call. On those other functions
// `flatten` inlines XXH3's dispatch, which the compiler does not inline
// across the target boundary on its own.

// kScheme: the filter's hash scheme (key_hash.h); other keys than those of
// 9 to 16 bytes hash alike in every scheme.
template <KeyHashScheme kScheme = KeyHashScheme::kXxh3>
inline bool MayContainKeyPortable(const unsigned char* blocks, size_t num_blocks, int num_probes, uint32_t seed,
                                  std::string_view key) {
  return QueryHash(blocks, num_blocks, num_probes, HashKeyOf<kScheme>(key, seed), PortableProbe{});
}

inline void ProbeChunkPortable(const PrefetchedChunk& chunk, size_t n, int num_probes, bool* out) {
  ProbeChunk(chunk, n, num_probes, out, PortableProbe{});
}

#if defined(__x86_64__)
__attribute__((target("avx2"), noinline, flatten)) inline bool MayContainOtherKeyAvx2(const unsigned char* blocks,
                                                                                      size_t num_blocks, int num_probes,
                                                                                      uint32_t seed,
                                                                                      std::string_view key) {
  return QueryHash(blocks, num_blocks, num_probes, HashKey(key, seed), Avx2Probe{});
}

template <KeyHashScheme kScheme = KeyHashScheme::kXxh3>
__attribute__((target("avx2"))) inline bool MayContainKeyAvx2(const unsigned char* blocks, size_t num_blocks,
                                                              int num_probes, uint32_t seed, std::string_view key) {
  if (!IsShortKey(key.size())) return MayContainOtherKeyAvx2(blocks, num_blocks, num_probes, seed, key);
  return QueryHash(blocks, num_blocks, num_probes, HashShortKeyOf<kScheme>(key, seed), Avx2Probe{});
}

// A query of a filter whose probes take one round of a SIMD kernel, whose
// row of powers the caller keeps, from a key's hash (HashShortKey,
// HashMediumKey): hashing and block location compiled without the kernel's
// target, ending in a jump to the probe (OneRoundSetAvx2Call,
// OneRoundSetAvx512Call), so neither part has a stack frame. The caller
// sends other keys elsewhere (MayContainKeyAvx2, ...), ideally without
// loading what only they need.
using OneRoundProbeCall = bool (*)(const unsigned char* block, uint32_t a, const uint32_t* powers_row);
template <OneRoundProbeCall kProbe>
inline bool OneRoundQueryHash(const unsigned char* blocks, size_t num_blocks, const uint32_t* powers_row,
                              uint64_t hash) {
  return kProbe(blocks + BlockIndex(hash, num_blocks) * kFilterBlockBytes, ProbeState(hash), powers_row);
}

// The probing of a chunk of a filter whose probes take one round, with the
// filter's row of powers (loaded once): the loop has no probe count to test
// and, making no call, no stack frame.
__attribute__((target("avx2"))) inline void ProbeChunkOneRoundAvx2(const PrefetchedChunk& chunk, size_t n,
                                                                   const uint32_t* powers_row, bool* out) {
  ProbeChunk(chunk, n, 0, out, Avx2OneRoundProbe(powers_row));
}

__attribute__((target("avx2"))) inline void ProbeChunkAvx2(const PrefetchedChunk& chunk, size_t n, int num_probes,
                                                           bool* out) {
  if (num_probes <= 8) {
    ProbeChunkOneRoundAvx2(chunk, n, kOneRoundPowers.value[num_probes], out);
  } else {
    ProbeChunk(chunk, n, num_probes, out, Avx2Probe{});
  }
}

__attribute__((target("avx512f"), noinline, flatten)) inline bool MayContainOtherKeyAvx512(
    const unsigned char* blocks, size_t num_blocks, int num_probes, uint32_t seed, std::string_view key) {
  return QueryHash(blocks, num_blocks, num_probes, HashKey(key, seed), Avx512Probe{});
}

template <KeyHashScheme kScheme = KeyHashScheme::kXxh3>
__attribute__((target("avx512f"), flatten)) inline bool MayContainKeyAvx512(const unsigned char* blocks,
                                                                            size_t num_blocks, int num_probes,
                                                                            uint32_t seed, std::string_view key) {
  if (!IsShortKey(key.size())) return MayContainOtherKeyAvx512(blocks, num_blocks, num_probes, seed, key);
  return QueryHash(blocks, num_blocks, num_probes, HashShortKeyOf<kScheme>(key, seed), Avx512Probe{});
}

__attribute__((target("avx512f"))) inline void ProbeChunkOneRoundAvx512(const PrefetchedChunk& chunk, size_t n,
                                                                        const uint32_t* powers_row, bool* out) {
  ProbeChunk(chunk, n, 0, out, Avx512OneRoundProbe(powers_row));
}

__attribute__((target("avx512f"))) inline void ProbeChunkAvx512(const PrefetchedChunk& chunk, size_t n, int num_probes,
                                                                bool* out) {
  if (num_probes <= kOneRoundPowers512.kLanes) {
    ProbeChunkOneRoundAvx512(chunk, n, kOneRoundPowers512.value[num_probes], out);
  } else {
    ProbeChunk(chunk, n, num_probes, out, Avx512Probe{});
  }
}
#endif

}  // namespace linebloom::internal
