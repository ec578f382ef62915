// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// A set of 64-bit key hashes: the prefixes a filter already holds, so that a
// prefix repeated by many keys is added once.

#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace linebloom::rocksdb_plugin {

// Open addressing with linear probing. The hashes are already uniform
// (XXH3), so their low bits index the table directly. The table is at most
// half full, so a lookup probes about 1.5 slots when the hash is present and
// 2.5 when it is not, and the memory is 16 to 32 bytes per element. Slot
// value 0 means empty; the hash 0 is tracked apart.
class HashSet {
 public:
  // Adds `hash`; true if it was not in the set.
  bool Insert(uint64_t hash) {
    if (hash == 0) {
      const bool added = !has_zero_;
      has_zero_ = true;
      return added;
    }
    if (2 * (size_ + 1) > slots_.size()) Grow();
    uint64_t& slot = slots_[Find(slots_, hash)];
    if (slot == hash) return false;
    slot = hash;
    ++size_;
    return true;
  }

  bool Contains(uint64_t hash) const {
    if (hash == 0) return has_zero_;
    if (size_ == 0) return false;
    return slots_[Find(slots_, hash)] == hash;
  }

  // Empties the set. The table is kept (a builder reused for the next filter
  // allocates nothing) unless it is far larger than what it held: clearing
  // costs one pass over the table, at most 8 times the elements removed.
  void Clear() {
    if (slots_.size() > 8 * std::max<size_t>(size_, kMinSlots)) {
      slots_.clear();
      slots_.shrink_to_fit();
    } else {
      std::fill(slots_.begin(), slots_.end(), 0);
    }
    size_ = 0;
    has_zero_ = false;
  }

  size_t size() const { return size_ + (has_zero_ ? 1 : 0); }
  // The bytes its slots take.
  size_t MemoryBytes() const { return slots_.size() * sizeof(uint64_t); }

 private:
  static constexpr size_t kMinSlots = 64;

  // The index of the slot holding `hash`, or of the empty slot where it
  // belongs. `slots` is a power of two long and never full.
  static size_t Find(const std::vector<uint64_t>& slots, uint64_t hash) {
    const size_t mask = slots.size() - 1;
    for (size_t i = static_cast<size_t>(hash) & mask;; i = (i + 1) & mask) {
      if (slots[i] == hash || slots[i] == 0) return i;
    }
  }

  void Grow() {
    std::vector<uint64_t> bigger(std::max(kMinSlots, 2 * slots_.size()), 0);
    for (uint64_t hash : slots_) {
      if (hash != 0) bigger[Find(bigger, hash)] = hash;
    }
    slots_.swap(bigger);
  }

  std::vector<uint64_t> slots_;
  size_t size_ = 0;  // nonzero hashes in slots_
  bool has_zero_ = false;
};

}  // namespace linebloom::rocksdb_plugin
