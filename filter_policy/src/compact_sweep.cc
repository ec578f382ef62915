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
  void Set(int i) { w[i >> 6] |= uint64_t{1} << (i & 63); }
  void Clear(int i) { w[i >> 6] &= ~(uint64_t{1} << (i & 63)); }
  __mmask8 Byte(int v) const { return static_cast<__mmask8>(w[v >> 3] >> (8 * (v & 7))); }
};

// The equations of `words` (8 a vector) with `bit` set, not counting `except`.
template <int kVectors>
__attribute__((target("avx512f"), always_inline)) inline RowMask RowsWith(const uint64_t* words, __m512i bit,
                                                                          const RowMask& except) {
  RowMask m;
  for (int v = 0; v < kVectors; ++v) {
    const uint64_t found = _mm512_test_epi64_mask(_mm512_load_si512(words + 8 * v), bit);
    m.w[v >> 3] |= found << (8 * (v & 7));
  }
  m.w[0] &= ~except.w[0];
  m.w[1] &= ~except.w[1];
  return m;
}

// Equations are in 8 * kVectors words: a branch-free body the compiler
// unrolls for each count of vectors.
template <int kVectors>
__attribute__((target("avx512f"))) size_t Sweep(uint64_t* lo, uint64_t* hi, size_t count, int columns,
                                                int8_t* pivot_of) {
  RowMask pivots;
  for (int p = 0; p < columns; ++p) {
    const __m512i bit = _mm512_set1_epi64(static_cast<long long>(uint64_t{1} << (p & 63)));
    RowMask rows = RowsWith<kVectors>(p < 64 ? lo : hi, bit, pivots);
    if (rows.Empty()) {
      pivot_of[p] = -1;
      continue;
    }
    const int i = rows.Lowest();
    pivot_of[p] = static_cast<int8_t>(i);
    pivots.Set(i);
    rows.Clear(i);
    // Every equation left has no bit below p, so for p >= 64 the pivot's
    // low word is zero and only the high words change.
    const __m512i pivot_hi = _mm512_set1_epi64(static_cast<long long>(hi[i]));
    if (p < 64) {
      const __m512i pivot_lo = _mm512_set1_epi64(static_cast<long long>(lo[i]));
      for (int v = 0; v < kVectors; ++v) {
        __m512i x = _mm512_load_si512(lo + 8 * v);
        _mm512_store_si512(lo + 8 * v, _mm512_mask_xor_epi64(x, rows.Byte(v), x, pivot_lo));
      }
    }
    for (int v = 0; v < kVectors; ++v) {
      __m512i x = _mm512_load_si512(hi + 8 * v);
      _mm512_store_si512(hi + 8 * v, _mm512_mask_xor_epi64(x, rows.Byte(v), x, pivot_hi));
    }
  }
  // A non-pivot equation's row is zero now: a high word left is its
  // fingerprint's disagreement.
  const RowMask bad = RowsWith<kVectors>(hi, _mm512_set1_epi64(-1), pivots);
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

bool HasSweep() { return CurrentKernel() == Kernel::kAvx512; }

size_t SweepColumns(uint64_t* lo, uint64_t* hi, size_t count, int columns, int8_t* pivot_of) {
  const size_t vectors = count == 0 ? 1 : (count + 7) / 8;
  return kSweeps[vectors - 1](lo, hi, count, columns, pivot_of);
}

#else

bool HasSweep() { return false; }
size_t SweepColumns(uint64_t*, uint64_t*, size_t count, int, int8_t*) { return count; }

#endif

}  // namespace linebloom::internal::compact
