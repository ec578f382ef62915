// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// The answer of one compact-filter line to a key's row (compact_layout.h):
// bit b = parity(plane b AND row), for the R planes of C = floor(504 / R)
// bits each. Forms that read the same bytes and give the same answer: the
// portable loop (AnswerPortable, the simple form, and AnswerPortableWindows,
// which the queries use), and an AVX-512 form that answers eight planes at
// once. Internal header.

#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "compact_layout.h"

namespace linebloom::internal::compact {

// The portable form, one plane at a time: the simple form of
// AnswerPortableWindows.
__attribute__((always_inline)) inline uint32_t AnswerPortable(const unsigned char* line, Bits128 row, int planes,
                                                              int columns) {
  uint32_t answer = 0;
  for (int b = 0, at = 0; b < planes; ++b, at += columns) {
    answer |= static_cast<uint32_t>(Parity(LoadPlane(line, at) & row)) << b;
  }
  return answer;
}

// Where plane b of a line of R planes is read from (AnswerPortableWindows):
// the 8-byte words at bytes `first` and `second` and a right shift below 64
// that brings the plane's first bit to bit 0 of the pair. A plane that
// starts in bytes 0..48 is read from there and the next word (shift < 8);
// one that starts in bytes 49..55 from bytes 48 and 56 (the second word
// may not go past the line); one that starts at bit 448 or later (at most
// 56 columns, so its row has no second word) from byte 56 alone, the bits
// the funnel brings in above it meeting zero row bits.
struct PlaneWindow {
  uint8_t first, second, shift;
};
constexpr PlaneWindow PlaneWindowAt(int bit) {
  if (bit < 8 * 49)
    return {static_cast<uint8_t>(bit / 8), static_cast<uint8_t>(bit / 8 + 8), static_cast<uint8_t>(bit % 8)};
  if (bit < 8 * 56) return {48, 56, static_cast<uint8_t>(bit - 8 * 48)};
  return {56, 56, static_cast<uint8_t>(bit - 8 * 56)};
}
inline constexpr auto kPlaneWindows = [] {
  std::array<std::array<PlaneWindow, kMaxPlanes>, kMaxPlanes + 1> all{};
  for (int planes = kMinFingerprintBits; planes <= kMaxPlanes; ++planes) {
    for (int b = 0; b < planes; ++b) all[planes][b] = PlaneWindowAt(b * ColumnsFor(planes));
  }
  return all;
}();

// The portable form for a line's own plane count (columns ColumnsFor(planes)),
// each plane from its window: two loads and a funnel shift, no address
// arithmetic and no 128-bit shift.
//   simple form: AnswerPortable(line, row, planes, ColumnsFor(planes))
__attribute__((always_inline)) inline uint32_t AnswerPortableWindows(const unsigned char* line, Bits128 row,
                                                                     int planes) {
  // From the last plane down, each answer bit shifted in at bit 0.
  const PlaneWindow* const first_window = kPlaneWindows[planes].data();
  uint32_t answer = 0;
  for (const PlaneWindow* window = first_window + planes; window != first_window;) {
    --window;
    uint64_t first, second;
    std::memcpy(&first, line + window->first, sizeof(first));
    std::memcpy(&second, line + window->second, sizeof(second));
    const unsigned shift = window->shift & 63u;
    const unsigned __int128 pair = static_cast<unsigned __int128>(second) << 64 | first;
    const uint64_t lo = static_cast<uint64_t>(pair >> shift);
    const uint64_t hi = second >> shift;
    answer = answer << 1 | static_cast<uint32_t>(Parity(Bits128{lo & row.lo, hi & row.hi}));
  }
  return answer;
}

// True when the CPU has what the AVX-512 form uses (AVX-512 F, BW, DQ,
// VBMI, VBMI2 and VPOPCNTDQ, and BMI2, which every such CPU has).
bool CompactAvx512Supported();
// True when the CPU has what the portable form's scalar build for x86-64
// CPUs of the last decade uses (POPCNT for the parities, BMI2 for the
// shifts; every CPU with AVX2 has them): LINEBLOOM_COMPACT_SCALAR_X86.
bool CompactScalarX86Supported();

// For a plane count R, per group of eight planes: for lane j (plane
// 8g + j), the byte indices of the three 8-byte words of the line that
// start at the plane's first byte, 8 and 16 bytes later, and the plane's
// bit offset within its first byte.
struct alignas(64) PlaneGroup {
  uint8_t first[64], second[64], third[64];
  uint64_t shift[8];
};
inline constexpr int kMaxPlaneGroups = (kMaxFingerprintBits + 1 + 7) / 8;
struct PlaneLayout {
  PlaneGroup group[kMaxPlaneGroups];
};

constexpr PlaneLayout MakePlaneLayout(int planes) {
  PlaneLayout layout{};
  const int columns = ColumnsFor(planes);
  for (int b = 0; b < 8 * kMaxPlaneGroups; ++b) {
    PlaneGroup& g = layout.group[b / 8];
    const int lane = b % 8;
    const int start = b < planes ? b * columns : 0;
    for (int i = 0; i < 8; ++i) {
      // vpermb reads the low 6 bits of an index: past byte 63 it wraps,
      // and the bits it brings meet zero row bits.
      g.first[8 * lane + i] = static_cast<uint8_t>((start / 8 + i) & 63);
      g.second[8 * lane + i] = static_cast<uint8_t>((start / 8 + 8 + i) & 63);
      g.third[8 * lane + i] = static_cast<uint8_t>((start / 8 + 16 + i) & 63);
    }
    g.shift[lane] = static_cast<uint64_t>(start % 8);
  }
  return layout;
}

inline constexpr auto kPlaneLayouts = [] {
  std::array<PlaneLayout, kMaxPlanes + 1> all{};
  for (int planes = kMinFingerprintBits; planes <= kMaxPlanes; ++planes) all[planes] = MakePlaneLayout(planes);
  return all;
}();

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
// The portable form compiled for POPCNT and BMI2: a parity is one POPCNT
// where the baseline x86-64 build counts bits in a dozen instructions.
#define LINEBLOOM_COMPACT_SCALAR_X86 __attribute__((target("popcnt,bmi,bmi2")))
#define LINEBLOOM_COMPACT_AVX512 \
  __attribute__((target("avx512f,avx512bw,avx512dq,avx512vbmi,avx512vbmi2,avx512vpopcntdq,bmi2")))

// The groups of eight planes a filter of r fingerprint bits answers: those
// of r + 1 planes, which hold r + E(r) (compact_layout.h), so that lines of
// every count take the same steps.
constexpr int PlaneGroupsFor(int r) { return (r + 1 + 7) / 8; }
// Rows reach the second 64-bit word (C > 64) only where r + 1 planes fit one
// group (r <= 7); from r = 8 on both plane counts have C <= 63.
static_assert(ColumnsFor(7) > 64 && PlaneGroupsFor(7) == 1 && ColumnsFor(8) <= 64 && PlaneGroupsFor(8) == 2);

// The AVX-512 form: planes 8g .. 8g + 7 in the eight 64-bit lanes of one
// register per group g. A byte permute (vpermb) fetches each lane's words;
// a funnel shift (vpshrdvq) by the plane's bit offset gives the plane's bits
// 0..63 (and 64..127), AND with the row, XOR the two halves (parity(a) ^
// parity(b) = parity(a ^ b)), and a per-lane popcount's low bit is the
// answer bit. Bits past a plane's end (the next plane, the metadata byte,
// wrapped indices) meet zero row bits. For a line of a filter of r
// fingerprint bits (planes = r to r + E(r)) it takes kGroups =
// PlaneGroupsFor(r) groups, a count fixed per filter, so no branch depends
// on the line, and the third word only where rows reach past 64 bits.
// Answer bits at and above `planes` are not defined. Callable only when
// CompactAvx512Supported().
//   simple form: for (g = 0; 8 * g < planes; ++g) answer the group g, with
//   the third word whenever C > 64.
template <int kGroups, bool kWide = kGroups == 1>  // kWide: rows of more than 64 bits
LINEBLOOM_COMPACT_AVX512 inline uint32_t AnswerAvx512Groups(const unsigned char* line, Bits128 row, int planes) {
  const PlaneLayout& layout = kPlaneLayouts[planes];
  const __m512i bytes = _mm512_loadu_si512(line);
  const __m512i row_lo = _mm512_set1_epi64(static_cast<long long>(row.lo));
  const __m512i one = _mm512_set1_epi64(1);
  // The zero-masked permutes: GCC 12's unmasked forms trip
  // -Wmaybe-uninitialized in its headers.
  constexpr __mmask64 kAll = ~__mmask64{0};
  uint32_t answer = 0;
  for (int g = 0; g < kGroups; ++g) {
    const PlaneGroup& group = layout.group[g];
    const __m512i shift = _mm512_load_si512(group.shift);
    const __m512i first = _mm512_maskz_permutexvar_epi8(kAll, _mm512_load_si512(group.first), bytes);
    const __m512i second = _mm512_maskz_permutexvar_epi8(kAll, _mm512_load_si512(group.second), bytes);
    __m512i x = _mm512_and_si512(_mm512_shrdv_epi64(first, second, shift), row_lo);
    if constexpr (kWide) {
      const __m512i row_hi = _mm512_set1_epi64(static_cast<long long>(row.hi));
      const __m512i third = _mm512_maskz_permutexvar_epi8(kAll, _mm512_load_si512(group.third), bytes);
      x = _mm512_xor_si512(x, _mm512_and_si512(_mm512_shrdv_epi64(second, third, shift), row_hi));
    }
    answer |= static_cast<uint32_t>(_mm512_test_epi64_mask(_mm512_popcnt_epi64(x), one)) << (8 * g);
  }
  return answer;
}

// AnswerAvx512Groups with the filter's group count; the branches depend on
// the filter alone, so a reader's queries all take the same one. `wide`:
// some line of the filter has rows of more than 64 columns, as a mixed
// filter of r = 8 has (its low lines have r - 1 = 7; every other filter's
// rows are wide exactly where it takes one group).
LINEBLOOM_COMPACT_AVX512 inline uint32_t AnswerAvx512ForFilter(const unsigned char* line, Bits128 row, int r, bool wide,
                                                               int planes) {
  static_assert(PlaneGroupsFor(kMaxFingerprintBits) == 4);
  static_assert(PlaneGroupsFor(15) == 2, "three groups or more: r >= 16, narrow rows in both sections");
  if (PlaneGroupsFor(r) == 1) return AnswerAvx512Groups<1>(line, row, planes);
  if (PlaneGroupsFor(r) == 2) {
    return wide ? AnswerAvx512Groups<2, true>(line, row, planes) : AnswerAvx512Groups<2, false>(line, row, planes);
  }
  if (PlaneGroupsFor(r) == 3) return AnswerAvx512Groups<3>(line, row, planes);
  return AnswerAvx512Groups<4>(line, row, planes);
}
#endif

}  // namespace linebloom::internal::compact
