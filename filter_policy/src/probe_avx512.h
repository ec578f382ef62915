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

}  // namespace linebloom::internal

#endif  // __x86_64__
