// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// Avalanche (compact_layout.h) of eight hashes at once, for the AVX-512
// paths of the compact filter's batch query and build (CodesOf8), and of
// four with AVX2, for the build's equations (compact_gauss_jordan.cc).
// Internal header.

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

#define LINEBLOOM_COMPACT_AVALANCHE_AVX2 __attribute__((target("avx2"), always_inline))

// x * kAvalancheMultiplier (mod 2^64) in each lane, where x_high is
// x >> 32: AVX2 multiplies 32-bit halves only, and the product mod 2^64 is
// lo(x) lo(k) + (hi(x) lo(k) + lo(x) hi(k)) 2^32.
LINEBLOOM_COMPACT_AVALANCHE_AVX2 inline __m256i TimesAvalancheMultiplier(__m256i x, __m256i x_high) {
  const __m256i k = _mm256_set1_epi64x(static_cast<long long>(kAvalancheMultiplier));
  const __m256i k_high = _mm256_set1_epi64x(static_cast<long long>(kAvalancheMultiplier >> 32));
  const __m256i cross = _mm256_add_epi64(_mm256_mul_epu32(x_high, k), _mm256_mul_epu32(x, k_high));
  return _mm256_add_epi64(_mm256_mul_epu32(x, k), _mm256_slli_epi64(cross, 32));
}
// Avalanche (compact_layout.h) of each lane. x ^ (x >> 32) keeps x's high
// half, so each fold's shift is also the next product's x_high.
LINEBLOOM_COMPACT_AVALANCHE_AVX2 inline __m256i Avalanche4(__m256i x) {
  __m256i high = _mm256_srli_epi64(x, 32);
  x = TimesAvalancheMultiplier(_mm256_xor_si256(x, high), high);
  high = _mm256_srli_epi64(x, 32);
  x = TimesAvalancheMultiplier(_mm256_xor_si256(x, high), high);
  return _mm256_xor_si256(x, _mm256_srli_epi64(x, 32));
}

}  // namespace linebloom::internal::compact

#endif
