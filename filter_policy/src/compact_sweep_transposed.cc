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
// x 8 words across the vectors by VPERMT2Q. A line of more than 64
// equations sweeps its first 64 so and takes the others one at a time
// (SweptHalf). (The zero-masking forms of the intrinsics: GCC 12's
// unmasked ones start from an undefined register and warn.)

#include "compact_sweep.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cstring>
#include <utility>

#include "compact_bit_vectors.h"
#include "compact_layout.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace linebloom::internal::compact {

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
namespace {

// The transposed system of up to 64 equations of a line of kPlanes planes
// (or fewer planes of the same columns): lanes[g] is group g of the masks
// (groups 0..7 the low words' lanes, 8..15 the high words'). Only the
// groups that can hold a bit are kept: the low words' first kLo (the
// columns below 64) and the high words' first kHi. Everything that depends
// on the column count is known at compile time, so the unrolled columns run
// without a branch.
template <int kPlanes>
struct TransposedSweep {
  static constexpr int kColumns = ColumnsFor(kPlanes);
  static constexpr int kLo = (std::min(kColumns, 64) + 7) / 8;
  static constexpr int kHi = ((kColumns > 64 ? kColumns - 64 + kPlanes : kPlanes) + 7) / 8;
  // Fingerprint bit b is lane kFirstFingerprintLane + b.
  static constexpr int kFirstFingerprintLane = kColumns <= 64 ? 64 : kColumns;
  static constexpr bool Kept(int g) { return g < kLo || (g >= 8 && g < 8 + kHi); }

  __m512i lanes[16];
  uint64_t pivots = 0;
  int8_t pivot_of[128];  // -1 past the columns too

  // Equations [0, count) of lo and hi in (count <= 64), the rest zero.
  LINEBLOOM_TRANSPOSED_INLINE void Load(const uint64_t* lo, const uint64_t* hi, size_t count) {
    const size_t vectors = (std::min<size_t>(count, 64) + 7) / 8;
    for (int word = 0; word < 2; ++word) {
      const uint64_t* in = word == 0 ? lo : hi;
      __m512i rows[8];
      for (size_t v = 0; v < 8; ++v) rows[v] = v < vectors ? _mm512_load_si512(in + 8 * v) : _mm512_setzero_si512();
      Transpose64(rows, lanes + 8 * word);
    }
  }

  // Sweeps equations [0, count) of lo and hi (count <= 64).
  LINEBLOOM_TRANSPOSED_INLINE void Sweep(const uint64_t* lo, const uint64_t* hi, size_t count) {
    std::memset(pivot_of, -1, sizeof(pivot_of));
    Load(lo, hi, count);
    Groups(std::make_integer_sequence<int, 16>());
  }

  // Column 8 kGroup + kStep, whose group's lanes are `col`.
  template <int kGroup, int kStep>
  LINEBLOOM_TRANSPOSED_INLINE void Column(uint64_t* col) {
    constexpr int p = 8 * kGroup + kStep;
    if constexpr (p < kColumns) ColumnAt<kGroup, kStep>(col);
  }
  template <int kGroup, int kStep>
  LINEBLOOM_TRANSPOSED_INLINE void ColumnAt(uint64_t* col) {
    const uint64_t cand = col[kStep] & ~pivots;
    const uint64_t pivot = cand & (0 - cand);    // i, or 0
    const uint64_t others = col[kStep] ^ pivot;  // s
    pivots |= pivot;
    pivot_of[8 * kGroup + kStep] = static_cast<int8_t>(pivot != 0 ? std::countr_zero(pivot) : -1);
    UpdateLanes<kGroup, kStep>(col, pivot, others, std::make_integer_sequence<int, 8>());
    const __m512i pivot_bit = _mm512_set1_epi64(static_cast<long long>(pivot));
    const __m512i add = _mm512_set1_epi64(static_cast<long long>(others));
    UpdateGroups<kGroup>(pivot_bit, add, std::make_integer_sequence<int, 16>());
  }

  template <int kGroup, int kStep, int... kQs>
  LINEBLOOM_TRANSPOSED_INLINE void UpdateLanes(uint64_t* col, uint64_t pivot, uint64_t others,
                                               std::integer_sequence<int, kQs...>) {
    (UpdateLane<kGroup, kStep, kQs>(col, pivot, others), ...);
  }
  template <int kGroup, int kStep, int kQ>
  LINEBLOOM_TRANSPOSED_INLINE void UpdateLane(uint64_t* col, uint64_t pivot, uint64_t others) {
    // The pivot's bit of the lane (PEXT of a one-bit mask; 0 if no pivot).
    // The column's own lane, which becomes the pivot alone, is read again
    // only in the high word's groups (FirstContradiction).
    constexpr bool kOwnLane = kQ == kStep;
    if constexpr (kQ > kStep || (kOwnLane && kGroup >= 8)) col[kQ] ^= others & (0 - _pext_u64(col[kQ], pivot));
  }

  template <int kGroup, int... kGs>
  LINEBLOOM_TRANSPOSED_INLINE void UpdateGroups(__m512i pivot_bit, __m512i add, std::integer_sequence<int, kGs...>) {
    (UpdateGroup<kGroup, kGs>(pivot_bit, add), ...);
  }
  template <int kGroup, int kG>
  LINEBLOOM_TRANSPOSED_INLINE void UpdateGroup(__m512i pivot_bit, __m512i add) {
    if constexpr (kG > kGroup && Kept(kG)) {
      lanes[kG] = _mm512_mask_xor_epi64(lanes[kG], _mm512_test_epi64_mask(lanes[kG], pivot_bit), lanes[kG], add);
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
  LINEBLOOM_TRANSPOSED_INLINE void Columns(uint64_t* col, std::integer_sequence<int, kSteps...>) {
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
    return bad != 0 ? std::min<size_t>(count, std::countr_zero(bad)) : count;
  }

  // The lanes as words: lane q is words[q] (those of the kept groups).
  LINEBLOOM_TRANSPOSED_INLINE void StoreLanes(uint64_t* words) const {
    for (int g = 0; g < 16; ++g) {
      if (Kept(g)) _mm512_store_si512(words + 8 * g, lanes[g]);
    }
  }

  // The planes (file comment): bit p of plane b is bit pivot_of[p] of
  // fingerprints[b], the lane of fingerprint bit b (or, past 64 equations,
  // that lane with the later equations' solution in it).
  LINEBLOOM_TRANSPOSED_INLINE void Planes(int planes, const uint64_t* fingerprints, PlaneSet* out) const {
    for (int part = 0; part * 64 < kColumns; ++part) {
      // Column 64 part + j's pivot in byte j; -1 (free) has its sign bit.
      const __m512i pivot_index = _mm512_loadu_si512(pivot_of + 64 * part);
      const __mmask64 pivot_column = ~_mm512_movepi8_mask(pivot_index);
      for (int b = 0; b < planes; ++b) {
        const __mmask64 bits =
            _mm512_bitshuffle_epi64_mask(_mm512_set1_epi64(static_cast<long long>(fingerprints[b])), pivot_index);
        (part == 0 ? out->planes[b].lo : out->planes[b].hi) = _cvtmask64_u64(bits & pivot_column);
      }
    }
    if constexpr (kColumns <= 64) {
      for (int b = 0; b < planes; ++b) out->planes[b].hi = 0;
    }
  }
};

// A line of more than 64 equations (up to kMaxSweepKeys): equations 0..63
// by the sweep above, then each later equation e on its own, which the
// sweep's reduced pivots make short. The sweep of all equations would
// choose the same pivots for equations 0..63 (a column's pivot is its
// lowest candidate, and a later equation's pivot is only ever added to
// equations that have no candidate in its column: earlier pivots), and
// leaves equation i < 64 a pivot of column p reduced: bit p set and no
// other pivot's column. So e reduces to
//   e' = e + sum of pivot(p) for each pivot column p that e has,
// which has no bit in those columns; with u the mask of the pivots whose
// column e has, bit q of e' is bit q of e xor parity(u & lane q). The e'
// then go in one at a time, each a pivot of its lowest column where no
// earlier one is, within the columns the sweep left free: the pivots and
// the first contradiction of the sweep of all equations. The planes' bits
// in those later pivots' columns solve the later pivots alone (their rows
// have no sweep pivot's column); a sweep pivot's column then takes bit
// b = its fingerprint bit b xor parity(its bits in the later pivots'
// columns & plane b), that is, bit pivot_of[p] of fingerprint lane b xor
// every later pivot column's lane q where plane b has bit q.
template <int kPlanes>
struct SweptHalf {
  using Sweep = TransposedSweep<kPlanes>;
  static constexpr int kColumns = Sweep::kColumns;
  static constexpr uint64_t kRowHiMask = kColumns > 64 ? (uint64_t{1} << (kColumns - 64)) - 1 : 0;
  static constexpr int kFpShift = kColumns > 64 ? kColumns - 64 : 0;

  const Sweep& s;
  alignas(64) uint64_t words[128];  // lane q of the sweep: words[q]
  __m512i column_index;             // byte i: the column of sweep pivot i
  __mmask64 high_column;            // pivots of columns 64 and up
  Bits128 free;                     // the columns without a sweep pivot

  LINEBLOOM_TRANSPOSED_INLINE explicit SweptHalf(const Sweep& sweep) : s(sweep) {
    s.StoreLanes(words);
    // bitshuffle reads an index's low 6 bits, so a column from 64 on
    // indexes the high word.
    alignas(64) int8_t column_of[128] = {};
    for (int p = 0; p < kColumns; ++p) column_of[s.pivot_of[p] & 127] = static_cast<int8_t>(p);
    column_index = _mm512_load_si512(column_of);
    high_column = _mm512_cmpge_epi8_mask(column_index, _mm512_set1_epi8(64));
    free = LowMask(kColumns);
    for (int part = 0; part * 64 < kColumns; ++part) {
      const uint64_t pivot_column = ~_cvtmask64_u64(_mm512_movepi8_mask(_mm512_loadu_si512(s.pivot_of + 64 * part)));
      (part == 0 ? free.lo : free.hi) &= ~pivot_column;
    }
  }

  // u: the sweep pivots whose column equation e has.
  LINEBLOOM_TRANSPOSED_INLINE uint64_t PivotsIn(uint64_t lo, uint64_t hi) const {
    const __mmask64 in_lo = _mm512_bitshuffle_epi64_mask(_mm512_set1_epi64(static_cast<long long>(lo)), column_index);
    const __mmask64 in_hi = _mm512_bitshuffle_epi64_mask(_mm512_set1_epi64(static_cast<long long>(hi)), column_index);
    return _cvtmask64_u64((in_lo & ~high_column) | (in_hi & high_column)) & s.pivots;
  }

  // The planes: the sweep pivots' columns from fingerprint lanes with the
  // later pivots' `later` planes added (file comment), and `later`.
  LINEBLOOM_TRANSPOSED_INLINE void Planes(int planes, const PlaneSet& later, PlaneSet* out) const {
    uint64_t fingerprints[32];
    for (int b = 0; b < planes; ++b) {
      fingerprints[b] = words[Sweep::kFirstFingerprintLane + b] ^ XorOfSelected(words, later.planes[b].lo, Sweep::kLo) ^
                        XorOfSelected(words + 64, later.planes[b].hi, Sweep::kHi);
    }
    s.Planes(planes, fingerprints, out);
    for (int b = 0; b < planes; ++b) out->planes[b] = out->planes[b] ^ later.planes[b];
  }
};

// The later equations (past 64) where their short forms fit a word: bit
// j < n (n the free columns) e's bit in the j-th free column, bits n.. its
// fingerprint. Their pivots are kept reduced (Gauss-Jordan), so each e'
// reduces by one xor of the pivots of its bits, and a new pivot is added
// to the others that have its column; the reduced pivots' fingerprints are
// then the planes' bits in their columns.
template <int kPlanes>
LINEBLOOM_TRANSPOSED_INLINE size_t SolveLaterShort(const SweptHalf<kPlanes>& h, const uint64_t* lo, const uint64_t* hi,
                                                   size_t count, size_t first, int planes, int8_t* pivot_of,
                                                   PlaneSet* solution, bool stop_at_contradiction) {
  const int n_lo = std::popcount(h.free.lo);
  const int n = n_lo + std::popcount(h.free.hi);
  alignas(64) uint64_t short_lanes[64] = {};  // lane j of the short forms
  int8_t column[64];                          // the j-th free column
  int j = 0;
  for (uint64_t f = h.free.lo; f != 0; f &= f - 1) column[j++] = static_cast<int8_t>(std::countr_zero(f));
  for (uint64_t f = h.free.hi; f != 0; f &= f - 1) column[j++] = static_cast<int8_t>(64 + std::countr_zero(f));
  for (int q = 0; q < n; ++q) short_lanes[q] = h.words[column[q]];
  for (int b = 0; b < planes; ++b) short_lanes[n + b] = h.words[SweptHalf<kPlanes>::Sweep::kFirstFingerprintLane + b];
  const int lane_vectors = (n + planes + 7) / 8, row_vectors = (n + 7) / 8;
  const uint64_t row_mask = LowMask(n).lo;
  alignas(64) uint64_t pivot_rows[64] = {};  // short column j's pivot, reduced
  uint64_t later_pivots = 0;
  for (size_t e = 64; e < count; ++e) {
    const uint64_t given =
        _pext_u64(lo[e], h.free.lo) | _pext_u64(hi[e] & h.kRowHiMask, h.free.hi) << n_lo | (hi[e] >> h.kFpShift) << n;
    uint64_t x = given ^ ParitiesWith(short_lanes, h.PivotsIn(lo[e], hi[e]), lane_vectors);
    x ^= XorOfSelected(pivot_rows, x & later_pivots, row_vectors);
    if ((x & row_mask) == 0) {
      if (x != 0 && first == count) {
        first = e;
        if (stop_at_contradiction) return first;
      }
      continue;
    }
    const int p = std::countr_zero(x);
    const __m512i new_row = _mm512_set1_epi64(static_cast<long long>(x));
    const __m512i bit = _mm512_set1_epi64(static_cast<long long>(uint64_t{1} << p));
    for (int v = 0; v < row_vectors; ++v) {
      __m512i rows = _mm512_load_si512(pivot_rows + 8 * v);
      rows = _mm512_mask_xor_epi64(rows, _mm512_test_epi64_mask(rows, bit), rows, new_row);
      rows = _mm512_mask_mov_epi64(rows, static_cast<__mmask8>((uint64_t{1} << p) >> (8 * v)), new_row);
      _mm512_store_si512(pivot_rows + 8 * v, rows);
    }
    later_pivots |= uint64_t{1} << p;
    pivot_of[column[p]] = static_cast<int8_t>(e);
  }
  if (first < count && stop_at_contradiction) return first;
  PlaneSet later;
  for (int b = 0; b < planes; ++b) {
    const uint64_t bits = BitOfEach(pivot_rows, n + b, row_vectors) & later_pivots;
    later.planes[b] = {_pdep_u64(bits, h.free.lo), _pdep_u64(bits >> n_lo, h.free.hi)};
  }
  h.Planes(planes, later, solution);
  return first;
}

// The later equations (past 64) where their short forms do not fit a word
// (equations 0..63 of few columns): each e' by its full row, inserted as
// LineSolver inserts one key at a time, and the planes of those pivots by
// back substitution.
template <int kPlanes>
LINEBLOOM_TRANSPOSED_INLINE size_t SolveLaterByRows(const SweptHalf<kPlanes>& h, const uint64_t* lo, const uint64_t* hi,
                                                    size_t count, size_t first, int planes, int8_t* pivot_of,
                                                    PlaneSet* solution, bool stop_at_contradiction) {
  constexpr int kColumns = SweptHalf<kPlanes>::kColumns;
  Bits128 rows[128];
  uint32_t fps[128];
  Bits128 filled;
  for (size_t e = 64; e < count; ++e) {
    const uint64_t u = h.PivotsIn(lo[e], hi[e]);
    const uint64_t x_lo = lo[e] ^ ParitiesWith(h.words, u, SweptHalf<kPlanes>::Sweep::kLo);
    const uint64_t x_hi = hi[e] ^ ParitiesWith(h.words + 64, u, SweptHalf<kPlanes>::Sweep::kHi);
    // e' has no bit in a sweep pivot's column; those lanes are not kept.
    const Bits128 row = Bits128{x_lo, x_hi & h.kRowHiMask} & h.free;
    uint32_t fp = static_cast<uint32_t>(x_hi >> h.kFpShift);
    const int p = AddEquation(row, fp, rows, fps, filled);
    if (p >= 0) {
      pivot_of[p] = static_cast<int8_t>(e);
    } else if (fp != 0 && first == count) {
      first = e;
      if (stop_at_contradiction) return first;
    }
  }
  const PlaneSet later = IsZero(filled) ? PlaneSet{} : BackSubstitute(PivotSystem{rows, fps, filled, kColumns, planes});
  h.Planes(planes, later, solution);
  return first;
}

// Reduced lines of more than 64 equations are asked for only from 63
// columns on (CanSolveReduced).
inline constexpr int kSplitFromColumns = 63;

// The solve of up to 64 equations, or, from kSplitFromColumns columns on,
// up to kMaxSweepKeys: the first 64 swept and the others after them
// (SweptHalf's comment). Each instance is one long straight-line body (the
// columns unrolled), and how fast it decodes depends on where it falls
// within 64-byte fetch lines: aligned to 64 bytes, it no longer depends on
// what the linker places before it.
template <int kPlanes>
LINEBLOOM_TRANSPOSED_TARGET __attribute__((aligned(64))) size_t SolveWith(const uint64_t* lo, const uint64_t* hi,
                                                                          size_t count, int planes, int8_t* pivot_of,
                                                                          PlaneSet* solution,
                                                                          bool stop_at_contradiction) {
  using Sweep = TransposedSweep<kPlanes>;
  Sweep s;
  s.Sweep(lo, hi, std::min<size_t>(count, 64));
  const size_t first = s.FirstContradiction(count);
  std::memcpy(pivot_of, s.pivot_of, Sweep::kColumns);
  if (first < count && stop_at_contradiction) return first;
  if constexpr (Sweep::kColumns >= kSplitFromColumns) {
    if (count > 64) {
      const SweptHalf<kPlanes> h(s);
      if (std::popcount(h.free.lo) + std::popcount(h.free.hi) + planes <= 64) {
        return SolveLaterShort(h, lo, hi, count, first, planes, pivot_of, solution, stop_at_contradiction);
      }
      return SolveLaterByRows(h, lo, hi, count, first, planes, pivot_of, solution, stop_at_contradiction);
    }
  }
  alignas(64) uint64_t words[128];
  s.StoreLanes(words);
  s.Planes(planes, words + Sweep::kFirstFingerprintLane, solution);
  return first;
}

using SolveFn = size_t (*)(const uint64_t*, const uint64_t*, size_t, int, int8_t*, PlaneSet*, bool);
constexpr int kMaxSweepPlanes = kMaxPlanes;
// One solve per column count, that of its most planes (the others of the
// same columns are never asked for: nullptr). Lines of more than 64 keys
// are common only where a line has kSplitFromColumns columns or more.
// Lines of 5 planes (100 columns), which only filters of under about 6.5
// bits per key have, keep the blocked sweep: their unrolled columns would
// be the largest instances to compile.
template <int kPlanes>
constexpr SolveFn SolveFor() {
  if constexpr (kPlanes < kMaxSweepPlanes && ColumnsFor(kPlanes + 1) == ColumnsFor(kPlanes)) return nullptr;
  if constexpr (ColumnsFor(kPlanes) > 84) return nullptr;
  return &SolveWith<kPlanes>;
}
template <int... kIs>
constexpr std::array<SolveFn, sizeof...(kIs)> SolveTable(std::integer_sequence<int, kIs...>) {
  return {SolveFor<kMinFingerprintBits + kIs>()...};
}
constexpr auto kSolves = SolveTable(std::make_integer_sequence<int, kMaxSweepPlanes - kMinFingerprintBits + 1>());

// The solve of `count` equations of `columns` columns, or nullptr. The
// plane count a line of `columns` columns has at most (ColumnsFor rounds
// down): its groups hold any such line's bits.
SolveFn SolveOf(size_t count, int columns) {
  const int planes = kPlaneBits / columns;
  if (count > kMaxSweepKeys || (count > 64 && columns < kSplitFromColumns) || planes < kMinFingerprintBits ||
      planes > kMaxSweepPlanes || ColumnsFor(planes) != columns) {
    return nullptr;
  }
  return kSolves[planes - kMinFingerprintBits];
}

}  // namespace

namespace {
std::atomic<bool> solve_reduced_enabled{true};
}  // namespace

void EnableSolveReducedForTesting(bool enabled) { solve_reduced_enabled.store(enabled, std::memory_order_relaxed); }

bool CanSolveReduced(size_t count, int columns) {
  if (!solve_reduced_enabled.load(std::memory_order_relaxed)) return false;
  static const bool has = __builtin_cpu_supports("avx512vbmi") && __builtin_cpu_supports("avx512bitalg") &&
                          __builtin_cpu_supports("avx512vpopcntdq") && __builtin_cpu_supports("gfni") &&
                          __builtin_cpu_supports("bmi2");
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
