// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.

#include "compact_counting_sort.h"

#include <algorithm>
#include <bit>
#include <cstring>

#include "compact_avalanche.h"
#include "kernel_state.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#endif

namespace linebloom::internal::compact {
namespace {

// A line's counting sort by order counts in kOrderSlots counters (the
// orders, rounded up to a multiple of eight).
constexpr int kOrderSlots = (kOrders + 8) / 8 * 8;
static_assert(kOrderSlots == 128);

// counts[o] becomes the sum of counts[0, o).
template <typename Count>
void ExclusivePrefixOneByOne(Count* counts) {
  Count sum = 0;
  for (int o = 0; o < kOrderSlots; ++o) {
    const Count c = counts[o];
    counts[o] = sum;
    sum = static_cast<Count>(sum + c);
  }
}
void ExclusivePrefix(uint32_t* counts) { ExclusivePrefixOneByOne(counts); }

// The same for byte counts that sum to at most 255, eight at a time: a
// word times 0x0101...01 holds in byte j the sum of its bytes 0..j (no sum
// passes 255, so no carry crosses a byte), less the word itself those of
// bytes 0..j-1, plus the words before.
//   simple form: ExclusivePrefixOneByOne(counts)
void ExclusivePrefix(uint8_t* counts) {
  if constexpr (std::endian::native != std::endian::little) return ExclusivePrefixOneByOne(counts);
  constexpr uint64_t kEveryByte = 0x0101010101010101;
  uint64_t before = 0;
  for (int w = 0; w < kOrderSlots; w += 8) {
    uint64_t word;
    std::memcpy(&word, counts + w, 8);
    const uint64_t through = word * kEveryByte;
    const uint64_t below = through - word + before * kEveryByte;
    std::memcpy(counts + w, &below, 8);
    before += through >> 56;
  }
}

// SortByOrder with counters of type Count, which must hold k.
template <typename Count>
void CountingSortByOrder(const uint64_t* keys, const uint8_t* orders, size_t k, uint64_t* sorted,
                         uint8_t* sorted_orders) {
  Count start[kOrderSlots] = {};
  for (size_t i = 0; i < k; ++i) ++start[orders[i]];
  ExclusivePrefix(start);
  for (size_t i = 0; i < k; ++i) {
    const size_t at = start[orders[i]]++;
    sorted[at] = keys[i];
    sorted_orders[at] = orders[i];
  }
}

void SlotsOfOneByOne(const LayerPlacement& where, uint32_t first, std::span<const uint64_t> hashes, uint32_t* slots) {
  for (uint64_t h : hashes) {
    const Slot slot = where.Of(h);
    *slots++ = PackSlot(slot.line - first, slot.order);
  }
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define LINEBLOOM_SLOTS_AVX2 __attribute__((target("avx2")))

// SlotOf (compact_layout.h) of four layer hashes x over lines[j] lines,
// with AVX2's 32-bit multiplies. With p_lo = lo(x) lines and p_hi = hi(x)
// lines (each below 2^64), x lines = t 2^32 + lo(p_lo) for t = p_hi +
// (p_lo >> 32), which is below 2^64 too (p_hi <= (2^32 - 1)^2): so the
// product's bits 64.. (the line) are t >> 32, and its bits 32..63 (the
// fraction's high half, which the order scales) are t's low half.
LINEBLOOM_SLOTS_AVX2 inline void SlotsOf4(__m256i x, __m256i lines, __m256i* line, __m256i* order) {
  const __m256i p_lo = _mm256_mul_epu32(x, lines);
  const __m256i p_hi = _mm256_mul_epu32(_mm256_srli_epi64(x, 32), lines);
  const __m256i t = _mm256_add_epi64(p_hi, _mm256_srli_epi64(p_lo, 32));
  *line = _mm256_srli_epi64(t, 32);
  *order = _mm256_srli_epi64(_mm256_mul_epu32(t, _mm256_set1_epi64x(kOrders)), 32);
}

// PackSlot(line - first, order) of each lane, stored as four 32-bit slots.
LINEBLOOM_SLOTS_AVX2 inline void StorePacked4(__m256i line, __m256i order, __m256i first, uint32_t* slots) {
  const __m256i packed = _mm256_or_si256(_mm256_slli_epi64(_mm256_sub_epi64(line, first), 8), order);
  const __m256i low_halves = _mm256_permutevar8x32_epi32(packed, _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(slots), _mm256_castsi256_si128(low_halves));
}

// SlotsOfOneByOne of the first multiple of four keys; returns how many.
// A mixed layer's section, as FirstLayerSlotOf: the hash's low 32 bits
// below the threshold (a signed 64-bit compare of two values below 2^32)
// pick the low section's lines, and the high section's lines start after
// the low section's.
LINEBLOOM_SLOTS_AVX2 size_t SlotsOfAvx2(const LayerPlacement& where, uint32_t first, std::span<const uint64_t> hashes,
                                        uint32_t* slots) {
  const size_t n = hashes.size() & ~size_t{3};
  const uint64_t* h = hashes.data();
  const Sections& s = where.sections;
  const __m256i first_lanes = _mm256_set1_epi64x(first);
  if (s.low_threshold != 0) {
    const __m256i threshold = _mm256_set1_epi64x(s.low_threshold);
    const __m256i low_lines = _mm256_set1_epi64x(s.low_lines);
    const __m256i high_lines = _mm256_set1_epi64x(s.high_lines);
    const __m256i low_half = _mm256_set1_epi64x(0xFFFFFFFF);
    for (size_t i = 0; i < n; i += 4) {
      const __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(h + i));
      const __m256i low = _mm256_cmpgt_epi64(threshold, _mm256_and_si256(x, low_half));
      __m256i line, order;
      SlotsOf4(x, _mm256_blendv_epi8(high_lines, low_lines, low), &line, &order);
      StorePacked4(_mm256_add_epi64(line, _mm256_andnot_si256(low, low_lines)), order, first_lanes, slots + i);
    }
    return n;
  }
  const __m256i lines = _mm256_set1_epi64x(where.lines);
  const __m256i step = _mm256_set1_epi64x(static_cast<long long>(static_cast<uint64_t>(where.layer) * kLayerHashStep));
  for (size_t i = 0; i < n; i += 4) {
    __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(h + i));
    if (where.layer != 0) x = Avalanche4(_mm256_add_epi64(x, step));
    __m256i line, order;
    SlotsOf4(x, lines, &line, &order);
    StorePacked4(line, order, first_lanes, slots + i);
  }
  return n;
}
#endif

}  // namespace

void SlotsOf(const LayerPlacement where, uint32_t first, std::span<const uint64_t> hashes, uint32_t* slots) {
  size_t done = 0;
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  if (UseAvx2Build()) done = SlotsOfAvx2(where, first, hashes, slots);
#endif
  SlotsOfOneByOne(where, first, hashes.subspan(done), slots + done);
}

void CountKeepingSlots(const LayerPlacement where, uint32_t first, std::span<const uint64_t> hashes, uint32_t* count,
                       uint32_t* slots) {
  SlotsOf(where, first, hashes, slots);
  for (size_t i = 0; i < hashes.size(); ++i) ++count[(slots[i] >> 8) + 1];
}

void PlaceBySlots(std::span<const uint64_t> hashes, const uint32_t* slots, uint32_t* end, uint64_t* keys,
                  uint8_t* orders) {
  for (uint64_t h : hashes) {
    const uint32_t slot = *slots++;
    const uint32_t at = --end[slot >> 8];
    keys[at] = h;
    orders[at] = static_cast<uint8_t>(slot);
  }
}

// The slots of a chunk of keys first (SlotsOf, four at a time), then the
// placing loop, which then has no multiply of its own but the run's start.
//   simple form: for (h : hashes) { slot = where.Of(h); l = slot.line -
//   first; if (count[l] == capacity) return false; at = l capacity +
//   count[l]++; keys[at] = h; orders[at] = slot.order; }
bool PlaceInRuns(const LayerPlacement where, uint32_t first, std::span<const uint64_t> hashes, uint32_t capacity,
                 uint32_t* count, uint64_t* keys, uint8_t* orders) {
  constexpr size_t kChunk = 256;
  uint32_t slots[kChunk];
  for (size_t begin = 0; begin < hashes.size(); begin += kChunk) {
    const std::span<const uint64_t> chunk = hashes.subspan(begin, std::min(kChunk, hashes.size() - begin));
    SlotsOf(where, first, chunk, slots);
    for (size_t i = 0; i < chunk.size(); ++i) {
      const uint32_t l = slots[i] >> 8;
      const uint32_t n = count[l];
      if (n == capacity) return false;
      count[l] = n + 1;
      const size_t at = size_t{l} * capacity + n;
      keys[at] = chunk[i];
      orders[at] = static_cast<uint8_t>(slots[i]);
    }
  }
  return true;
}

void SortByOrder(const uint64_t* keys, const uint8_t* orders, size_t k, uint64_t* sorted, uint8_t* sorted_orders) {
  // Byte counters where no count can pass 255 (every line the shapes
  // load): their prefix sums go eight at a time.
  if (k <= 255) return CountingSortByOrder<uint8_t>(keys, orders, k, sorted, sorted_orders);
  CountingSortByOrder<uint32_t>(keys, orders, k, sorted, sorted_orders);
}

}  // namespace linebloom::internal::compact
