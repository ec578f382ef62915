// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.

#include "compact_gauss_jordan.h"

#include <algorithm>
#include <bit>
#include <cstring>

#include "kernel_state.h"

namespace linebloom::internal::compact {
namespace {

#define LINEBLOOM_GJ_INLINE __attribute__((always_inline)) inline

// In place: bit q of w[i] becomes bit i of w[q] (64 x 64 bits). Swapping
// the two off-diagonal blocks of a matrix and transposing each quarter
// transposes it; the quarters' swaps at each size are one pass over the
// words, halves first, each block's rows in a run the compiler vectorizes.
//   simple form: out[q] |= ((w[i] >> q) & 1) << i for every i and q
template <int kHalf>
LINEBLOOM_GJ_INLINE void SwapBlocks(uint64_t* w, uint64_t low_half) {
  for (int base = 0; base < 64; base += 2 * kHalf) {
    for (int k = base; k < base + kHalf; ++k) {
      const uint64_t t = ((w[k] >> kHalf) ^ w[k + kHalf]) & low_half;
      w[k] ^= t << kHalf;
      w[k + kHalf] ^= t;
    }
  }
}
LINEBLOOM_GJ_INLINE void Transpose64(uint64_t* w) {
  SwapBlocks<32>(w, 0x00000000FFFFFFFFu);
  SwapBlocks<16>(w, 0x0000FFFF0000FFFFu);
  SwapBlocks<8>(w, 0x00FF00FF00FF00FFu);
  SwapBlocks<4>(w, 0x0F0F0F0F0F0F0F0Fu);
  SwapBlocks<2>(w, 0x3333333333333333u);
  SwapBlocks<1>(w, 0x5555555555555555u);
}

// The transposed system of up to 64 kWords equations: lane[w][q] is the
// mask of equations 64 w.. with bit q, q < 64 a bit of the low words, q >= 64
// bit q - 64 of the high words. Columns are lanes 0..C-1; fingerprint bit b
// is lane first_fp + b (C <= 64: 64 + b, else C + b).
template <int kWords>
struct Lanes {
  alignas(64) uint64_t lane[kWords][128];

  LINEBLOOM_GJ_INLINE void Load(const uint64_t* lo, const uint64_t* hi, size_t count) {
    for (int w = 0; w < kWords; ++w) {
      const size_t begin = std::min<size_t>(count, 64 * static_cast<size_t>(w));
      const size_t n = std::min<size_t>(count - begin, 64);
      uint64_t* low = lane[w];
      uint64_t* high = lane[w] + 64;
      std::memcpy(low, lo + begin, n * sizeof(uint64_t));
      std::memcpy(high, hi + begin, n * sizeof(uint64_t));
      std::fill(low + n, low + 64, 0);
      std::fill(high + n, high + 64, 0);
      Transpose64(low);
      Transpose64(high);
    }
  }

  // Adds `others` to the equations of lanes [from, to) where they hold the
  // pivot (word `pw`, bit `bit`). A loop per pivot word, so that each
  // vectorizes.
  LINEBLOOM_GJ_INLINE void AddWhereHeld(int from, int to, int pw, uint64_t bit, const uint64_t* others) {
    if (kWords == 1 || pw == 0) return AddWhereHeldIn<0>(from, to, bit, others);
    AddWhereHeldIn<kWords - 1>(from, to, bit, others);
  }
  template <int kPivotWord>
  LINEBLOOM_GJ_INLINE void AddWhereHeldIn(int from, int to, uint64_t bit, const uint64_t* others) {
    for (int q = from; q < to; ++q) {
      const uint64_t flip = 0 - static_cast<uint64_t>((lane[kPivotWord][q] & bit) != 0);
      for (int w = 0; w < kWords; ++w) lane[w][q] ^= others[w] & flip;
    }
  }
};

template <int kWords>
LINEBLOOM_GJ_INLINE size_t Solve(const uint64_t* lo, const uint64_t* hi, size_t count, int columns, int planes,
                                 int8_t* pivot_of, PlaneSet* solution, bool stop_at_contradiction) {
  Lanes<kWords> t;
  t.Load(lo, hi, count);
  const int first_fp = columns <= 64 ? 64 : columns;
  uint64_t pivots[kWords] = {};
  for (int p = 0; p < columns; ++p) {
    // The lowest candidate: in the first word that has one.
    int pw = 0;
    uint64_t cand = t.lane[0][p] & ~pivots[0];
    for (int w = 1; w < kWords && cand == 0; ++w) {
      pw = w;
      cand = t.lane[w][p] & ~pivots[w];
    }
    if (cand == 0) {
      pivot_of[p] = -1;
      continue;
    }
    const uint64_t bit = cand & (0 - cand);
    pivot_of[p] = static_cast<int8_t>(64 * pw + std::countr_zero(bit));
    pivots[pw] |= bit;
    uint64_t others[kWords];
    for (int w = 0; w < kWords; ++w) others[w] = t.lane[w][p] ^ (w == pw ? bit : 0);
    if (columns <= 64) {
      t.AddWhereHeld(p + 1, columns, pw, bit, others);
      t.AddWhereHeld(first_fp, first_fp + planes, pw, bit, others);
    } else {
      t.AddWhereHeld(p + 1, first_fp + planes, pw, bit, others);
    }
  }
  // A non-pivot equation's row is zero now: a fingerprint bit left is its
  // disagreement with the keys before it.
  size_t first = count;
  for (int w = kWords - 1; w >= 0; --w) {
    uint64_t bad = 0;
    for (int b = 0; b < planes; ++b) bad |= t.lane[w][first_fp + b];
    bad &= ~pivots[w];
    if (bad != 0) first = std::min<size_t>(count, 64 * static_cast<size_t>(w) + std::countr_zero(bad));
  }
  if (first < count && stop_at_contradiction) return first;
  // Bit p of plane b: bit pivot_of[p] of fingerprint lane b.
  //   simple form: for each pivot column p, i = pivot_of[p]:
  //     plane[b] |= ((lane[i / 64][first_fp + b] >> i % 64) & 1) << p
  uint64_t shift[128], in_word[kWords][128];
  for (int p = 0; p < columns; ++p) {
    const int i = pivot_of[p];
    shift[p] = static_cast<uint64_t>(i & 63);
    for (int w = 0; w < kWords; ++w) in_word[w][p] = 0 - static_cast<uint64_t>(i >= 0 && (i >> 6) == w);
  }
  for (int b = 0; b < planes; ++b) {
    uint64_t fp[kWords];
    for (int w = 0; w < kWords; ++w) fp[w] = t.lane[w][first_fp + b];
    uint64_t part[2] = {0, 0};
    for (int half = 0; half < 2; ++half) {
      const int end = std::min(columns, 64 * (half + 1));
      uint64_t bits = 0;
      for (int p = 64 * half; p < end; ++p) {
        uint64_t selected = 0;
        for (int w = 0; w < kWords; ++w) selected |= fp[w] & in_word[w][p];
        bits |= ((selected >> shift[p]) & 1) << (p & 63);
      }
      part[half] = bits;
    }
    solution->planes[b] = {part[0], part[1]};
  }
  return first;
}

size_t SolveDefault(const uint64_t* lo, const uint64_t* hi, size_t count, int columns, int planes, int8_t* pivot_of,
                    PlaneSet* solution, bool stop_at_contradiction) {
  if (count <= 64) return Solve<1>(lo, hi, count, columns, planes, pivot_of, solution, stop_at_contradiction);
  return Solve<2>(lo, hi, count, columns, planes, pivot_of, solution, stop_at_contradiction);
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
__attribute__((target("avx2"))) size_t SolveAvx2(const uint64_t* lo, const uint64_t* hi, size_t count, int columns,
                                                 int planes, int8_t* pivot_of, PlaneSet* solution,
                                                 bool stop_at_contradiction) {
  if (count <= 64) return Solve<1>(lo, hi, count, columns, planes, pivot_of, solution, stop_at_contradiction);
  return Solve<2>(lo, hi, count, columns, planes, pivot_of, solution, stop_at_contradiction);
}
#endif

}  // namespace

void GaussJordanEquationsOf(const KeyCode* codes, size_t count, int columns, int planes, uint64_t* lo, uint64_t* hi) {
  const Bits128 mask = LowMask(columns);
  for (size_t i = 0; i < count; ++i) {
    const Bits128 row = RowOf(codes[i], mask);
    const uint64_t fp = FingerprintOf(codes[i], planes);
    lo[i] = row.lo;
    hi[i] = columns > 64 ? row.hi | fp << (columns - 64) : fp;
  }
}

size_t SolveGaussJordan(const uint64_t* lo, const uint64_t* hi, size_t count, int columns, int planes, int8_t* pivot_of,
                        PlaneSet* solution, bool stop_at_contradiction) {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  static const bool has_avx2 = __builtin_cpu_supports("avx2");
  if (has_avx2 && CurrentKernel() != Kernel::kPortable) {
    return SolveAvx2(lo, hi, count, columns, planes, pivot_of, solution, stop_at_contradiction);
  }
#endif
  return SolveDefault(lo, hi, count, columns, planes, pivot_of, solution, stop_at_contradiction);
}

}  // namespace linebloom::internal::compact
