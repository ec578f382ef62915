// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.

#include "compact_back_substitution.h"

#include "kernel_state.h"

#include <bit>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace linebloom::internal::compact {
namespace {

// The highest set bit of `bits` (not zero), which it clears.
inline int PopHighest(Bits128& bits) {
  if (bits.hi != 0) {
    const int q = 63 - std::countl_zero(bits.hi);
    bits.hi &= ~(uint64_t{1} << q);
    return 64 + q;
  }
  const int q = 63 - std::countl_zero(bits.lo);
  bits.lo &= ~(uint64_t{1} << q);
  return q;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))

// The portable loop with planes 8c..8c+7 in the lanes of register c, one
// register per row word. For pivot p: x = (z & row) ^ (f_b << p) in each
// lane (z_b has no bit p yet), and bit 0 of VPOPCNTQ(x) is the bit z_b[p]
// must take; it is shifted to p and ORed in. The fingerprint bits are
// placed off the dependency chain from one pivot to the next, which is
// then AND-XOR (one VPTERNLOGQ), VPOPCNTQ, shift and OR (VPTERNLOGQ).
// Shifts of each lane by its count. (The zero-masking forms: GCC 12's
// unmasked ones start from an undefined register and warn.)
__attribute__((target("avx512f"), always_inline)) inline __m512i ShiftLeft(__m512i x, __m512i counts) {
  return _mm512_maskz_sllv_epi64(0xFF, x, counts);
}
__attribute__((target("avx512f"), always_inline)) inline __m512i ShiftRight(__m512i x, __m512i counts) {
  return _mm512_maskz_srlv_epi64(0xFF, x, counts);
}

template <int kChunks, bool kWide>
__attribute__((target("avx512f,avx512vpopcntdq"))) PlaneSet BackSubstituteAvx512(const PivotSystem& s) {
  __m512i lo[kChunks], hi[kChunks], lanes[kChunks];
  for (int c = 0; c < kChunks; ++c) {
    lo[c] = hi[c] = _mm512_setzero_si512();
    lanes[c] = _mm512_add_epi64(_mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0), _mm512_set1_epi64(8 * c));
  }
  const __m512i one = _mm512_set1_epi64(1);
  for (Bits128 rest = s.filled; !IsZero(rest);) {
    const int p = PopHighest(rest);
    const __m512i row_lo = _mm512_set1_epi64(static_cast<long long>(s.rows[p].lo));
    const __m512i row_hi = _mm512_set1_epi64(static_cast<long long>(s.rows[p].hi));
    const __m512i shift = _mm512_set1_epi64(p & 63);
    const __m512i bit = ShiftLeft(one, shift);
    const __m512i fp = _mm512_set1_epi64(s.fps[p]);
    for (int c = 0; c < kChunks; ++c) {
      const __m512i f = ShiftLeft(_mm512_and_si512(ShiftRight(fp, lanes[c]), one), shift);
      // 0x6A: A & B ^ C.
      __m512i x = kWide ? _mm512_ternarylogic_epi64(hi[c], row_hi, f, 0x6A) : f;
      x = _mm512_ternarylogic_epi64(lo[c], row_lo, x, 0x6A);
      const __m512i z = ShiftLeft(_mm512_popcnt_epi64(x), shift);
      // 0xF8: A | B & C.
      if (p < 64) {
        lo[c] = _mm512_ternarylogic_epi64(lo[c], z, bit, 0xF8);
      } else {
        hi[c] = _mm512_ternarylogic_epi64(hi[c], z, bit, 0xF8);
      }
    }
  }
  alignas(64) uint64_t words_lo[32], words_hi[32];
  for (int c = 0; c < kChunks; ++c) {
    _mm512_store_si512(words_lo + 8 * c, lo[c]);
    _mm512_store_si512(words_hi + 8 * c, hi[c]);
  }
  PlaneSet out;
  for (int b = 0; b < 8 * kChunks; ++b) out.planes[b] = {words_lo[b], words_hi[b]};
  return out;
}

template <bool kWide>
PlaneSet BackSubstituteAvx512Chunks(const PivotSystem& s) {
  switch ((s.planes + 7) / 8) {
    case 1: return BackSubstituteAvx512<1, kWide>(s);
    case 2: return BackSubstituteAvx512<2, kWide>(s);
    case 3: return BackSubstituteAvx512<3, kWide>(s);
    default: return BackSubstituteAvx512<4, kWide>(s);
  }
}

bool HasAvx512Popcount() {
  static const bool has = __builtin_cpu_supports("avx512vpopcntdq");
  return has && CurrentKernel() == Kernel::kAvx512;
}

#endif

}  // namespace

namespace {

// The loop is, for each pivot p from the highest and each plane b,
//   if (f_b != Parity(row_p & z_b)) set bit p of z_b;
// written without the branch, which goes either way at random: the
// parity's bit 0 is shifted to p and ORed in.
inline __attribute__((always_inline)) PlaneSet BackSubstituteLoop(const PivotSystem& s) {
  PlaneSet out;
  for (Bits128 rest = s.filled; !IsZero(rest);) {
    const int p = PopHighest(rest);
    const Bits128 row = s.rows[p];
    const bool high = p >= 64;
    const unsigned shift = static_cast<unsigned>(p & 63);
    for (int b = 0; b < s.planes; ++b) {
      Bits128& z = out.planes[b];
      const uint64_t parity = (std::popcount((row.lo & z.lo) ^ (row.hi & z.hi)) ^ (s.fps[p] >> b)) & 1;
      (high ? z.hi : z.lo) |= parity << shift;
    }
  }
  return out;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
// The same with the POPCNT instruction, for the AVX2 kernel (every AVX2 CPU
// has it): a build for any x86-64 otherwise calls a library routine.
__attribute__((target("popcnt"))) PlaneSet BackSubstitutePopcnt(const PivotSystem& s) { return BackSubstituteLoop(s); }
#endif

}  // namespace

PlaneSet BackSubstitutePortable(const PivotSystem& s) { return BackSubstituteLoop(s); }

PlaneSet BackSubstitute(const PivotSystem& s) {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  if (HasAvx512Popcount()) {
    return s.columns <= 64 ? BackSubstituteAvx512Chunks<false>(s) : BackSubstituteAvx512Chunks<true>(s);
  }
  if (CurrentKernel() != Kernel::kPortable) return BackSubstitutePopcnt(s);
#endif
  return BackSubstitutePortable(s);
}

void OrBits(uint64_t* words, int offset, Bits128 value, int width) {
  value = value & LowMask(width);
  for (int i = 0; i < width; i += 64) {
    uint64_t part = i == 0 ? value.lo : value.hi;
    int at = offset + i;
    words[at >> 6] |= part << (at & 63);
    if ((at & 63) != 0 && ((at >> 6) + 1) < 8) words[(at >> 6) + 1] |= part >> (64 - (at & 63));
  }
}

}  // namespace linebloom::internal::compact
