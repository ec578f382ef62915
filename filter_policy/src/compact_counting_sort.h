// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// The sorts a compact filter's layer is built by (compact_build.cc): its
// keys by line (into runs of a fixed capacity per line, or by counting),
// then a line's keys by order (by counting). Each loop is a function of
// its own, with the placement a value: inside the layer's build it would
// share the registers with all of it, and the build's fields could alias
// the counters it writes. Internal header.

#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "compact_layout.h"

namespace linebloom::internal::compact {

// Where a layer places a key: its line and order.
struct LayerPlacement {
  Sections sections;  // layer 0's (compact_layout.h); none in a later layer
  int layer;
  uint32_t lines;

  // A branch on the layer alone: only a mixed filter's layer 0 has sections.
  Slot Of(uint64_t h) const {
    if (sections.low_threshold != 0) return FirstLayerSlotOf(h, sections);
    return SlotOf(LayerHash(h, layer), lines);
  }
};

// A slot in one word: the line's place l in its bucket (< 2^24) above the
// order's byte.
inline uint32_t PackSlot(uint32_t l, uint32_t order) { return l << 8 | order; }
static_assert(kOrders < 256);

// The packed slot of each key of `hashes`, of a bucket of lines from
// `first` on: slots[i] = PackSlot(line - first, order) of where.Of(hashes[i]).
// Four keys at a time with AVX2 where the kernel is not the portable one.
void SlotsOf(LayerPlacement where, uint32_t first, std::span<const uint64_t> hashes, uint32_t* slots);
// Counts each key of `hashes`, of a bucket of lines from `first` on, in
// count[line - first + 1] and keeps its packed slot in slots[i].
void CountKeepingSlots(LayerPlacement where, uint32_t first, std::span<const uint64_t> hashes, uint32_t* count,
                       uint32_t* slots);

// Places each key of `hashes` and its order at --end[l], by the slots
// CountKeepingSlots kept.
void PlaceBySlots(std::span<const uint64_t> hashes, const uint32_t* slots, uint32_t* end, uint64_t* keys,
                  uint8_t* orders);

// Keys a line's run holds in PlaceInRuns, for n keys over `lines` lines:
// half as many again as the average (rounded up), and 16 more. A line's
// keys are about Poisson of its section's average, at most 1.18 times the
// layer's (a mixed layer's low section), and exceed the capacity with
// probability at most 3.4e-7 at the layer's average and 5.5e-5 at 1.18
// times it, whatever the average: so a bucket seldom takes the counting
// sort, and the runs' scratch is 1.5 + 16 / average times the keys' (1.7
// at the 1 % setting's 70 keys a line, 2.4 at the lowest load, 17).
inline uint32_t RunCapacity(size_t n, uint32_t lines) {
  return static_cast<uint32_t>(3 * ((n + lines - 1) / lines) / 2 + 16);
}

// Places each key of `hashes` (of lines from `first` on) and its order at
// (line - first) capacity + count[line - first]++, in the order they come;
// false, with some keys not placed, once a line would take more than
// `capacity`.
bool PlaceInRuns(LayerPlacement where, uint32_t first, std::span<const uint64_t> hashes, uint32_t capacity,
                 uint32_t* count, uint64_t* keys, uint8_t* orders);

// The stable counting sort of a line's k keys and their orders by order,
// into `sorted` and `sorted_orders`.
void SortByOrder(const uint64_t* keys, const uint8_t* orders, size_t k, uint64_t* sorted, uint8_t* sorted_orders);

}  // namespace linebloom::internal::compact
