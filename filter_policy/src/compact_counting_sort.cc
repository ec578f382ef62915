// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.

#include "compact_counting_sort.h"

#include <bit>
#include <cstring>

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

}  // namespace

void CountKeepingSlots(const LayerPlacement where, uint32_t first, std::span<const uint64_t> hashes, uint32_t* count,
                       uint32_t* slots) {
  for (uint64_t h : hashes) {
    const Slot slot = where.Of(h);
    ++count[slot.line - first + 1];
    *slots++ = PackSlot(slot.line - first, slot.order);
  }
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

bool PlaceInRuns(const LayerPlacement where, uint32_t first, std::span<const uint64_t> hashes, uint32_t capacity,
                 uint32_t* count, uint64_t* keys, uint8_t* orders) {
  for (uint64_t h : hashes) {
    const Slot slot = where.Of(h);
    const uint32_t l = slot.line - first;
    const uint32_t n = count[l];
    if (n == capacity) return false;
    count[l] = n + 1;
    const size_t at = size_t{l} * capacity + n;
    keys[at] = h;
    orders[at] = static_cast<uint8_t>(slot.order);
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
