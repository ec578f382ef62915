// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// AVX-512 form of AllProbesSet (block_probe.h). The whole 64-byte block is
// one register of sixteen little-endian u32 words, so where the AVX2 kernel
// needs two permutes and a blend, one vpermd fetches each lane's word (it
// reads the low 4 bits of the index: bit >> 5 is 0..15). Lane j holds probe
// 16r + j of round r: bit = (a * M^(16r+j)) >> 23; 1 << (bit % 32) is a
// rotate of 1 by bit (vprolvd takes the count mod 32, so no masking); and a
// masked vptestnmd flags the active lanes whose bit is clear. Up to 16
// probes take one round of ~7 instructions. Internal header; x86-64 only;
// called only when the CPU has AVX-512F (kernel.cc).

#pragma once

#if defined(__x86_64__)

#include <immintrin.h>

#include <cstdint>

#include "block_probe.h"

namespace linebloom::internal {

// Lane masks of the two rounds for k probes: k <= 16 uses the first only.
struct Avx512Lanes {
  __mmask16 first;
  __mmask16 second;
  explicit Avx512Lanes(int num_probes)
      : first(static_cast<__mmask16>(num_probes >= 16 ? 0xFFFFu : (1u << num_probes) - 1)),
        second(static_cast<__mmask16>(num_probes > 16 ? (1u << (num_probes - 16)) - 1 : 0)) {}
};

// True when the active probes 16r .. 16r+15 are all set. The powers past
// kMaxProbes are never read: the load is masked by the active lanes.
__attribute__((target("avx512f"))) inline bool RoundSetAvx512(__m512i words, __m512i state, int round,
                                                              __mmask16 active) {
  // The zero-masked forms: inactive lanes are ignored by the final test
  // anyway, and GCC 12's unmasked forms trip -Wuninitialized in its headers.
  const __m512i powers = _mm512_maskz_loadu_epi32(active, kProbePowers.value + 16 * round);
  const __m512i bit = _mm512_maskz_srli_epi32(active, _mm512_mullo_epi32(state, powers), 23);
  const __m512i word = _mm512_maskz_permutexvar_epi32(active, _mm512_maskz_srli_epi32(active, bit, 5), words);
  const __m512i mask = _mm512_maskz_rolv_epi32(active, _mm512_set1_epi32(1), bit);
  return _mm512_mask_testn_epi32_mask(active, word, mask) == 0;
}

__attribute__((target("avx512f"))) inline bool AllProbesSetAvx512(const unsigned char* block, uint32_t a,
                                                                  Avx512Lanes lanes) {
  const __m512i words = _mm512_loadu_si512(block);
  const __m512i state = _mm512_set1_epi32(static_cast<int>(a));
  if (!RoundSetAvx512(words, state, 0, lanes.first)) return false;
  return lanes.second == 0 || RoundSetAvx512(words, state, 1, lanes.second);
}

// AllProbesSetAvx512 for num_probes > 16, out of line: a query path that
// inlines the one-round case keeps the two masked rounds out of its code.
__attribute__((target("avx512f"), noinline)) inline bool ManyProbesSetAvx512(const unsigned char* block, uint32_t a,
                                                                             int num_probes) {
  return AllProbesSetAvx512(block, a, Avx512Lanes(num_probes));
}

// Filters of up to 16 probes (every filter up to ~38 bits/key) take one
// round, and for them no lane mask is needed (OneRoundPowersTable).
static constexpr OneRoundPowersTable<16> kOneRoundPowers512{};

// All probes of a block when num_probes <= 16, read off the products
// x = a * M^j directly: the probe's bit is x >> 23, its word (bit >> 5) is
// x >> 28, which vpermd takes as the index, and rotating the word right by
// x >> 23 (vprorvd takes the count mod 32, i.e. bit & 31) brings the
// probe's bit to bit 0, where the 1s test it. `powers` and `ones` are the
// two halves of kOneRoundPowers512.value[k].
__attribute__((target("avx512f"))) inline bool OneRoundSetAvx512(const unsigned char* block, uint32_t a, __m512i powers,
                                                                 __m512i ones) {
  // The zero-masked forms with every lane on: GCC 12's unmasked forms trip
  // -Wmaybe-uninitialized in its headers; these compile to the same code.
  constexpr __mmask16 kAll = 0xFFFF;
  const __m512i words = _mm512_loadu_si512(block);
  const __m512i x = _mm512_mullo_epi32(_mm512_set1_epi32(static_cast<int>(a)), powers);
  const __m512i word = _mm512_maskz_permutexvar_epi32(kAll, _mm512_maskz_srli_epi32(kAll, x, 28), words);
  const __m512i bit_at_0 = _mm512_maskz_rorv_epi32(kAll, word, _mm512_maskz_srli_epi32(kAll, x, 23));
  return _mm512_testn_epi32_mask(bit_at_0, ones) == 0;
}
__attribute__((target("avx512f"))) inline bool OneRoundSetAvx512(const unsigned char* block, uint32_t a,
                                                                 const uint32_t* powers_row) {
  return OneRoundSetAvx512(block, a, _mm512_load_si512(powers_row),
                           _mm512_load_si512(powers_row + kOneRoundPowers512.kLanes));
}

// OneRoundSetAvx512 out of line, for a single query whose hashing and block
// location are compiled without AVX-512 and end in a jump here (as
// OneRoundSetAvx2Call, probe_avx2.h: neither part gets a stack frame).
__attribute__((target("avx512f"), noinline)) inline bool OneRoundSetAvx512Call(const unsigned char* block, uint32_t a,
                                                                               const uint32_t* powers_row) {
  return OneRoundSetAvx512(block, a, powers_row);
}

}  // namespace linebloom::internal

#endif  // __x86_64__
