// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// Bit matrices over GF(2) in AVX-512 vectors of 64-bit words, for the
// compact filter's line solve (compact_sweep_transposed.cc): the 64 x 64
// bit transpose, and the xor, parities and bit columns of a set of words.
// Internal header; x86-64 with GCC or Clang only, callable where the CPU
// has what LINEBLOOM_TRANSPOSED_TARGET names.

#pragma once

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))

#include <immintrin.h>

#include <array>
#include <cstdint>

namespace linebloom::internal::compact {

#define LINEBLOOM_TRANSPOSED_TARGET \
  __attribute__((target("avx512f,avx512bw,avx512dq,avx512vbmi,avx512bitalg,avx512vpopcntdq,gfni,bmi,bmi2")))
#define LINEBLOOM_TRANSPOSED_INLINE LINEBLOOM_TRANSPOSED_TARGET __attribute__((always_inline)) inline

// The VPERMB index that moves byte m of word e to byte 7 - e of word m (a
// transpose of the 8 x 8 bytes, each word's bytes reversed for GF2P8AFFINEQB,
// which numbers the matrix rows from the top), and the one that moves byte t
// of word v to byte v of word t.
inline constexpr std::array<uint8_t, 64> BytesToBlocks() {
  std::array<uint8_t, 64> index{};
  for (int m = 0; m < 8; ++m) {
    for (int e = 0; e < 8; ++e) index[8 * m + 7 - e] = static_cast<uint8_t>(8 * e + m);
  }
  return index;
}
inline constexpr std::array<uint8_t, 64> TransposeBytes() {
  std::array<uint8_t, 64> index{};
  for (int t = 0; t < 8; ++t) {
    for (int v = 0; v < 8; ++v) index[8 * t + v] = static_cast<uint8_t>(8 * v + t);
  }
  return index;
}
alignas(64) inline constexpr std::array<uint8_t, 64> kBytesToBlocks = BytesToBlocks();
alignas(64) inline constexpr std::array<uint8_t, 64> kTransposeBytes = TransposeBytes();

// One stage of the 8 x 8 word transpose across x[0..7]: the words of
// registers r and r + d (r without bit d) swap where the word's index has
// bit d and the register's does not, or the other way round.
template <int kD>
LINEBLOOM_TRANSPOSED_INLINE void SwapWords(__m512i* x) {
  constexpr auto low = [](int q) { return (q & kD) == 0 ? q : 8 + q - kD; };
  constexpr auto high = [](int q) { return (q & kD) == 0 ? q + kD : 8 + q; };
  const __m512i low_index = _mm512_set_epi64(low(7), low(6), low(5), low(4), low(3), low(2), low(1), low(0));
  const __m512i high_index = _mm512_set_epi64(high(7), high(6), high(5), high(4), high(3), high(2), high(1), high(0));
  for (int r = 0; r < 8; ++r) {
    if ((r & kD) != 0) continue;
    const __m512i a = x[r], b = x[r | kD];
    x[r] = _mm512_permutex2var_epi64(a, low_index, b);
    x[r | kD] = _mm512_permutex2var_epi64(a, high_index, b);
  }
}

// The 64 x 64 bit transpose: word e of in[v] is row 8v + e; bit j of word
// u of out[w] is bit 8w + u of row j.
LINEBLOOM_TRANSPOSED_INLINE void Transpose64(const __m512i* in, __m512i* out) {
  const __m512i to_blocks = _mm512_load_si512(kBytesToBlocks.data());
  const __m512i transpose_bytes = _mm512_load_si512(kTransposeBytes.data());
  const __m512i identity = _mm512_set1_epi64(static_cast<long long>(0x8040201008040201u));
  __m512i x[8];
  // Word m of x[v]: the 8 x 8 block of rows 8v.. and bits 8m.., transposed:
  // byte t is bit 8m + t of the eight rows.
  for (int v = 0; v < 8; ++v) {
    x[v] = _mm512_gf2p8affine_epi64_epi8(identity, _mm512_maskz_permutexvar_epi8(~__mmask64{0}, to_blocks, in[v]), 0);
  }
  // Word v of x[m]: that block of rows 8v.., bits 8m...
  SwapWords<1>(x);
  SwapWords<2>(x);
  SwapWords<4>(x);
  for (int w = 0; w < 8; ++w) out[w] = _mm512_maskz_permutexvar_epi8(~__mmask64{0}, transpose_bytes, x[w]);
}

// The xor of words[j] for each bit j of `select` (words: `vectors` vectors
// of eight).
//   simple form: x = 0; for (j : select) x ^= words[j]
LINEBLOOM_TRANSPOSED_INLINE uint64_t XorOfSelected(const uint64_t* words, uint64_t select, int vectors) {
  __m512i x = _mm512_setzero_si512();
  for (int v = 0; v < vectors; ++v) {
    x = _mm512_mask_xor_epi64(x, static_cast<__mmask8>(select >> (8 * v)), x, _mm512_load_si512(words + 8 * v));
  }
  const __m256i half =
      _mm256_xor_si256(_mm512_maskz_extracti64x4_epi64(0xF, x, 0), _mm512_maskz_extracti64x4_epi64(0xF, x, 1));
  const __m128i quarter = _mm_xor_si128(_mm256_castsi256_si128(half), _mm256_extracti128_si256(half, 1));
  return static_cast<uint64_t>(_mm_cvtsi128_si64(quarter) ^ _mm_extract_epi64(quarter, 1));
}

// Bit j: parity(u & words[j]) (words: `vectors` vectors of eight).
LINEBLOOM_TRANSPOSED_INLINE uint64_t ParitiesWith(const uint64_t* words, uint64_t u, int vectors) {
  const __m512i mask = _mm512_set1_epi64(static_cast<long long>(u));
  const __m512i one = _mm512_set1_epi64(1);
  uint64_t bits = 0;
  for (int v = 0; v < vectors; ++v) {
    const __m512i count = _mm512_popcnt_epi64(_mm512_and_si512(_mm512_load_si512(words + 8 * v), mask));
    bits |= uint64_t{_cvtmask8_u32(_mm512_test_epi64_mask(count, one))} << (8 * v);
  }
  return bits;
}

// Bit j: bit `bit` of words[j] (words: `vectors` vectors of eight).
LINEBLOOM_TRANSPOSED_INLINE uint64_t BitOfEach(const uint64_t* words, int bit, int vectors) {
  const __m512i mask = _mm512_set1_epi64(static_cast<long long>(uint64_t{1} << bit));
  uint64_t bits = 0;
  for (int v = 0; v < vectors; ++v) {
    bits |= uint64_t{_cvtmask8_u32(_mm512_test_epi64_mask(_mm512_load_si512(words + 8 * v), mask))} << (8 * v);
  }
  return bits;
}

}  // namespace linebloom::internal::compact

#endif
