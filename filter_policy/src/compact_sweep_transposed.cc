// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// SweepColumns (compact_sweep.h) on the transposed equations. Lane q of the
// transposed system is the mask of the equations with bit q: q < 64 a bit
// of the low words, q >= 64 bit q - 64 of the high words (a column, or a
// fingerprint bit). Column p is lane p. Its step is then a matter of masks:
// the candidates are the non-pivot equations in lane p, the lowest is the
// pivot i, and adding equation i to the others (s) flips bit q of each of
// them exactly where equation i has bit q, that is, lane q gets s xored in
// where it holds equation i. The pivot has no bit below p (it was a
// non-pivot, and those lose each column as it is swept), so only lanes q
// >= p change.
//   simple form, per column p:
//     cand = lane[p] & ~pivots; i = lowest of cand (none: p is free);
//     s = cand without i; pivots |= i;
//     for q >= p: if (lane[q] has i) lane[q] ^= s
// The column's own lane is the chain from one column to the next, so the
// eight lanes of the column's group are kept as scalars (a few cycles a
// column: and-not, lowest bit, test, xor), and only the later groups' and
// the fingerprints' vectors are updated with vector masks. The equations
// are transposed in and back out 64 x 64 bits at a time: bytes regrouped
// within each vector (VPERMB), each 8 x 8 bit block transposed by GF2P8AFFINEQB,
// the 8 x 8 words across the vectors by VPERMT2Q. (The zero-masking forms
// of the intrinsics: GCC 12's unmasked ones start from an undefined
// register and warn.)

#include "compact_sweep.h"

#include <array>
#include <bit>
#include <cstring>
#include <utility>

#include "compact_layout.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace linebloom::internal::compact {

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
namespace {

#define LINEBLOOM_TRANSPOSED_TARGET __attribute__((target("avx512f,avx512bw,avx512dq,avx512vbmi,gfni,bmi")))
#define LINEBLOOM_TRANSPOSED_INLINE LINEBLOOM_TRANSPOSED_TARGET __attribute__((always_inline)) inline

// The VPERMB index that moves byte m of word e to byte 7 - e of word m (a
// transpose of the 8 x 8 bytes, each word's bytes reversed for GF2P8AFFINEQB,
// which numbers the matrix rows from the top), and the one that moves byte t
// of word v to byte v of word t.
constexpr std::array<uint8_t, 64> BytesToBlocks() {
  std::array<uint8_t, 64> index{};
  for (int m = 0; m < 8; ++m) {
    for (int e = 0; e < 8; ++e) index[8 * m + 7 - e] = static_cast<uint8_t>(8 * e + m);
  }
  return index;
}
constexpr std::array<uint8_t, 64> TransposeBytes() {
  std::array<uint8_t, 64> index{};
  for (int t = 0; t < 8; ++t) {
    for (int v = 0; v < 8; ++v) index[8 * t + v] = static_cast<uint8_t>(8 * v + t);
  }
  return index;
}
alignas(64) constexpr std::array<uint8_t, 64> kBytesToBlocks = BytesToBlocks();
alignas(64) constexpr std::array<uint8_t, 64> kTransposeBytes = TransposeBytes();

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
// u of out[w] is bit 8w + u of row j. Its own inverse.
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

// The transposed system of up to 64 equations of a line of kPlanes planes
// (or fewer planes of the same columns): lanes[g] is group g of the masks
// (groups 0..7 the low words' lanes, 8..15 the high words'). Only the
// groups that can hold a bit are kept: the low words' first kLo (the
// columns below 64) and the high words' first kHi. Everything that depends
// on the column count is known at compile time, so the unrolled columns
// run without a branch.
template <int kPlanes>
struct TransposedSweep {
  static constexpr int kColumns = ColumnsFor(kPlanes);
  static constexpr int kLo = (std::min(kColumns, 64) + 7) / 8;
  static constexpr int kHi = ((kColumns > 64 ? kColumns - 64 + kPlanes : kPlanes) + 7) / 8;
  static constexpr bool Kept(int g) { return g < kLo || (g >= 8 && g < 8 + kHi); }

  __m512i lanes[16];
  uint64_t pivots = 0;
  int8_t pivot_of[128];

  // Equations [0, count) of lo and hi in (count <= 64), the rest zero.
  LINEBLOOM_TRANSPOSED_INLINE void Load(const uint64_t* lo, const uint64_t* hi, size_t count) {
    const size_t vectors = (count + 7) / 8;
    for (int word = 0; word < 2; ++word) {
      const uint64_t* in = word == 0 ? lo : hi;
      __m512i rows[8];
      for (size_t v = 0; v < 8; ++v) rows[v] = v < vectors ? _mm512_load_si512(in + 8 * v) : _mm512_setzero_si512();
      Transpose64(rows, lanes + 8 * word);
    }
  }

  // The equations back out, the vectors that held any of [0, count).
  LINEBLOOM_TRANSPOSED_INLINE void Store(uint64_t* lo, uint64_t* hi, size_t count) const {
    const size_t vectors = (count + 7) / 8;
    for (int word = 0; word < 2; ++word) {
      __m512i t[8], rows[8];
      for (int g = 0; g < 8; ++g) t[g] = Kept(8 * word + g) ? lanes[8 * word + g] : _mm512_setzero_si512();
      Transpose64(t, rows);
      uint64_t* out = word == 0 ? lo : hi;
      for (size_t v = 0; v < vectors; ++v) _mm512_store_si512(out + 8 * v, rows[v]);
    }
  }

  // Column 8 kGroup + kStep, whose group's lanes are `col` (scalars).
  template <int kGroup, int kStep>
  LINEBLOOM_TRANSPOSED_INLINE void Column(uint64_t (&col)[8]) {
    constexpr int p = 8 * kGroup + kStep;
    if constexpr (p < kColumns) ColumnAt<kGroup, kStep>(col);
  }
  template <int kGroup, int kStep>
  LINEBLOOM_TRANSPOSED_INLINE void ColumnAt(uint64_t (&col)[8]) {
    constexpr int p = 8 * kGroup + kStep;
    const uint64_t cand = col[kStep] & ~pivots;
    const uint64_t pivot = cand & (0 - cand);
    const uint64_t others = cand ^ pivot;
    pivots |= pivot;
    pivot_of[p] = static_cast<int8_t>(pivot != 0 ? std::countr_zero(pivot) : -1);
    UpdateLanes<kStep>(col, pivot, others, std::make_integer_sequence<int, 8>());
    UpdateGroups<kGroup>(_mm512_set1_epi64(static_cast<long long>(pivot)),
                         _mm512_set1_epi64(static_cast<long long>(others)), std::make_integer_sequence<int, 16>());
  }

  template <int kStep, int... kQs>
  LINEBLOOM_TRANSPOSED_INLINE void UpdateLanes(uint64_t (&col)[8], uint64_t pivot, uint64_t others,
                                               std::integer_sequence<int, kQs...>) {
    (UpdateLane<kStep, kQs>(col, pivot, others), ...);
  }
  template <int kStep, int kQ>
  LINEBLOOM_TRANSPOSED_INLINE void UpdateLane(uint64_t (&col)[8], uint64_t pivot, uint64_t others) {
    if constexpr (kQ >= kStep) col[kQ] ^= others & (0 - static_cast<uint64_t>((col[kQ] & pivot) != 0));
  }

  template <int kGroup, int... kGs>
  LINEBLOOM_TRANSPOSED_INLINE void UpdateGroups(__m512i pivot, __m512i others, std::integer_sequence<int, kGs...>) {
    (UpdateGroup<kGroup, kGs>(pivot, others), ...);
  }
  template <int kGroup, int kG>
  LINEBLOOM_TRANSPOSED_INLINE void UpdateGroup(__m512i pivot, __m512i others) {
    if constexpr (kG > kGroup && Kept(kG)) {
      lanes[kG] = _mm512_mask_xor_epi64(lanes[kG], _mm512_test_epi64_mask(lanes[kG], pivot), lanes[kG], others);
    }
  }

  // The columns of group kGroup (lanes 8 kGroup..), if it holds any.
  template <int kGroup>
  LINEBLOOM_TRANSPOSED_INLINE void Group() {
    if constexpr (Kept(kGroup) && 8 * kGroup < kColumns) {
      alignas(64) uint64_t col[8];
      _mm512_store_si512(col, lanes[kGroup]);
      Columns<kGroup>(col, std::make_integer_sequence<int, 8>());
      lanes[kGroup] = _mm512_load_si512(col);
    }
  }
  template <int kGroup, int... kSteps>
  LINEBLOOM_TRANSPOSED_INLINE void Columns(uint64_t (&col)[8], std::integer_sequence<int, kSteps...>) {
    (Column<kGroup, kSteps>(col), ...);
  }
  template <int... kGs>
  LINEBLOOM_TRANSPOSED_INLINE void Groups(std::integer_sequence<int, kGs...>) {
    (Group<kGs>(), ...);
  }

  // Non-pivot equations with a high word left: their rows are zero, so
  // their fingerprints disagree.
  LINEBLOOM_TRANSPOSED_INLINE size_t FirstContradiction(size_t count) const {
    __m512i any = _mm512_setzero_si512();
    for (int g = 8; g < 8 + kHi; ++g) any = _mm512_or_si512(any, lanes[g]);
    alignas(64) uint64_t words[8];
    _mm512_store_si512(words, any);
    uint64_t bad = 0;
    for (uint64_t w : words) bad |= w;
    bad &= ~pivots;
    return bad != 0 ? std::min(count, static_cast<size_t>(std::countr_zero(bad))) : count;
  }
};

template <int kPlanes>
LINEBLOOM_TRANSPOSED_TARGET size_t SweepTransposedWith(uint64_t* lo, uint64_t* hi, size_t count, int8_t* pivot_of) {
  TransposedSweep<kPlanes> s;
  s.Load(lo, hi, count);
  s.Groups(std::make_integer_sequence<int, 16>());
  const size_t first = s.FirstContradiction(count);
  s.Store(lo, hi, count);
  std::memcpy(pivot_of, s.pivot_of, TransposedSweep<kPlanes>::kColumns);
  return first;
}

using SweepFn = size_t (*)(uint64_t*, uint64_t*, size_t, int8_t*);
constexpr int kMaxSweepPlanes = kMaxPlanes;
// One sweep per column count, that of its most planes (the others of the
// same columns are never asked for: nullptr).
template <int kPlanes>
constexpr SweepFn SweepFor() {
  if constexpr (kPlanes < kMaxSweepPlanes && ColumnsFor(kPlanes + 1) == ColumnsFor(kPlanes)) return nullptr;
  return &SweepTransposedWith<kPlanes>;
}
template <int... kIs>
constexpr std::array<SweepFn, sizeof...(kIs)> SweepTable(std::integer_sequence<int, kIs...>) {
  return {SweepFor<kMinFingerprintBits + kIs>()...};
}
constexpr auto kSweeps = SweepTable(std::make_integer_sequence<int, kMaxSweepPlanes - kMinFingerprintBits + 1>());

}  // namespace

bool HasTransposedSweep() {
  static const bool has = __builtin_cpu_supports("avx512vbmi") && __builtin_cpu_supports("gfni");
  return has && HasSweep();
}

size_t SweepColumnsTransposed(uint64_t* lo, uint64_t* hi, size_t count, int columns, int8_t* pivot_of) {
  // The plane count a line of `columns` columns has at most (ColumnsFor
  // rounds down): its groups hold any such line's bits. More than 64
  // equations would take two masks a lane, and the vector work, not the
  // chain, then bounds the sweep: the blocked one is as fast.
  const int planes = kPlaneBits / columns;
  const SweepFn sweep = planes >= kMinFingerprintBits && planes <= kMaxSweepPlanes && ColumnsFor(planes) == columns
                            ? kSweeps[planes - kMinFingerprintBits]
                            : nullptr;
  if (count > 64 || sweep == nullptr) return SweepColumnsBlocked(lo, hi, count, columns, pivot_of);
  return sweep(lo, hi, count, pivot_of);
}

#else

bool HasTransposedSweep() { return false; }
size_t SweepColumnsTransposed(uint64_t* lo, uint64_t* hi, size_t count, int columns, int8_t* pivot_of) {
  return SweepColumnsBlocked(lo, hi, count, columns, pivot_of);
}

#endif

}  // namespace linebloom::internal::compact
