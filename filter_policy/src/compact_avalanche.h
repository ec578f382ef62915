// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// CodeOf (compact_layout.h) of eight hashes at once, for the AVX-512 paths
// of the compact filter's batch query and build. Internal header.

#pragma once

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#include "compact_layout.h"

namespace linebloom::internal::compact {

#define LINEBLOOM_COMPACT_AVALANCHE_TARGET __attribute__((target("avx512f,avx512dq"), always_inline))

// x ^ (x >> 32) in each lane. (The zero-masked shift: GCC 12's unmasked form
// trips -Wmaybe-uninitialized in its headers.)
LINEBLOOM_COMPACT_AVALANCHE_TARGET inline __m512i Fold8(__m512i x) {
  return _mm512_xor_si512(x, _mm512_maskz_srli_epi64(0xFF, x, 32));
}

// Avalanche of each lane.
LINEBLOOM_COMPACT_AVALANCHE_TARGET inline __m512i Avalanche8(__m512i x) {
  const __m512i k = _mm512_set1_epi64(static_cast<long long>(kAvalancheMultiplier));
  return Fold8(_mm512_mullo_epi64(Fold8(_mm512_mullo_epi64(Fold8(x), k)), k));
}

// The two words of CodeOf(h) for the eight hashes of `h`.
struct KeyCodes8 {
  __m512i row_lo;
  __m512i rest;
};
LINEBLOOM_COMPACT_AVALANCHE_TARGET inline KeyCodes8 CodesOf8(__m512i h) {
  const __m512i a = Avalanche8(_mm512_xor_si512(h, _mm512_set1_epi64(static_cast<long long>(kCodeSeed))));
  return {a, Avalanche8(a)};
}

}  // namespace linebloom::internal::compact

#endif
