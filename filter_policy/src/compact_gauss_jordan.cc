// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.

#include "compact_gauss_jordan.h"

#include <algorithm>
#include <bit>
#include <cstring>

#include "compact_avalanche.h"
#include "kernel_state.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace linebloom::internal::compact {
namespace {

#define LINEBLOOM_GJ_INLINE __attribute__((always_inline)) inline

// A column's pivot step: the pivot equation (bit `bit` of word `word`)
// is added to the column's other equations (`others`, by word).
template <int kWords>
struct PivotStep {
  int word;
  uint64_t bit;
  uint64_t others[kWords];
};

// The loops of the solve, portable: the 64 x 64 bit transpose, the update
// of the later lanes at one or two columns' steps, and the planes from the
// pivots.
struct PortableBits {
  // In place: bit q of w[i] becomes bit i of w[q]. Swapping the two
  // off-diagonal blocks of a matrix and transposing each quarter transposes
  // it; the quarters' swaps at each size are one pass over the words,
  // halves first.
  //   simple form: out[q] |= ((w[i] >> q) & 1) << i for every i and q
  LINEBLOOM_GJ_INLINE static void Transpose64(uint64_t* w) {
    uint64_t m = 0x00000000FFFFFFFFu;  // the bits of each block's low half
    for (int j = 32; j != 0; j >>= 1, m ^= m << j) {
      for (int k = 0; k < 64; k = ((k | j) + 1) & ~j) {
        const uint64_t t = ((w[k] >> j) ^ w[k | j]) & m;
        w[k] ^= t << j;
        w[k | j] ^= t;
      }
    }
  }
  // rows[0, 64): the n equations of `from`, then zeros.
  LINEBLOOM_GJ_INLINE static void LoadRows(uint64_t* rows, const uint64_t* from, size_t n) {
    std::memcpy(rows, from, n * sizeof(uint64_t));
    std::fill(rows + n, rows + 64, 0);
  }
  // The fingerprint lanes [64, 64 + planes) moved down to [columns,
  // columns + planes) (columns < 64); the lanes from there to the end of
  // their block of four are zero after.
  LINEBLOOM_GJ_INLINE static void MoveFingerprintLanes(uint64_t* lane, int columns, int planes) {
    std::memmove(lane + columns, lane + 64, static_cast<size_t>(planes) * sizeof(uint64_t));
    std::fill(lane + columns + planes, lane + 64 + planes, 0);
  }
  // Adds `others` to the equations of lanes [from, to) that hold the
  // pivot (word `pw`, bit `bit`), in whole aligned blocks of four lanes: the
  // lanes before `from` in its block are columns already swept, which are
  // not read again, and those past `to` hold no equation's bit (a zero lane
  // never holds the pivot).
  //   simple form: for (q = from; q < to; ++q) if (lane[pw][q] & bit)
  //   lane[w][q] ^= others[w] for each w
  template <int kWords>
  LINEBLOOM_GJ_INLINE static void AddWhereHeld(uint64_t (*lane)[128], int from, int to, const PivotStep<kWords>& a) {
    for (int q = from & ~3; q < to; ++q) {
      const uint64_t flip = 0 - static_cast<uint64_t>((lane[a.word][q] & a.bit) != 0);
      for (int w = 0; w < kWords; ++w) lane[w][q] ^= a.others[w] & flip;
    }
  }
  // The steps of two consecutive columns in one pass, b after a.
  //   simple form: AddWhereHeld(lane, from, to, a);
  //                AddWhereHeld(lane, from, to, b)
  template <int kWords>
  LINEBLOOM_GJ_INLINE static void AddWhereHeldTwo(uint64_t (*lane)[128], int from, int to, const PivotStep<kWords>& a,
                                                  const PivotStep<kWords>& b) {
    for (int q = from & ~3; q < to; ++q) {
      const uint64_t flip_a = 0 - static_cast<uint64_t>((lane[a.word][q] & a.bit) != 0);
      for (int w = 0; w < kWords; ++w) lane[w][q] ^= a.others[w] & flip_a;
      const uint64_t flip_b = 0 - static_cast<uint64_t>((lane[b.word][q] & b.bit) != 0);
      for (int w = 0; w < kWords; ++w) lane[w][q] ^= b.others[w] & flip_b;
    }
  }
  // The planes of the reduced system: bit p of plane b is bit pivot_of[p]
  // of fingerprint lane b (lane columns + b), 0 for a free column
  // (pivot_of[p] < 0). By two transposes: the lanes to each equation's
  // fingerprint, and the pivots' fingerprints, by column, to the planes.
  //   simple form: for each pivot column p, i = pivot_of[p]:
  //     plane[b] |= ((lane[i / 64][columns + b] >> i % 64) & 1) << p
  template <int kWords>
  static void PlanesOfPivots(uint64_t (*lane)[128], int columns, int planes, const int8_t* pivot_of,
                             PlaneSet* solution) {
    uint64_t fingerprint_of[kWords][64];
    for (int w = 0; w < kWords; ++w) {
      std::fill(fingerprint_of[w], fingerprint_of[w] + 64, 0);
      std::copy(lane[w] + columns, lane[w] + columns + planes, fingerprint_of[w]);
      Transpose64(fingerprint_of[w]);
    }
    uint64_t by_column[128] = {};
    for (int p = 0; p < columns; ++p) {
      const int i = pivot_of[p];
      by_column[p] = i < 0 ? 0 : fingerprint_of[i >> 6][i & 63];
    }
    Transpose64(by_column);
    if (columns > 64) Transpose64(by_column + 64);
    for (int b = 0; b < planes; ++b) solution->planes[b] = {by_column[b], columns > 64 ? by_column[64 + b] : 0};
  }
};

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define LINEBLOOM_GJ_AVX2 __attribute__((target("avx2"), always_inline)) inline
// The calls from the portable templates (which cannot inline a function
// of a wider target).
#define LINEBLOOM_GJ_AVX2_CALL __attribute__((target("avx2"), noinline))

// PortableBits with AVX2, four words per register.
struct Avx2Bits {
  // A swap of blocks of kHalf >= 4 bits: rows k and k + kHalf are in
  // different registers.
  template <int kHalf>
  LINEBLOOM_GJ_AVX2 static void SwapRows(uint64_t* w, uint64_t low_half) {
    const __m256i m = _mm256_set1_epi64x(static_cast<long long>(low_half));
    for (int base = 0; base < 64; base += 2 * kHalf) {
      for (int k = base; k < base + kHalf; k += 4) {
        const __m256i a = Load(w + k), b = Load(w + k + kHalf);
        const __m256i t = _mm256_and_si256(_mm256_xor_si256(_mm256_srli_epi64(a, kHalf), b), m);
        Store(w + k, _mm256_xor_si256(a, _mm256_slli_epi64(t, kHalf)));
        Store(w + k + kHalf, _mm256_xor_si256(b, t));
      }
    }
  }
  // A swap of blocks of kHalf = 2 or 1 bits: row k + kHalf is in the same
  // register, its words moved over row k's by a permute (and the result
  // back), and kUpper picks the rows of the register that take the moved
  // bits.
  template <int kHalf, int kUpper>
  LINEBLOOM_GJ_AVX2 static void SwapWithin(uint64_t* w, uint64_t low_half) {
    const __m256i m = _mm256_set1_epi64x(static_cast<long long>(low_half));
    for (int k = 0; k < 64; k += 4) {
      const __m256i a = Load(w + k);
      const __m256i b = kHalf == 2 ? _mm256_permute4x64_epi64(a, 0x4E) : _mm256_shuffle_epi32(a, 0x4E);
      const __m256i t = _mm256_and_si256(_mm256_xor_si256(_mm256_srli_epi64(a, kHalf), b), m);
      const __m256i t_moved = kHalf == 2 ? _mm256_permute4x64_epi64(t, 0x4E) : _mm256_shuffle_epi32(t, 0x4E);
      const __m256i lower = _mm256_xor_si256(a, _mm256_slli_epi64(t, kHalf));
      Store(w + k, _mm256_blend_epi32(lower, _mm256_xor_si256(a, t_moved), kUpper));
    }
  }
  LINEBLOOM_GJ_AVX2_CALL static void Transpose64(uint64_t* w) {
    SwapRows<32>(w, 0x00000000FFFFFFFFu);
    SwapRows<16>(w, 0x0000FFFF0000FFFFu);
    SwapRows<8>(w, 0x00FF00FF00FF00FFu);
    SwapRows<4>(w, 0x0F0F0F0F0F0F0F0Fu);
    SwapWithin<2, 0xF0>(w, 0x3333333333333333u);
    SwapWithin<1, 0xCC>(w, 0x5555555555555555u);
  }
  // PortableBits::LoadRows by masked loads: the call's variable copy and
  // fill cost more than the 16 loads of fixed size.
  LINEBLOOM_GJ_AVX2_CALL static void LoadRows(uint64_t* rows, const uint64_t* from, size_t n) {
    const __m256i count = _mm256_set1_epi64x(static_cast<long long>(n));
    for (int i = 0; i < 64; i += 4) {
      const __m256i held = _mm256_cmpgt_epi64(count, _mm256_setr_epi64x(i, i + 1, i + 2, i + 3));
      Store(rows + i, _mm256_maskload_epi64(reinterpret_cast<const long long*>(from + i), held));
    }
  }
  // PortableBits::MoveFingerprintLanes in blocks of four, front to back,
  // through the end of the last lane's block: each block is loaded before
  // its store, which can only overwrite source lanes already loaded (the
  // lanes move down). The lanes copied past the fingerprint's come from
  // lanes 64 + planes on, zero after the transpose (a row of C < 64
  // columns has its fingerprint alone in its high word).
  LINEBLOOM_GJ_AVX2_CALL static void MoveFingerprintLanes(uint64_t* lane, int columns, int planes) {
    const int through = ((columns + planes + 3) & ~3) - columns;
    for (int b = 0; b < through; b += 4) {
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(lane + columns + b),
                          _mm256_loadu_si256(reinterpret_cast<const __m256i*>(lane + 64 + b)));
    }
  }
  template <int kWords>
  LINEBLOOM_GJ_AVX2_CALL static void AddWhereHeld(uint64_t (*lane)[128], int from, int to, const PivotStep<kWords>& a) {
    const __m256i pivot = _mm256_set1_epi64x(static_cast<long long>(a.bit));
    __m256i add[kWords];
    for (int w = 0; w < kWords; ++w) add[w] = _mm256_set1_epi64x(static_cast<long long>(a.others[w]));
    for (int q = from & ~3; q < to; q += 4) {
      const __m256i not_held =
          _mm256_cmpeq_epi64(_mm256_and_si256(Load(lane[a.word] + q), pivot), _mm256_setzero_si256());
      for (int w = 0; w < kWords; ++w) {
        Store(lane[w] + q, _mm256_xor_si256(Load(lane[w] + q), _mm256_andnot_si256(not_held, add[w])));
      }
    }
  }
  // Each block of four lanes loaded and stored once for both steps; b's
  // test reads the lanes a's step has updated.
  template <int kWords>
  LINEBLOOM_GJ_AVX2_CALL static void AddWhereHeldTwo(uint64_t (*lane)[128], int from, int to,
                                                     const PivotStep<kWords>& a, const PivotStep<kWords>& b) {
    const __m256i pivot_a = _mm256_set1_epi64x(static_cast<long long>(a.bit));
    const __m256i pivot_b = _mm256_set1_epi64x(static_cast<long long>(b.bit));
    __m256i add_a[kWords], add_b[kWords];
    for (int w = 0; w < kWords; ++w) {
      add_a[w] = _mm256_set1_epi64x(static_cast<long long>(a.others[w]));
      add_b[w] = _mm256_set1_epi64x(static_cast<long long>(b.others[w]));
    }
    const bool a_in_second = kWords > 1 && a.word == 1;
    const bool b_in_second = kWords > 1 && b.word == 1;
    for (int q = from & ~3; q < to; q += 4) {
      __m256i x[kWords];
      for (int w = 0; w < kWords; ++w) x[w] = Load(lane[w] + q);
      const __m256i held_a = a_in_second ? x[kWords - 1] : x[0];
      const __m256i not_a = _mm256_cmpeq_epi64(_mm256_and_si256(held_a, pivot_a), _mm256_setzero_si256());
      for (int w = 0; w < kWords; ++w) x[w] = _mm256_xor_si256(x[w], _mm256_andnot_si256(not_a, add_a[w]));
      const __m256i held_b = b_in_second ? x[kWords - 1] : x[0];
      const __m256i not_b = _mm256_cmpeq_epi64(_mm256_and_si256(held_b, pivot_b), _mm256_setzero_si256());
      for (int w = 0; w < kWords; ++w) Store(lane[w] + q, _mm256_xor_si256(x[w], _mm256_andnot_si256(not_b, add_b[w])));
    }
  }
  // Byte i of the result is `bit` where bit i % 8 of byte which[i] of x
  // (within each 128-bit half) is set, else 0.
  LINEBLOOM_GJ_AVX2 static __m256i Spread(__m256i x, __m256i which, __m256i bit_of_byte, __m256i bit) {
    const __m256i held = _mm256_and_si256(_mm256_shuffle_epi8(x, which), bit_of_byte);
    return _mm256_and_si256(_mm256_cmpeq_epi8(held, bit_of_byte), bit);
  }
  // PortableBits::PlanesOfPivots by bytes, eight planes at a time: each
  // fingerprint lane is spread to a byte per equation (bit b % 8 of a
  // table of 64 x kWords bytes), each column's byte fetched from its
  // pivot's by byte shuffles of the table's 16-byte parts (a free column's
  // index, -1, matches no part, and its sign bit makes VPSHUFB answer 0 as
  // well), and each plane's bits collected by VPMOVMSKB. The table stays in
  // registers.
  template <int kWords>
  LINEBLOOM_GJ_AVX2_CALL static void PlanesOfPivots(uint64_t (*lane)[128], int columns, int planes,
                                                    const int8_t* pivot_of, PlaneSet* solution) {
    // The low 128 bits of a spread take bytes 0 and 1 of the lane
    // (equations 0..15), the high 128 bits bytes 2 and 3; the second
    // register bytes 4..7.
    const __m256i first_bytes = _mm256_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1,  //
                                                 2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3);
    const __m256i last_bytes = _mm256_add_epi8(first_bytes, _mm256_set1_epi8(4));
    const __m256i bit_of_byte = _mm256_set1_epi64x(static_cast<long long>(0x8040201008040201u));
    // Pivots are equations 0..127 and columns at most 128 (kWords <= 2).
    static_assert(kWords <= 2);
    alignas(32) int8_t index[128];
    std::fill(index, index + 128, int8_t{-1});
    std::copy(pivot_of, pivot_of + columns, index);
    for (int b = 0; b < planes; ++b) solution->planes[b] = {0, 0};
    for (int g = 0; 8 * g < planes; ++g) {
      const int group_end = std::min(planes, 8 * g + 8);
      // part[k]: table bytes 16k..16k+15 in both halves.
      __m256i part[4 * kWords];
      for (int w = 0; w < kWords; ++w) {
        __m256i first = _mm256_setzero_si256(), last = _mm256_setzero_si256();
        for (int b = 8 * g; b < group_end; ++b) {
          const __m256i x = _mm256_set1_epi64x(static_cast<long long>(lane[w][columns + b]));
          const __m256i bit = _mm256_set1_epi8(static_cast<char>(1 << (b - 8 * g)));
          first = _mm256_or_si256(first, Spread(x, first_bytes, bit_of_byte, bit));
          last = _mm256_or_si256(last, Spread(x, last_bytes, bit_of_byte, bit));
        }
        part[4 * w] = _mm256_permute2x128_si256(first, first, 0x00);
        part[4 * w + 1] = _mm256_permute2x128_si256(first, first, 0x11);
        part[4 * w + 2] = _mm256_permute2x128_si256(last, last, 0x00);
        part[4 * w + 3] = _mm256_permute2x128_si256(last, last, 0x11);
      }
      for (int c = 0; c < columns; c += 32) {
        const __m256i at = _mm256_load_si256(reinterpret_cast<const __m256i*>(index + c));
        const __m256i sixteenth = _mm256_and_si256(at, _mm256_set1_epi8(static_cast<char>(0xF0)));
        __m256i picked = _mm256_setzero_si256();
        for (int k = 0; k < 4 * kWords; ++k) {
          const __m256i here = _mm256_cmpeq_epi8(sixteenth, _mm256_set1_epi8(static_cast<char>(16 * k)));
          picked = _mm256_or_si256(picked, _mm256_and_si256(here, _mm256_shuffle_epi8(part[k], at)));
        }
        for (int b = 8 * g; b < group_end; ++b) {
          // Bit b - 8g of each byte to its sign (a 16-bit shift: the low
          // byte's bits that pass into the high byte reach no sign).
          const __m128i by = _mm_cvtsi32_si128(7 - (b - 8 * g));
          const auto bits = static_cast<uint32_t>(_mm256_movemask_epi8(_mm256_sll_epi16(picked, by)));
          (c < 64 ? solution->planes[b].lo : solution->planes[b].hi) |= uint64_t{bits} << (c & 32);
        }
      }
    }
  }
  LINEBLOOM_GJ_AVX2 static __m256i Load(const uint64_t* p) {
    return _mm256_load_si256(reinterpret_cast<const __m256i*>(p));
  }
  LINEBLOOM_GJ_AVX2 static void Store(uint64_t* p, __m256i v) { _mm256_store_si256(reinterpret_cast<__m256i*>(p), v); }
};
#endif

// GaussJordanEquationsOf, one key at a time.
void EquationsOneByOne(const uint64_t* hashes, size_t count, int columns, int planes, uint64_t* lo, uint64_t* hi) {
  const Bits128 mask = LowMask(columns);
  for (size_t i = 0; i < count; ++i) {
    const KeyCode code = CodeOf(hashes[i]);
    const Bits128 row = RowOf(code, mask);
    const uint64_t fp = FingerprintOf(code, planes);
    lo[i] = row.lo;
    hi[i] = columns > 64 ? row.hi | fp << (columns - 64) : fp;
  }
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
// EquationsOneByOne of the keys in whole groups of four; returns how many
// it did.
//   simple form: EquationsOneByOne(hashes, count, columns, planes, lo, hi)
__attribute__((target("avx2"))) size_t EquationsAvx2(const uint64_t* hashes, size_t count, int columns, int planes,
                                                     uint64_t* lo, uint64_t* hi) {
  const Bits128 mask = LowMask(columns);
  const __m256i mask_lo = _mm256_set1_epi64x(static_cast<long long>(mask.lo));
  const __m256i mask_hi = _mm256_set1_epi64x(static_cast<long long>(mask.hi));
  const __m256i seed = _mm256_set1_epi64x(static_cast<long long>(kCodeSeed));
  const __m256i one = _mm256_set1_epi64x(1);
  const __m128i fp_shift = _mm_cvtsi32_si128(64 - planes);
  const __m128i fp_place = _mm_cvtsi32_si128(columns > 64 ? columns - 64 : 0);
  size_t i = 0;
  for (; i + 4 <= count; i += 4) {
    const __m256i h = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(hashes + i));
    const __m256i row_lo_code = Avalanche4(_mm256_xor_si256(h, seed));
    const __m256i rest = Avalanche4(row_lo_code);
    const __m256i row_lo = _mm256_and_si256(row_lo_code, mask_lo);
    const __m256i row_hi = _mm256_and_si256(rest, mask_hi);
    // A zero row gets bit 0 (RowOf).
    const __m256i zero = _mm256_cmpeq_epi64(_mm256_or_si256(row_lo, row_hi), _mm256_setzero_si256());
    const __m256i fp = _mm256_srl_epi64(rest, fp_shift);
    const __m256i eq_hi = columns > 64 ? _mm256_or_si256(row_hi, _mm256_sll_epi64(fp, fp_place)) : fp;
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(lo + i), _mm256_or_si256(row_lo, _mm256_and_si256(zero, one)));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(hi + i), eq_hi);
  }
  return i;
}
#endif

// The transposed system of up to 64 kWords equations: lane[w][q] is the
// mask of equations 64 w.. with bit q, q < 64 a bit of the low words, q >= 64
// bit q - 64 of the high words. Columns are lanes 0..C-1; fingerprint bit b
// is lane C + b: with C < 64 the transpose puts it at 64 + b, and Solve
// moves it down to C + b, so that a column's step sweeps no lane between
// the columns and the fingerprint.
template <int kWords, class Bits>
struct Lanes {
  alignas(64) uint64_t lane[kWords][128];

  LINEBLOOM_GJ_INLINE void Load(const uint64_t* lo, const uint64_t* hi, size_t count) {
    for (int w = 0; w < kWords; ++w) {
      const size_t begin = std::min<size_t>(count, 64 * static_cast<size_t>(w));
      const size_t n = std::min<size_t>(count - begin, 64);
      uint64_t* low = lane[w];
      uint64_t* high = lane[w] + 64;
      Bits::LoadRows(low, lo + begin, n);
      Bits::LoadRows(high, hi + begin, n);
      Bits::Transpose64(low);
      Bits::Transpose64(high);
    }
  }
};

// Column p's pivot, the lowest candidate equation (not a pivot yet) in
// `column` (the column's lane, by word), in the first word that has one:
// false where there is none (p is free). Sets pivot_of[p] and marks the
// pivot.
template <int kWords>
LINEBLOOM_GJ_INLINE bool TakePivot(const uint64_t* column, int p, uint64_t* pivots, int8_t* pivot_of,
                                   PivotStep<kWords>* step) {
  int pw = 0;
  uint64_t cand = column[0] & ~pivots[0];
  for (int w = 1; w < kWords && cand == 0; ++w) {
    pw = w;
    cand = column[w] & ~pivots[w];
  }
  if (cand == 0) {
    pivot_of[p] = -1;
    return false;
  }
  const uint64_t bit = cand & (0 - cand);
  pivot_of[p] = static_cast<int8_t>(64 * pw + std::countr_zero(bit));
  pivots[pw] |= bit;
  step->word = pw;
  step->bit = bit;
  for (int w = 0; w < kWords; ++w) step->others[w] = column[w] ^ (w == pw ? bit : 0);
  return true;
}

template <int kWords, class Bits>
LINEBLOOM_GJ_INLINE size_t Solve(const uint64_t* lo, const uint64_t* hi, size_t count, int columns, int planes,
                                 int8_t* pivot_of, PlaneSet* solution, bool stop_at_contradiction) {
  Lanes<kWords, Bits> t;
  t.Load(lo, hi, count);
  if (columns < 64) {
    for (int w = 0; w < kWords; ++w) Bits::MoveFingerprintLanes(t.lane[w], columns, planes);
  }
  uint64_t pivots[kWords] = {};
  // Column p's step, and where column p + 1 has a pivot too, that column's
  // step in the same pass over the later lanes: its pivot is chosen on its
  // lane after p's step, taken in registers (a store there would stall the
  // pass's wider load of the same lanes).
  //   simple form: for each column p with a pivot a:
  //     Bits::AddWhereHeld(t.lane, p + 1, columns + planes, a)
  const int to = columns + planes;
  for (int p = 0; p < columns; ++p) {
    uint64_t column[kWords];
    for (int w = 0; w < kWords; ++w) column[w] = t.lane[w][p];
    PivotStep<kWords> a;
    if (!TakePivot(column, p, pivots, pivot_of, &a)) continue;
    if (p + 1 < columns) {
      ++p;
      const uint64_t flip = 0 - static_cast<uint64_t>((t.lane[a.word][p] & a.bit) != 0);
      for (int w = 0; w < kWords; ++w) column[w] = t.lane[w][p] ^ (a.others[w] & flip);
      PivotStep<kWords> b;
      if (TakePivot(column, p, pivots, pivot_of, &b)) {
        Bits::template AddWhereHeldTwo<kWords>(t.lane, p + 1, to, a, b);
        continue;
      }
    }
    Bits::template AddWhereHeld<kWords>(t.lane, p + 1, to, a);
  }
  // A non-pivot equation's row is zero now: a fingerprint bit left is its
  // disagreement with the keys before it.
  size_t first = count;
  for (int w = kWords - 1; w >= 0; --w) {
    uint64_t bad = 0;
    for (int b = 0; b < planes; ++b) bad |= t.lane[w][columns + b];
    bad &= ~pivots[w];
    if (bad != 0) first = std::min<size_t>(count, 64 * static_cast<size_t>(w) + std::countr_zero(bad));
  }
  if (first < count && stop_at_contradiction) return first;
  Bits::template PlanesOfPivots<kWords>(t.lane, columns, planes, pivot_of, solution);
  return first;
}

size_t SolveDefault(const uint64_t* lo, const uint64_t* hi, size_t count, int columns, int planes, int8_t* pivot_of,
                    PlaneSet* solution, bool stop_at_contradiction) {
  if (count <= 64) {
    return Solve<1, PortableBits>(lo, hi, count, columns, planes, pivot_of, solution, stop_at_contradiction);
  }
  return Solve<2, PortableBits>(lo, hi, count, columns, planes, pivot_of, solution, stop_at_contradiction);
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
size_t SolveAvx2(const uint64_t* lo, const uint64_t* hi, size_t count, int columns, int planes, int8_t* pivot_of,
                 PlaneSet* solution, bool stop_at_contradiction) {
  if (count <= 64) {
    return Solve<1, Avx2Bits>(lo, hi, count, columns, planes, pivot_of, solution, stop_at_contradiction);
  }
  return Solve<2, Avx2Bits>(lo, hi, count, columns, planes, pivot_of, solution, stop_at_contradiction);
}
#endif

}  // namespace

void GaussJordanEquationsOf(const uint64_t* hashes, size_t count, int columns, int planes, uint64_t* lo, uint64_t* hi) {
  size_t done = 0;
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  if (UseAvx2Build()) done = EquationsAvx2(hashes, count, columns, planes, lo, hi);
#endif
  EquationsOneByOne(hashes + done, count - done, columns, planes, lo + done, hi + done);
}

size_t SolveGaussJordan(const uint64_t* lo, const uint64_t* hi, size_t count, int columns, int planes, int8_t* pivot_of,
                        PlaneSet* solution, bool stop_at_contradiction) {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  if (UseAvx2Build()) {
    return SolveAvx2(lo, hi, count, columns, planes, pivot_of, solution, stop_at_contradiction);
  }
#endif
  return SolveDefault(lo, hi, count, columns, planes, pivot_of, solution, stop_at_contradiction);
}

}  // namespace linebloom::internal::compact
