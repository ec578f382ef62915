// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.

#include "compact_sweep.h"

#include "compact_avalanche.h"
#include "compact_layout.h"
#include "kernel_state.h"

#include <algorithm>
#include <array>
#include <bit>
#include <utility>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace linebloom::internal::compact {

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
namespace {

// Rows 0..63 and 64..127 as two masks.
struct RowMask {
  uint64_t w[2] = {0, 0};
  bool Empty() const { return (w[0] | w[1]) == 0; }
  int Lowest() const { return w[0] != 0 ? std::countr_zero(w[0]) : 64 + std::countr_zero(w[1]); }
  __mmask8 Byte(int v) const { return static_cast<__mmask8>(w[v >> 3] >> (8 * (v & 7))); }
};

// Bit v of the result for the 8-bit mask of vector v (v < 8 * 8 = 64).
__attribute__((target("avx512f,avx512bw"), always_inline)) inline uint64_t Concat(const __mmask8* m) {
  const __mmask32 low = _mm512_kunpackw(_mm512_kunpackb(m[3], m[2]), _mm512_kunpackb(m[1], m[0]));
  const __mmask32 high = _mm512_kunpackw(_mm512_kunpackb(m[7], m[6]), _mm512_kunpackb(m[5], m[4]));
  return _cvtmask64_u64(_mm512_kunpackd(high, low));
}

// The equations of `words` with `bit` set, not counting `except`.
template <int kVectors>
__attribute__((target("avx512f,avx512bw"), always_inline)) inline RowMask RowsWith(const __m512i* words, __m512i bit,
                                                                                   const RowMask& except) {
  __mmask8 m[16] = {};
  for (int v = 0; v < kVectors; ++v) m[v] = _mm512_test_epi64_mask(words[v], bit);
  RowMask rows;
  rows.w[0] = Concat(m) & ~except.w[0];
  if (kVectors > 8) rows.w[1] = Concat(m + 8) & ~except.w[1];
  return rows;
}

// Columns are eliminated kBlock at a time, which shortens the chain of
// dependent steps (test the column's bit, find the lowest equation with
// it, fetch that pivot, add it) that bounds a column-by-column sweep: which
// equations each step of a block adds its pivot to is a matter of bit
// masks alone (the equations with bit q after step k are those with it
// before, changed by step k's pivot where that pivot has bit q), so the
// block's pivots are chosen from masks taken together at its start; each
// pivot's value at its step is its value at the block's start plus the
// earlier pivots added to it; and the additions, which commute, are made
// last. Two columns at a time measured fastest (four: more work in the
// mask steps than the chain saves).
inline constexpr int kBlock = 2;

// Eliminates columns [p, p + n), n <= kBlock, all in the low words or all
// in the high ones (kLow). Equations stay in registers; `lo` and `hi` get
// them at the end, for fetching the next block's pivots.
//   simple form, per column q: the non-pivot equations with bit q; none: q
//   is free; else the lowest becomes q's pivot and is added to the others.
template <int kVectors, bool kLow>
__attribute__((target("avx512f,avx512bw"), always_inline)) inline void Block(int p, int n, __m512i* vlo, __m512i* vhi,
                                                                             uint64_t* lo, uint64_t* hi,
                                                                             RowMask& pivots, int8_t* pivot_of) {
  constexpr bool kTwo = kVectors > 8;  // more than 64 equations
  // with[k]: the equations with bit p + k (as they are at step k, once the
  // earlier steps have changed it); adds[k]: those step k adds its pivot
  // to; pivot[k]: step k's pivot, or -1 for a free column.
  RowMask with[kBlock];
  for (int k = 0; k < kBlock; ++k) {
    const __m512i bit = _mm512_set1_epi64(static_cast<long long>(uint64_t{1} << ((p + k) & 63)));
    with[k] = k < n ? RowsWith<kVectors>(kLow ? vlo : vhi, bit, RowMask{}) : RowMask{};
  }
  RowMask adds[kBlock];
  int pivot[kBlock];
  for (int k = 0; k < kBlock; ++k) {
    RowMask rows;
    rows.w[0] = with[k].w[0] & ~pivots.w[0];
    rows.w[1] = kTwo ? with[k].w[1] & ~pivots.w[1] : 0;
    const bool in_low = rows.w[0] != 0;
    const int i =
        in_low ? std::countr_zero(rows.w[0]) : (kTwo && rows.w[1] != 0 ? 64 + std::countr_zero(rows.w[1]) : -1);
    pivot[k] = i;
    if (k < n) pivot_of[p + k] = static_cast<int8_t>(i);
    // The pivot's bit in each word (none for a free column).
    const uint64_t low_bit = rows.w[0] & -rows.w[0];
    const uint64_t high_bit = in_low ? 0 : rows.w[1] & -rows.w[1];
    pivots.w[0] |= low_bit;
    rows.w[0] ^= low_bit;
    if (kTwo) {
      pivots.w[1] |= high_bit;
      rows.w[1] ^= high_bit;
    }
    adds[k] = rows;
    for (int q = k + 1; q < kBlock; ++q) {
      const bool pivot_has_q = ((with[q].w[0] & low_bit) | (kTwo ? with[q].w[1] & high_bit : 0)) != 0;
      const uint64_t flip = -static_cast<uint64_t>(pivot_has_q);
      with[q].w[0] ^= rows.w[0] & flip;
      if (kTwo) with[q].w[1] ^= rows.w[1] & flip;
    }
  }
  // The pivots' values at their steps. Every equation left has no bit
  // below p, so for p >= 64 the low words are zero and only the high ones
  // change.
  uint64_t at_lo[kBlock], at_hi[kBlock];
  for (int k = 0; k < kBlock; ++k) {
    const int i = pivot[k] < 0 ? 0 : pivot[k];
    at_lo[k] = kLow ? lo[i] : 0;
    at_hi[k] = hi[i];
    for (int l = 0; l < k; ++l) {
      const uint64_t added = -static_cast<uint64_t>(((adds[l].w[i >> 6] >> (i & 63)) & 1) != 0);
      at_lo[k] ^= at_lo[l] & added;
      at_hi[k] ^= at_hi[l] & added;
    }
  }
  for (int k = 0; k < kBlock; ++k) {
    const __m512i add_lo = _mm512_set1_epi64(static_cast<long long>(at_lo[k]));
    const __m512i add_hi = _mm512_set1_epi64(static_cast<long long>(at_hi[k]));
    for (int v = 0; v < kVectors; ++v) {
      if (kLow) vlo[v] = _mm512_mask_xor_epi64(vlo[v], adds[k].Byte(v), vlo[v], add_lo);
      vhi[v] = _mm512_mask_xor_epi64(vhi[v], adds[k].Byte(v), vhi[v], add_hi);
    }
  }
  for (int v = 0; v < kVectors; ++v) {
    if (kLow) _mm512_store_si512(lo + 8 * v, vlo[v]);
    _mm512_store_si512(hi + 8 * v, vhi[v]);
  }
}

// Equations are in 8 * kVectors words: a body without a data-dependent
// branch per equation, for each count of vectors. A block never spans the
// low and the high words.
template <int kVectors>
__attribute__((target("avx512f,avx512bw"))) size_t Sweep(uint64_t* lo, uint64_t* hi, size_t count, int columns,
                                                         int8_t* pivot_of) {
  __m512i vlo[kVectors], vhi[kVectors];
  for (int v = 0; v < kVectors; ++v) {
    vlo[v] = _mm512_load_si512(lo + 8 * v);
    vhi[v] = _mm512_load_si512(hi + 8 * v);
  }
  RowMask pivots;
  int p = 0;
  while (p < columns && p < 64) {
    const int n = std::min({kBlock, columns - p, 64 - p});
    Block<kVectors, true>(p, n, vlo, vhi, lo, hi, pivots, pivot_of);
    p += n;
  }
  while (p < columns) {
    const int n = std::min(kBlock, columns - p);
    Block<kVectors, false>(p, n, vlo, vhi, lo, hi, pivots, pivot_of);
    p += n;
  }
  // A non-pivot equation's row is zero now: a high word left is its
  // fingerprint's disagreement.
  const RowMask bad = RowsWith<kVectors>(vhi, _mm512_set1_epi64(-1), pivots);
  if (bad.Empty()) return count;
  const size_t first = static_cast<size_t>(bad.Lowest());
  return first < count ? first : count;
}

using SweepFn = size_t (*)(uint64_t*, uint64_t*, size_t, int, int8_t*);

template <size_t... kIs>
constexpr std::array<SweepFn, sizeof...(kIs)> SweepTable(std::index_sequence<kIs...>) {
  return {&Sweep<static_cast<int>(kIs) + 1>...};
}
constexpr auto kSweeps = SweepTable(std::make_index_sequence<kMaxSweepKeys / 8>());

}  // namespace

bool HasSweep() {
  static const bool has_bw_dq = __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq");
  return has_bw_dq && CurrentKernel() == Kernel::kAvx512;
}

__attribute__((target("avx512f,avx512bw,avx512dq"))) void SweepEquationsOf(const uint64_t* hashes, size_t count,
                                                                           int columns, int planes, uint64_t* lo,
                                                                           uint64_t* hi) {
  const Bits128 mask = LowMask(columns);
  const __m512i mask_lo = _mm512_set1_epi64(static_cast<long long>(mask.lo));
  const __m512i mask_hi = _mm512_set1_epi64(static_cast<long long>(mask.hi));
  const __m512i one = _mm512_set1_epi64(1);
  const __m128i fp_shift = _mm_cvtsi32_si128(64 - planes);
  const __m128i fp_place = _mm_cvtsi32_si128(columns > 64 ? columns - 64 : 0);
  const size_t padded = std::max<size_t>(8, (count + 7) / 8 * 8);
  for (size_t i = 0; i < padded; i += 8) {
    const __mmask8 live = count >= i + 8 ? __mmask8{0xFF}
                          : count > i    ? static_cast<__mmask8>((1u << (count - i)) - 1)
                                         : 0;
    const KeyCodes8 code = CodesOf8(_mm512_maskz_loadu_epi64(live, hashes + i));
    const __m512i row_lo = _mm512_and_si512(code.row_lo, mask_lo);
    const __m512i row_hi = _mm512_and_si512(code.rest, mask_hi);
    // A zero row gets bit 0 (RowOf).
    const __mmask8 zero = _mm512_testn_epi64_mask(_mm512_or_si512(row_lo, row_hi), _mm512_or_si512(row_lo, row_hi));
    const __m512i fp = _mm512_maskz_srl_epi64(0xFF, code.rest, fp_shift);
    const __m512i eq_hi = columns > 64 ? _mm512_or_si512(row_hi, _mm512_maskz_sll_epi64(0xFF, fp, fp_place)) : fp;
    _mm512_store_si512(lo + i, _mm512_maskz_mov_epi64(live, _mm512_mask_or_epi64(row_lo, zero, row_lo, one)));
    _mm512_store_si512(hi + i, _mm512_maskz_mov_epi64(live, eq_hi));
  }
}

size_t SweepColumns(uint64_t* lo, uint64_t* hi, size_t count, int columns, int8_t* pivot_of) {
  const size_t vectors = count == 0 ? 1 : (count + 7) / 8;
  return kSweeps[vectors - 1](lo, hi, count, columns, pivot_of);
}

#else

bool HasSweep() { return false; }
size_t SweepColumns(uint64_t*, uint64_t*, size_t count, int, int8_t*) { return count; }
void SweepEquationsOf(const uint64_t*, size_t, int, int, uint64_t*, uint64_t*) {}

#endif

}  // namespace linebloom::internal::compact
