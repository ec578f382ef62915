// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// The answer of one compact-filter line to a key's row (compact_layout.h):
// bit b = parity(plane b AND row), for the R planes of C = floor(504 / R)
// bits each. Forms that read the same bytes and give the same answer: the
// portable loop (AnswerPortable, the simple form, and AnswerPortableWindows,
// which the portable queries use), an AVX2 form that takes every plane's
// answer from one carry-less product (two halves of it per instruction
// where the CPU has VPCLMULQDQ), and an AVX-512 form that answers eight
// planes at once. Internal header.

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
// True when the CPU has what the AVX2 form uses (AVX2, PCLMULQDQ, POPCNT,
// BMI1 and BMI2, which every AVX2 CPU has; LINEBLOOM_COMPACT_AVX2).
bool CompactAvx2Supported();
// True when the CPU has VPCLMULQDQ too, which the AVX2 form then uses
// (AnswerVpclmulGroups); false, whatever the CPU, after
// EnableCompactVpclmulForTesting(false), which changes the form of the
// readers parsed or made after it, not of those before.
bool CompactVpclmulSupported();
void EnableCompactVpclmulForTesting(bool enabled);

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

// The AVX2 form: every plane's answer from one carry-less product of the
// line with the row reversed. With s = the row's C bits reversed (bit i of
// s = bit C - 1 - i of the row), the product P = line * s over GF(2) has
//     bit k of P = XOR over j of row_j AND line bit (k - C + 1 + j),
// so at k = (b + 1) C - 1 it is parity(row AND plane b), answer bit b, for
// every b at once: s has C bits, so j < C and the line bits read are plane
// b's alone. Those k are at most 503, so only the product's low 512 bits
// are formed: for the line's words L_0..L_7 and s's words s_0, s_1 (s_1
// only where C > 64), Z_k = L_k s_0 + L_{k-1} s_1 (128 bits, at bit 64 k;
// eight or sixteen PCLMULQDQ), and word w of P is the low half of Z_w
// xor the high half of Z_{w-1}. The answer bits are then gathered eight
// planes to a register: each lane takes the 32-bit word of P that holds
// its bit (VPERMD from either half and a blend), shifts that bit to the
// sign, and MOVMSKPS collects the signs. No step depends on the line's
// plane count but the table row it reads, and the group count is fixed
// per filter, as in the AVX-512 form.
#define LINEBLOOM_COMPACT_AVX2 __attribute__((target("avx2,pclmul,popcnt,bmi,bmi2")))

// For a plane count R, per group of eight planes (lane j: plane 8g + j):
// the 32-bit word of the product's low 512 bits that holds the plane's
// answer bit (its low 3 bits, for VPERMD, and the sign set where it is in
// the upper 256 bits, for the blend), and the left shift that takes the
// bit to the lane's sign. And the right shifts that align the reversed
// row: s = reverse128(row) >> (128 - C) as a 128-bit shift by n = 128 - C
// of words (lo, hi): lo >> n | hi << (64 - n) | hi >> (n - 64), hi >> n,
// with the vector shifts' zero for a count of 64 or more standing in for
// the branch on n < 64.
struct alignas(32) ClmulGroup {
  int32_t word[8];
  uint32_t to_sign[8];
};
struct ClmulLayout {
  ClmulGroup group[kMaxPlaneGroups];
  alignas(16) uint64_t by_n[2], by_64_minus_n[2], by_n_minus_64[2];
};

constexpr ClmulLayout MakeClmulLayout(int planes) {
  ClmulLayout layout{};
  const int columns = ColumnsFor(planes);
  for (int b = 0; b < planes; ++b) {
    const int k = (b + 1) * columns - 1;
    const int word = k / 32;
    layout.group[b / 8].word[b % 8] = (word & 7) | (word >= 8 ? INT32_MIN : 0);
    layout.group[b / 8].to_sign[b % 8] = static_cast<uint32_t>(31 - k % 32);
  }
  const uint64_t n = static_cast<uint64_t>(128 - columns);
  layout.by_n[0] = n;
  layout.by_64_minus_n[0] = 64 - n;  // wraps past 63 where n > 64: a zero shift result
  layout.by_n_minus_64[0] = n - 64;  // likewise where n < 64
  return layout;
}

inline constexpr auto kClmulLayouts = [] {
  std::array<ClmulLayout, kMaxPlanes + 1> all{};
  for (int planes = kMinFingerprintBits; planes <= kMaxPlanes; ++planes) all[planes] = MakeClmulLayout(planes);
  return all;
}();

// s, the row's C bits reversed, in the low bits of a register (kWide: C
// may pass 64). The bytes reversed, then the bits of each byte, a nibble
// at a time by table, then shifted down to the C bits.
template <bool kWide>
LINEBLOOM_COMPACT_AVX2 __attribute__((always_inline)) inline __m128i ReversedRow(Bits128 row,
                                                                                 const ClmulLayout& layout) {
  __m128i s = _mm_set_epi64x(static_cast<long long>(row.hi), static_cast<long long>(row.lo));
  s = _mm_shuffle_epi8(s, _mm_setr_epi8(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0));
  const __m128i low_nibble = _mm_set1_epi8(0x0F);
  const __m128i reversed_nibble =
      _mm_setr_epi8(0x0, 0x8, 0x4, 0xC, 0x2, 0xA, 0x6, 0xE, 0x1, 0x9, 0x5, 0xD, 0x3, 0xB, 0x7, 0xF);
  const __m128i reversed_nibble_up = _mm_slli_epi16(reversed_nibble, 4);  // each byte's value times 16
  s = _mm_or_si128(_mm_shuffle_epi8(reversed_nibble_up, _mm_and_si128(s, low_nibble)),
                   _mm_shuffle_epi8(reversed_nibble, _mm_and_si128(_mm_srli_epi16(s, 4), low_nibble)));
  const __m128i s_high = _mm_srli_si128(s, 8);
  const __m128i by_n_minus_64 = _mm_load_si128(reinterpret_cast<const __m128i*>(layout.by_n_minus_64));
  if constexpr (!kWide) return _mm_srl_epi64(s_high, by_n_minus_64);  // C <= 64: in the high word
  const __m128i by_n = _mm_load_si128(reinterpret_cast<const __m128i*>(layout.by_n));
  const __m128i by_64_minus_n = _mm_load_si128(reinterpret_cast<const __m128i*>(layout.by_64_minus_n));
  return _mm_or_si128(_mm_or_si128(_mm_srl_epi64(s, by_n), _mm_sll_epi64(s_high, by_64_minus_n)),
                      _mm_srl_epi64(s_high, by_n_minus_64));
}

// The answer bits of the product's low 512 bits (bits 0..255, 256..511),
// eight planes to a register, in kGroups groups.
template <int kGroups>
LINEBLOOM_COMPACT_AVX2 __attribute__((always_inline)) inline uint32_t GatherAnswer(__m256i product_low,
                                                                                   __m256i product_high,
                                                                                   const ClmulLayout& layout) {
  uint32_t answer = 0;
  for (int g = 0; g < kGroups; ++g) {
    const __m256i word_index = _mm256_load_si256(reinterpret_cast<const __m256i*>(layout.group[g].word));
    const __m256 from_low = _mm256_castsi256_ps(_mm256_permutevar8x32_epi32(product_low, word_index));
    const __m256 from_high = _mm256_castsi256_ps(_mm256_permutevar8x32_epi32(product_high, word_index));
    const __m256i picked = _mm256_castps_si256(_mm256_blendv_ps(from_low, from_high, _mm256_castsi256_ps(word_index)));
    const __m256i to_sign = _mm256_load_si256(reinterpret_cast<const __m256i*>(layout.group[g].to_sign));
    answer |= static_cast<uint32_t>(_mm256_movemask_ps(_mm256_castsi256_ps(_mm256_sllv_epi32(picked, to_sign))))
              << (8 * g);
  }
  return answer;
}

// kGroups: PlaneGroupsFor(r); kWide: some line of the filter has rows of
// more than 64 columns (as for AnswerAvx512Groups). Answer bits at and
// above `planes` are not defined. Callable only when CompactAvx2Supported().
//   simple form: AnswerPortable(line, row, planes, ColumnsFor(planes))
template <int kGroups, bool kWide = kGroups == 1>
LINEBLOOM_COMPACT_AVX2 inline uint32_t AnswerAvx2Groups(const unsigned char* line, Bits128 row, int planes) {
  const ClmulLayout& layout = kClmulLayouts[planes];
  const __m128i s = ReversedRow<kWide>(row, layout);
  // Words 2j and 2j + 1 of the product, from Z_{2j - 1}, Z_{2j}, Z_{2j + 1}.
  __m128i words[4];
  __m128i previous_z = _mm_setzero_si128();         // Z_{2j - 1}
  __m128i previous_times_s1 = _mm_setzero_si128();  // L_{2j - 1} s_1
  for (int j = 0; j < 4; ++j) {
    const __m128i pair = _mm_loadu_si128(reinterpret_cast<const __m128i*>(line + 16 * j));  // L_{2j}, L_{2j + 1}
    __m128i z_even = _mm_clmulepi64_si128(pair, s, 0x00), z_odd = _mm_clmulepi64_si128(pair, s, 0x01);
    if constexpr (kWide) {
      const __m128i even_times_s1 = _mm_clmulepi64_si128(pair, s, 0x10);
      z_even = _mm_xor_si128(z_even, previous_times_s1);
      z_odd = _mm_xor_si128(z_odd, even_times_s1);
      previous_times_s1 = _mm_clmulepi64_si128(pair, s, 0x11);
    }
    // [high half of Z_{2j - 1}, low half of Z_{2j + 1}]
    const __m128i across = _mm_castpd_si128(_mm_shuffle_pd(_mm_castsi128_pd(previous_z), _mm_castsi128_pd(z_odd), 1));
    words[j] = _mm_xor_si128(z_even, across);
    previous_z = z_odd;
  }
  return GatherAnswer<kGroups>(_mm256_set_m128i(words[1], words[0]), _mm256_set_m128i(words[3], words[2]), layout);
}

// AnswerAvx2Groups with the filter's group count (AnswerAvx512ForFilter).
LINEBLOOM_COMPACT_AVX2 inline uint32_t AnswerAvx2ForFilter(const unsigned char* line, Bits128 row, int r, bool wide,
                                                           int planes) {
  if (PlaneGroupsFor(r) == 1) return AnswerAvx2Groups<1>(line, row, planes);
  if (PlaneGroupsFor(r) == 2) {
    return wide ? AnswerAvx2Groups<2, true>(line, row, planes) : AnswerAvx2Groups<2, false>(line, row, planes);
  }
  if (PlaneGroupsFor(r) == 3) return AnswerAvx2Groups<3>(line, row, planes);
  return AnswerAvx2Groups<4>(line, row, planes);
}

// The AVX2 form with VPCLMULQDQ (AMD's Zen 3 and Intel's AVX2 CPUs that
// have it without AVX-512; a CPU with AVX-512 takes that form instead): the same product, two carry-less products per
// instruction, on the line's 32-byte halves A_j = [L_4j, L_4j+1 | L_4j+2,
// L_4j+3] and s in both 128-bit lanes. Lane by lane, A_j times s_0 gives
// the even Z's of the half (L_4j s_0 | L_4j+2 s_0) and the odd ones (L_4j+1
// s_0 | L_4j+3 s_0); with s_1 (C > 64) the odd Z's take L_4j s_1 | L_4j+2
// s_1, and the even ones L_4j+1 s_1 | L_4j+3 s_1 one lane later (lane 0
// from the previous half's lane 1). Product words 4j..4j+3 are then the
// even Z's xor [high half of Z_4j-1, low half of Z_4j+1 | high half of
// Z_4j+1, low half of Z_4j+3], a lane shift and a SHUFPD: one register per
// half, the two GatherAnswer takes. Callable only when
// CompactVpclmulSupported().
//   simple form: AnswerAvx2Groups<kGroups, kWide>(line, row, planes)
#define LINEBLOOM_COMPACT_VPCLMUL __attribute__((target("avx2,pclmul,popcnt,bmi,bmi2,vpclmulqdq")))
template <int kGroups, bool kWide = kGroups == 1>
LINEBLOOM_COMPACT_VPCLMUL inline uint32_t AnswerVpclmulGroups(const unsigned char* line, Bits128 row, int planes) {
  const ClmulLayout& layout = kClmulLayouts[planes];
  const __m256i s = _mm256_broadcastsi128_si256(ReversedRow<kWide>(row, layout));
  __m256i product[2];
  __m256i previous_odd = _mm256_setzero_si256();     // lane 1: Z_4j-1
  __m256i previous_odd_s1 = _mm256_setzero_si256();  // lane 1: L_4j-1 s_1
  for (int j = 0; j < 2; ++j) {
    const __m256i half = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(line + 32 * j));
    __m256i z_even = _mm256_clmulepi64_epi128(half, s, 0x00);
    __m256i z_odd = _mm256_clmulepi64_epi128(half, s, 0x01);
    if constexpr (kWide) {
      z_odd = _mm256_xor_si256(z_odd, _mm256_clmulepi64_epi128(half, s, 0x10));
      const __m256i odd_s1 = _mm256_clmulepi64_epi128(half, s, 0x11);
      z_even = _mm256_xor_si256(z_even, _mm256_permute2x128_si256(previous_odd_s1, odd_s1, 0x21));
      previous_odd_s1 = odd_s1;
    }
    const __m256i odd_before = _mm256_permute2x128_si256(previous_odd, z_odd, 0x21);  // Z_4j-1 | Z_4j+1
    const __m256d across = _mm256_shuffle_pd(_mm256_castsi256_pd(odd_before), _mm256_castsi256_pd(z_odd), 0x5);
    product[j] = _mm256_xor_si256(z_even, _mm256_castpd_si256(across));
    previous_odd = z_odd;
  }
  return GatherAnswer<kGroups>(product[0], product[1], layout);
}

// AnswerVpclmulGroups with the filter's group count.
LINEBLOOM_COMPACT_VPCLMUL inline uint32_t AnswerVpclmulForFilter(const unsigned char* line, Bits128 row, int r,
                                                                 bool wide, int planes) {
  if (PlaneGroupsFor(r) == 1) return AnswerVpclmulGroups<1>(line, row, planes);
  if (PlaneGroupsFor(r) == 2) {
    return wide ? AnswerVpclmulGroups<2, true>(line, row, planes) : AnswerVpclmulGroups<2, false>(line, row, planes);
  }
  if (PlaneGroupsFor(r) == 3) return AnswerVpclmulGroups<3>(line, row, planes);
  return AnswerVpclmulGroups<4>(line, row, planes);
}
#endif

}  // namespace linebloom::internal::compact
