// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// SolveReduced (compact_sweep.h): Gauss-Jordan elimination of a line's
// equations on their transpose. Lane q of the transposed system is the
// mask of the equations with bit q: q < 64 a bit of the low words, q >= 64
// bit q - 64 of the high words (a column, or a fingerprint bit). Column p
// is lane p. Its step is then a matter of masks: the candidates are the
// non-pivot equations in lane p, the lowest is the pivot i, and adding
// equation i to the others with bit p (s: non-pivots and earlier pivots
// alike) flips bit q of each of them exactly where equation i has bit q,
// that is, lane q gets s xored in where it holds equation i. The pivot has
// no bit below p (it was a non-pivot, and those lose each column as it is
// swept), so only lanes q >= p change. The non-pivots change as in the
// forward sweep (SweepColumns): the same pivots, the same contradictions.
// The pivots end reduced, each with no other pivot's column, so with the
// free columns 0 the planes are the pivots' fingerprints: bit p of plane b
// is fingerprint bit b of column p's pivot, gathered by VPSHUFBITQMB.
//   simple form, per column p:
//     cand = lane[p] & ~pivots; i = lowest of cand (none: p is free);
//     s = lane[p] without i; pivots |= i;
//     for q >= p: if (lane[q] has i) lane[q] ^= s
// The column's own lane is the chain from one column to the next, so the
// eight lanes of the column's group are kept as scalars (a few cycles a
// column: and-not, lowest bit, bit extract, xor), and only the later groups' and
// the fingerprints' vectors are updated with vector masks. The equations
// are transposed in 64 x 64 bits at a time: bytes regrouped within each
// vector (VPERMB), each 8 x 8 bit block transposed by GF2P8AFFINEQB, the 8
// x 8 words across the vectors by VPERMT2Q. (The zero-masking forms of the
// intrinsics: GCC 12's unmasked ones start from an undefined register and
// warn.)

#include "compact_sweep.h"

#include <algorithm>
#include <array>
#include <atomic>
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

#define LINEBLOOM_TRANSPOSED_TARGET \
  __attribute__((target("avx512f,avx512bw,avx512dq,avx512vbmi,avx512bitalg,gfni,bmi,bmi2")))
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

// The transposed system of up to 64 kHalves equations of a line of kPlanes
// planes (or fewer planes of the same columns): lanes[h][g] is group g of
// the masks of equations 64h..64h + 63 (groups 0..7 the low words' lanes,
// 8..15 the high words'). Only the groups that can hold a bit are kept: the
// low words' first kLo (the columns below 64) and the high words' first
// kHi. Everything that depends on the column count is known at compile
// time, so the unrolled columns run without a branch.
template <int kPlanes, int kHalves>
struct TransposedSweep {
  static constexpr int kColumns = ColumnsFor(kPlanes);
  static constexpr int kLo = (std::min(kColumns, 64) + 7) / 8;
  static constexpr int kHi = ((kColumns > 64 ? kColumns - 64 + kPlanes : kPlanes) + 7) / 8;
  static constexpr bool Kept(int g) { return g < kLo || (g >= 8 && g < 8 + kHi); }
  using Lanes = uint64_t[kHalves][8];  // a group's lanes as scalars

  __m512i lanes[kHalves][16];
  uint64_t pivots[kHalves] = {};
  int8_t pivot_of[128];  // -1 past the columns too

  // Equations [0, count) of lo and hi in (count <= 64 kHalves), the rest
  // zero.
  LINEBLOOM_TRANSPOSED_INLINE void Load(const uint64_t* lo, const uint64_t* hi, size_t count) {
    const size_t vectors = (count + 7) / 8;
    for (int h = 0; h < kHalves; ++h) {
      for (int word = 0; word < 2; ++word) {
        const uint64_t* in = word == 0 ? lo : hi;
        __m512i rows[8];
        for (size_t v = 0; v < 8; ++v) {
          const size_t at = 8 * static_cast<size_t>(h) + v;
          rows[v] = at < vectors ? _mm512_load_si512(in + 8 * at) : _mm512_setzero_si512();
        }
        Transpose64(rows, lanes[h] + 8 * word);
      }
    }
  }

  // Column 8 kGroup + kStep, whose group's lanes are `col`.
  template <int kGroup, int kStep>
  LINEBLOOM_TRANSPOSED_INLINE void Column(Lanes& col) {
    constexpr int p = 8 * kGroup + kStep;
    if constexpr (p < kColumns) ColumnAt<kGroup, kStep>(col);
  }
  template <int kGroup, int kStep>
  LINEBLOOM_TRANSPOSED_INLINE void ColumnAt(Lanes& col) {
    uint64_t pivot[kHalves], others[kHalves];  // i, and s
    uint64_t before = 0;                       // candidates in the halves below
    for (int h = 0; h < kHalves; ++h) {
      const uint64_t cand = col[h][kStep] & ~pivots[h];
      // The lowest candidate: the second half's only where the first has none.
      pivot[h] = cand & (0 - cand) & (0 - static_cast<uint64_t>(before == 0));
      before |= cand;
      others[h] = col[h][kStep] ^ pivot[h];
      pivots[h] |= pivot[h];
    }
    int index = -1;
    for (int h = kHalves - 1; h >= 0; --h) index = pivot[h] != 0 ? 64 * h + std::countr_zero(pivot[h]) : index;
    pivot_of[8 * kGroup + kStep] = static_cast<int8_t>(index);
    UpdateLanes<kStep>(col, pivot, others, std::make_integer_sequence<int, 8>());
    __m512i pivot_bit[kHalves], add[kHalves];
    for (int h = 0; h < kHalves; ++h) {
      pivot_bit[h] = _mm512_set1_epi64(static_cast<long long>(pivot[h]));
      add[h] = _mm512_set1_epi64(static_cast<long long>(others[h]));
    }
    UpdateGroups<kGroup>(pivot_bit, add, std::make_integer_sequence<int, 16>());
  }

  template <int kStep, int... kQs>
  LINEBLOOM_TRANSPOSED_INLINE void UpdateLanes(Lanes& col, const uint64_t* pivot, const uint64_t* others,
                                               std::integer_sequence<int, kQs...>) {
    (UpdateLane<kStep, kQs>(col, pivot, others), ...);
  }
  template <int kStep, int kQ>
  LINEBLOOM_TRANSPOSED_INLINE void UpdateLane(Lanes& col, const uint64_t* pivot, const uint64_t* others) {
    if constexpr (kQ >= kStep) {
      // The pivot's bit of the lane (PEXT of a one-bit mask; 0 if no pivot).
      uint64_t has = 0;
      for (int h = 0; h < kHalves; ++h) has |= _pext_u64(col[h][kQ], pivot[h]);
      const uint64_t flip = 0 - has;
      for (int h = 0; h < kHalves; ++h) col[h][kQ] ^= others[h] & flip;
    }
  }

  template <int kGroup, int... kGs>
  LINEBLOOM_TRANSPOSED_INLINE void UpdateGroups(const __m512i* pivot_bit, const __m512i* add,
                                                std::integer_sequence<int, kGs...>) {
    (UpdateGroup<kGroup, kGs>(pivot_bit, add), ...);
  }
  template <int kGroup, int kG>
  LINEBLOOM_TRANSPOSED_INLINE void UpdateGroup(const __m512i* pivot_bit, const __m512i* add) {
    if constexpr (kG > kGroup && Kept(kG)) {
      __mmask8 has = _mm512_test_epi64_mask(lanes[0][kG], pivot_bit[0]);
      if constexpr (kHalves > 1) has = static_cast<__mmask8>(has | _mm512_test_epi64_mask(lanes[1][kG], pivot_bit[1]));
      for (int h = 0; h < kHalves; ++h) lanes[h][kG] = _mm512_mask_xor_epi64(lanes[h][kG], has, lanes[h][kG], add[h]);
    }
  }

  // The columns of group kGroup (lanes 8 kGroup..), if it holds any.
  template <int kGroup>
  LINEBLOOM_TRANSPOSED_INLINE void Group() {
    if constexpr (Kept(kGroup) && 8 * kGroup < kColumns) {
      alignas(64) Lanes col;
      for (int h = 0; h < kHalves; ++h) _mm512_store_si512(col[h], lanes[h][kGroup]);
      Columns<kGroup>(col, std::make_integer_sequence<int, 8>());
      for (int h = 0; h < kHalves; ++h) lanes[h][kGroup] = _mm512_load_si512(col[h]);
    }
  }
  template <int kGroup, int... kSteps>
  LINEBLOOM_TRANSPOSED_INLINE void Columns(Lanes& col, std::integer_sequence<int, kSteps...>) {
    (Column<kGroup, kSteps>(col), ...);
  }
  template <int... kGs>
  LINEBLOOM_TRANSPOSED_INLINE void Groups(std::integer_sequence<int, kGs...>) {
    (Group<kGs>(), ...);
  }

  // Non-pivot equations with a high word left: their rows are zero, so
  // their fingerprints disagree.
  LINEBLOOM_TRANSPOSED_INLINE size_t FirstContradiction(size_t count) const {
    for (int h = 0; h < kHalves; ++h) {
      __m512i any = _mm512_setzero_si512();
      for (int g = 8; g < 8 + kHi; ++g) any = _mm512_or_si512(any, lanes[h][g]);
      alignas(64) uint64_t words[8];
      _mm512_store_si512(words, any);
      uint64_t bad = 0;
      for (uint64_t w : words) bad |= w;
      bad &= ~pivots[h];
      if (bad != 0) return std::min(count, 64 * static_cast<size_t>(h) + std::countr_zero(bad));
    }
    return count;
  }

  // The planes (file comment): the pivots' alone, so contradicting
  // equations, which are no pivots, change nothing.
  LINEBLOOM_TRANSPOSED_INLINE void Planes(int planes, PlaneSet* out) const {
    // Fingerprint bit b is lane kFirstFingerprintLane + b.
    constexpr int kFirstFingerprintLane = kColumns <= 64 ? 64 : kColumns;
    alignas(64) uint64_t high[kHalves][8 * kHi];
    for (int h = 0; h < kHalves; ++h) {
      for (int g = 0; g < kHi; ++g) _mm512_store_si512(high[h] + 8 * g, lanes[h][8 + g]);
    }
    for (int part = 0; part * 64 < kColumns; ++part) {
      // Column 64 part + j's pivot in byte j; -1 (free) has its sign bit.
      const __m512i pivot_index = _mm512_loadu_si512(pivot_of + 64 * part);
      const __mmask64 pivot_column = ~_mm512_movepi8_mask(pivot_index);
      const __mmask64 second_half = _mm512_test_epi8_mask(pivot_index, _mm512_set1_epi8(64));
      for (int b = 0; b < planes; ++b) {
        const int lane = kFirstFingerprintLane - 64 + b;
        __mmask64 bits =
            _mm512_bitshuffle_epi64_mask(_mm512_set1_epi64(static_cast<long long>(high[0][lane])), pivot_index) &
            ~second_half;
        if constexpr (kHalves > 1) {
          bits |= _mm512_bitshuffle_epi64_mask(_mm512_set1_epi64(static_cast<long long>(high[1][lane])), pivot_index) &
                  second_half;
        }
        (part == 0 ? out->planes[b].lo : out->planes[b].hi) = _cvtmask64_u64(bits & pivot_column);
      }
    }
    if constexpr (kColumns <= 64) {
      for (int b = 0; b < planes; ++b) out->planes[b].hi = 0;
    }
  }
};

// Each instance is one long straight-line body (the columns unrolled), and
// how fast it decodes depends on where it falls within 64-byte fetch
// lines: aligned to 64 bytes, it no longer depends on what the linker
// places before it.
template <int kPlanes, int kHalves>
LINEBLOOM_TRANSPOSED_TARGET __attribute__((aligned(64))) size_t SolveWith(const uint64_t* lo, const uint64_t* hi,
                                                                          size_t count, int planes, int8_t* pivot_of,
                                                                          PlaneSet* solution,
                                                                          bool stop_at_contradiction) {
  TransposedSweep<kPlanes, kHalves> s;
  std::memset(s.pivot_of, -1, sizeof(s.pivot_of));
  s.Load(lo, hi, count);
  s.Groups(std::make_integer_sequence<int, 16>());
  const size_t first = s.FirstContradiction(count);
  if (first == count || !stop_at_contradiction) s.Planes(planes, solution);
  std::memcpy(pivot_of, s.pivot_of, TransposedSweep<kPlanes, kHalves>::kColumns);
  return first;
}

using SolveFn = size_t (*)(const uint64_t*, const uint64_t*, size_t, int, int8_t*, PlaneSet*, bool);
constexpr int kMaxSweepPlanes = kMaxPlanes;
// One solve per column count, that of its most planes (the others of the
// same columns are never asked for: nullptr). Lines of more than 64 keys
// (two halves) are common only where a line has 63 columns or more
// (CanSolveReduced). Lines of 5 planes (100 columns), which only filters
// of under about 6.5 bits per key have, keep the blocked sweep: their
// unrolled columns would be the largest instances to compile.
template <int kPlanes, int kHalves>
constexpr SolveFn SolveFor() {
  if constexpr (kPlanes < kMaxSweepPlanes && ColumnsFor(kPlanes + 1) == ColumnsFor(kPlanes)) return nullptr;
  if constexpr (kHalves > 1 && ColumnsFor(kPlanes) < 63) return nullptr;
  if constexpr (ColumnsFor(kPlanes) > 84) return nullptr;
  return &SolveWith<kPlanes, kHalves>;
}
template <int... kIs>
constexpr std::array<std::array<SolveFn, 2>, sizeof...(kIs)> SolveTable(std::integer_sequence<int, kIs...>) {
  return {{{SolveFor<kMinFingerprintBits + kIs, 1>(), SolveFor<kMinFingerprintBits + kIs, 2>()}...}};
}
constexpr auto kSolves = SolveTable(std::make_integer_sequence<int, kMaxSweepPlanes - kMinFingerprintBits + 1>());

// The solve of `count` equations of `columns` columns, or nullptr. The
// plane count a line of `columns` columns has at most (ColumnsFor rounds
// down): its groups hold any such line's bits.
SolveFn SolveOf(size_t count, int columns) {
  const int planes = kPlaneBits / columns;
  if (count > 2 * 64 || planes < kMinFingerprintBits || planes > kMaxSweepPlanes || ColumnsFor(planes) != columns) {
    return nullptr;
  }
  return kSolves[planes - kMinFingerprintBits][count > 64 ? 1 : 0];
}

}  // namespace

namespace {
std::atomic<bool> solve_reduced_enabled{true};
}  // namespace

void EnableSolveReducedForTesting(bool enabled) { solve_reduced_enabled.store(enabled, std::memory_order_relaxed); }

bool CanSolveReduced(size_t count, int columns) {
  if (!solve_reduced_enabled.load(std::memory_order_relaxed)) return false;
  static const bool has = __builtin_cpu_supports("avx512vbmi") && __builtin_cpu_supports("avx512bitalg") &&
                          __builtin_cpu_supports("gfni") && __builtin_cpu_supports("bmi2");
  return has && HasSweep() && SolveOf(count, columns) != nullptr;
}

size_t SolveReduced(const uint64_t* lo, const uint64_t* hi, size_t count, int columns, int planes, int8_t* pivot_of,
                    PlaneSet* solution, bool stop_at_contradiction) {
  return SolveOf(count, columns)(lo, hi, count, planes, pivot_of, solution, stop_at_contradiction);
}

#else

void EnableSolveReducedForTesting(bool) {}
bool CanSolveReduced(size_t, int) { return false; }
size_t SolveReduced(const uint64_t*, const uint64_t*, size_t count, int, int, int8_t*, PlaneSet*, bool) {
  return count;
}

#endif

}  // namespace linebloom::internal::compact
