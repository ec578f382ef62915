// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.

#include "compact_sweep.h"

#include "kernel_state.h"

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
  // Set and Clear select the word by masks rather than by index, so that
  // the masks stay in registers (an indexed word would be stored and
  // reloaded on the column's chain of dependent steps).
  void Set(int i) {
    const uint64_t bit = uint64_t{1} << (i & 63);
    const uint64_t high = -static_cast<uint64_t>(i >> 6);  // i < 128
    w[0] |= bit & ~high;
    w[1] |= bit & high;
  }
  void Clear(int i) {
    const uint64_t bit = uint64_t{1} << (i & 63);
    const uint64_t high = -static_cast<uint64_t>(i >> 6);
    w[0] &= ~(bit & ~high);
    w[1] &= ~(bit & high);
  }
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

// Eliminates column p, whose bit is in `words` (the low words for p < 64,
// else the high ones); false if it is free. Equations stay in registers;
// `lo` and `hi` get each change, for fetching the next pivots.
template <int kVectors, bool kLow>
__attribute__((target("avx512f,avx512bw"), always_inline)) inline void Column(int p, __m512i* vlo, __m512i* vhi,
                                                                              uint64_t* lo, uint64_t* hi,
                                                                              RowMask& pivots, int8_t* pivot_of) {
  const __m512i bit = _mm512_set1_epi64(static_cast<long long>(uint64_t{1} << (p & 63)));
  RowMask rows = RowsWith<kVectors>(kLow ? vlo : vhi, bit, pivots);
  if (rows.Empty()) {
    pivot_of[p] = -1;
    return;
  }
  const int i = rows.Lowest();
  pivot_of[p] = static_cast<int8_t>(i);
  pivots.Set(i);
  rows.Clear(i);
  // Every equation left has no bit below p, so for p >= 64 the pivot's low
  // word is zero and only the high words change.
  const __m512i pivot_hi = _mm512_set1_epi64(static_cast<long long>(hi[i]));
  if (kLow) {
    const __m512i pivot_lo = _mm512_set1_epi64(static_cast<long long>(lo[i]));
    for (int v = 0; v < kVectors; ++v) {
      vlo[v] = _mm512_mask_xor_epi64(vlo[v], rows.Byte(v), vlo[v], pivot_lo);
      _mm512_store_si512(lo + 8 * v, vlo[v]);
    }
  }
  for (int v = 0; v < kVectors; ++v) {
    vhi[v] = _mm512_mask_xor_epi64(vhi[v], rows.Byte(v), vhi[v], pivot_hi);
    _mm512_store_si512(hi + 8 * v, vhi[v]);
  }
}

// Equations are in 8 * kVectors words: a body without a data-dependent
// branch per equation, for each count of vectors.
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
  for (; p < columns && p < 64; ++p) Column<kVectors, true>(p, vlo, vhi, lo, hi, pivots, pivot_of);
  for (; p < columns; ++p) Column<kVectors, false>(p, vlo, vhi, lo, hi, pivots, pivot_of);
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
  static const bool has_bw = __builtin_cpu_supports("avx512bw");
  return has_bw && CurrentKernel() == Kernel::kAvx512;
}

size_t SweepColumns(uint64_t* lo, uint64_t* hi, size_t count, int columns, int8_t* pivot_of) {
  const size_t vectors = count == 0 ? 1 : (count + 7) / 8;
  return kSweeps[vectors - 1](lo, hi, count, columns, pivot_of);
}

#else

bool HasSweep() { return false; }
size_t SweepColumns(uint64_t*, uint64_t*, size_t count, int, int8_t*) { return count; }

#endif

}  // namespace linebloom::internal::compact
