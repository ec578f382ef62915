// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// AVX2 form of AllProbesSet (block_probe.h): the same k bits, tested 8 at a
// time without a branch per probe. Internal header; x86-64 only. Functions
// carry target("avx2") so the rest of the library stays baseline x86-64, and
// are called only when the CPU has AVX2 (kernel.cc).
//
// Lane j of round r holds probe 8r + j: a * M^(8r+j) (the powers are
// precomputed, so one multiply yields 8 probe states). With the block seen as
// sixteen little-endian u32 words, bit b is bit (b & 31) of word b >> 5 --
// exactly the byte layout of the format. A lane fetches its word from the low
// or high 32 bytes with two permutes and a blend, builds the single-bit mask
// with a variable shift, and testc checks (word & mask) == mask in all lanes.
// The powers and lane masks come from tables, so a round is ~14 instructions.

#pragma once

#if defined(__x86_64__)

#include <immintrin.h>

#include <cstdint>

#include "block_probe.h"

namespace linebloom::internal {

// kActiveLanes.mask[k][j] is all-ones when probe j < k exists: lanes past
// the last probe must not test anything.
struct ActiveLanes {
  alignas(32) uint32_t mask[kMaxProbes + 1][kMaxProbes];
  constexpr ActiveLanes() : mask() {
    for (int k = 0; k <= kMaxProbes; ++k) {
      for (int j = 0; j < kMaxProbes; ++j) mask[k][j] = j < k ? 0xFFFFFFFFu : 0;
    }
  }
};
inline constexpr ActiveLanes kActiveLanes{};

// True when probes 8r .. 8r+7 that exist are all set.
__attribute__((target("avx2"))) inline bool RoundSet(__m256i low_words, __m256i high_words, __m256i state, int round,
                                                     int num_probes) {
  const __m256i powers = _mm256_load_si256(reinterpret_cast<const __m256i*>(kProbePowers.value + 8 * round));
  const __m256i active = _mm256_load_si256(reinterpret_cast<const __m256i*>(kActiveLanes.mask[num_probes] + 8 * round));
  const __m256i bit = _mm256_srli_epi32(_mm256_mullo_epi32(state, powers), 23);
  const __m256i word_index = _mm256_srli_epi32(bit, 5);
  // Lanes whose word index has bit 3 set take the high half (blendv uses
  // each lane's sign bit, hence the shift by 28).
  const __m256 from_high = _mm256_castsi256_ps(_mm256_slli_epi32(word_index, 28));
  const __m256i word = _mm256_castps_si256(
      _mm256_blendv_ps(_mm256_castsi256_ps(_mm256_permutevar8x32_epi32(low_words, word_index)),
                       _mm256_castsi256_ps(_mm256_permutevar8x32_epi32(high_words, word_index)), from_high));
  // (bit & 31) is the bit within its 32-bit word.
  const __m256i mask =
      _mm256_and_si256(_mm256_sllv_epi32(_mm256_set1_epi32(1), _mm256_and_si256(bit, _mm256_set1_epi32(31))), active);
  return _mm256_testc_si256(word, mask);
}

// Filters of up to 8 probes (every filter up to ~13 bits/key) take one
// round, and for them the lane mask is not needed (OneRoundPowersTable).
static constexpr OneRoundPowersTable<8> kOneRoundPowers{};

// All probes of a block when num_probes <= 8: RoundSet's round 0 without the
// lane mask, and with the shifts read off the product x = a * M^j directly.
// The probe's bit is x >> 23 (9 bits), so its word index (bit >> 5) is
// x >> 28, whose bit 3 -- the half of the block -- is x's sign bit, which is
// what blendv reads; and the bit in the word (bit & 31) is (x << 4) >> 27.
// `powers` and `ones` are the two halves of kOneRoundPowers.value[num_probes].
__attribute__((target("avx2"))) inline bool OneRoundSetAvx2(const unsigned char* block, uint32_t a, __m256i powers,
                                                            __m256i ones) {
  const __m256i low_words = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(block));
  const __m256i high_words = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(block + 32));
  const __m256i x = _mm256_mullo_epi32(_mm256_set1_epi32(static_cast<int>(a)), powers);
  const __m256i word_index = _mm256_srli_epi32(x, 28);
  const __m256i word = _mm256_castps_si256(_mm256_blendv_ps(
      _mm256_castsi256_ps(_mm256_permutevar8x32_epi32(low_words, word_index)),
      _mm256_castsi256_ps(_mm256_permutevar8x32_epi32(high_words, word_index)), _mm256_castsi256_ps(x)));
  const __m256i mask = _mm256_sllv_epi32(ones, _mm256_srli_epi32(_mm256_slli_epi32(x, 4), 27));
  return _mm256_testc_si256(word, mask);
}
__attribute__((target("avx2"))) inline bool OneRoundSetAvx2(const unsigned char* block, uint32_t a,
                                                            const uint32_t* powers_row) {
  return OneRoundSetAvx2(block, a, _mm256_load_si256(reinterpret_cast<const __m256i*>(powers_row)),
                         _mm256_load_si256(reinterpret_cast<const __m256i*>(powers_row + 8)));
}

__attribute__((target("avx2"))) inline bool FirstRoundSetAvx2(const unsigned char* block, uint32_t a, int num_probes) {
  return OneRoundSetAvx2(block, a, kOneRoundPowers.value[num_probes]);
}

// OneRoundSetAvx2 out of line, for a single query whose hashing and block
// location are compiled without AVX2 and end in a jump here. GCC gives a
// function that both uses 256-bit registers and makes a call (even a tail
// call, such as a query's call for keys it does not hash inline) a
// stack-realigning frame it then does not use; split this way, neither
// function has one.
__attribute__((target("avx2"), noinline)) inline bool OneRoundSetAvx2Call(const unsigned char* block, uint32_t a,
                                                                          const uint32_t* powers_row) {
  return OneRoundSetAvx2(block, a, powers_row);
}

__attribute__((target("avx2"))) inline bool AllProbesSetAvx2(const unsigned char* block, uint32_t a, int num_probes) {
  const __m256i low_words = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(block));
  const __m256i high_words = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(block + 32));
  // Up to 8 probes (every filter up to ~13 bits/key) take one round.
  if (num_probes <= 8) return FirstRoundSetAvx2(block, a, num_probes);
  const __m256i state = _mm256_set1_epi32(static_cast<int>(a));
  if (!RoundSet(low_words, high_words, state, 0, num_probes)) return false;
  for (int round = 1; round * 8 < num_probes; ++round) {
    if (!RoundSet(low_words, high_words, state, round, num_probes)) return false;
  }
  return true;
}

// AllProbesSetAvx2 for num_probes > 8, out of line: a query path that
// inlines the one-round case keeps this loop's registers and stack frame
// out of its own code.
__attribute__((target("avx2"), noinline)) inline bool ManyProbesSetAvx2(const unsigned char* block, uint32_t a,
                                                                        int num_probes) {
  return AllProbesSetAvx2(block, a, num_probes);
}

}  // namespace linebloom::internal

#endif  // __x86_64__
