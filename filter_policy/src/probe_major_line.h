// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// AVX-512 and AVX2 forms of AllProbesSetMajorFirst (major_line.h) for
// filters whose probes take one SIMD round (AVX-512: up to 16, AVX2: up to
// 8; OneRoundPowersTable's rows, whose lanes past the last probe test probe
// 0 again). Each lane computes t = (a * M^j >> 23) + shift; the lanes with
// t < 512 are tested against the major line, and the rest against the
// line loaded second: the minor line when the major line's probes are all
// set and some lane is left, otherwise the major line again (an L1 hit),
// whose answer then does not count. The choice is arithmetic on the
// address, not a branch: a branch on bits just loaded is mispredicted
// whenever the pattern of answers changes, and the misprediction discards
// the loads that later, independent queries had in flight. A line is
// fetched from its word by bits 5..8 of t and tested at bit t mod 32, as
// OneRoundSetAvx512 and OneRoundSetAvx2 fetch a block's words. Internal
// header; x86-64 only; called only when the CPU has the kernel's features
// (kernel.cc).

#pragma once

#if defined(__x86_64__)

#include <immintrin.h>

#include <cstdint>

#include "major_line.h"
#include "probe_avx2.h"
#include "probe_avx512.h"

namespace linebloom::internal {

// The line a query loads second: the minor line when `needed`, else the
// major line again. Masking the distance keeps it a data dependency
// rather than a branch.
inline const unsigned char* SecondLine(const unsigned char* major, int32_t minor_delta, bool needed) {
  return major + (minor_delta & -static_cast<int32_t>(needed));
}

// The lanes' t of state a. `shift` is MajorLines::shift in every lane.
__attribute__((target("avx512f"))) inline __m512i LineBitsAvx512(uint32_t a, __m512i powers, __m512i shift) {
  constexpr __mmask16 kAll = 0xFFFF;  // maskz forms: see OneRoundSetAvx512
  const __m512i x = _mm512_mullo_epi32(_mm512_set1_epi32(static_cast<int>(a)), powers);
  return _mm512_add_epi32(_mm512_maskz_srli_epi32(kAll, x, 23), shift);
}

// Lanes `lanes` whose bit (t) in `line` is clear.
__attribute__((target("avx512f"))) inline __mmask16 ClearInLineAvx512(const unsigned char* line, __m512i t,
                                                                      __m512i ones, __mmask16 lanes) {
  constexpr __mmask16 kAll = 0xFFFF;
  const __m512i words = _mm512_load_si512(line);
  const __m512i word = _mm512_maskz_permutexvar_epi32(kAll, _mm512_maskz_srli_epi32(kAll, t, 5), words);
  return _mm512_mask_testn_epi32_mask(lanes, _mm512_maskz_rorv_epi32(kAll, word, t), ones);
}

// The simple form this computes:
//   return AllProbesSetMajorFirst(major, lines, a, k);
// `powers` and `ones` are the two halves of kOneRoundPowers512.value[k].
__attribute__((target("avx512f"))) inline bool MajorFirstSetAvx512(const unsigned char* major, int32_t minor_delta,
                                                                   uint32_t a, __m512i powers, __m512i ones,
                                                                   __m512i shift) {
  const __m512i t = LineBitsAvx512(a, powers, shift);
  const __mmask16 in_minor = _mm512_cmpge_epu32_mask(t, _mm512_set1_epi32(8 * kFilterBlockBytes));
  const __mmask16 clear = ClearInLineAvx512(major, t, ones, static_cast<__mmask16>(~in_minor));
  const unsigned char* const second = SecondLine(major, minor_delta, clear == 0 && in_minor != 0);
  return (clear | ClearInLineAvx512(second, t, ones, in_minor)) == 0;
}

// True when every bit of `masks` (each lane's 1 << t mod 32, or 0) is set
// in the lane's word of `line`.
__attribute__((target("avx2"))) inline bool AllSetInLineAvx2(const unsigned char* line, __m256i t, __m256i masks) {
  const __m256i low_words = _mm256_load_si256(reinterpret_cast<const __m256i*>(line));
  const __m256i high_words = _mm256_load_si256(reinterpret_cast<const __m256i*>(line + 32));
  const __m256i word_index = _mm256_srli_epi32(t, 5);
  // blendv reads each lane's sign bit: bit 8 of t, the half of the line.
  const __m256i word =
      _mm256_castps_si256(_mm256_blendv_ps(_mm256_castsi256_ps(_mm256_permutevar8x32_epi32(low_words, word_index)),
                                           _mm256_castsi256_ps(_mm256_permutevar8x32_epi32(high_words, word_index)),
                                           _mm256_castsi256_ps(_mm256_slli_epi32(t, 23))));
  return _mm256_testc_si256(word, masks);
}

// The simple form this computes:
//   return AllProbesSetMajorFirst(major, lines, a, k);
// `powers` and `ones` are the two halves of kOneRoundPowers.value[k].
__attribute__((target("avx2"))) inline bool MajorFirstSetAvx2(const unsigned char* major, int32_t minor_delta,
                                                              uint32_t a, __m256i powers, __m256i ones, __m256i shift) {
  const __m256i x = _mm256_mullo_epi32(_mm256_set1_epi32(static_cast<int>(a)), powers);
  const __m256i t = _mm256_add_epi32(_mm256_srli_epi32(x, 23), shift);
  // (t << 27) >> 27 is t mod 32; all-ones in the lanes with t < 512.
  const __m256i mask = _mm256_sllv_epi32(ones, _mm256_srli_epi32(_mm256_slli_epi32(t, 27), 27));
  const __m256i in_major = _mm256_cmpeq_epi32(_mm256_srli_epi32(t, 9), _mm256_setzero_si256());
  const __m256i minor_masks = _mm256_andnot_si256(in_major, mask);
  const bool major_set = AllSetInLineAvx2(major, t, _mm256_and_si256(mask, in_major));
  const unsigned char* const second =
      SecondLine(major, minor_delta, major_set && !_mm256_testz_si256(minor_masks, minor_masks));
  return major_set & AllSetInLineAvx2(second, t, minor_masks);
}

}  // namespace linebloom::internal

#endif  // __x86_64__
