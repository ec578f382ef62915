// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// The 64-bit key hashes a CompactFilterBuilder holds until Finish, in
// memory that is never moved once allocated. One growing vector would hold
// its old and its new buffer at once each time it doubles (up to 1.5 times
// the hashes' bytes), and at Finish up to twice the hashes' bytes of
// capacity. Here blocks grow by 1/32 of the hashes so far (at least 4 KiB,
// at most 2 MiB), so the slack is at most 1/32 of the hashes or one 4 KiB
// page, and the allocations are few; hash i is found through a table of
// 4 KiB pages. Blocks are AllocateFilterMemory's, so that 2 MiB blocks are
// huge pages: a page fault costs more than hashing the keys of a 4 KiB
// page. The build partitions the hashes in place
// (compact_build.cc), so they are all the per-key memory it needs besides
// the filter.

#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <utility>
#include <vector>

#include "linebloom/filter_memory.h"

namespace linebloom {

class CompactHashes {
 public:
  static constexpr int kChunkShift = 9;
  static constexpr size_t kChunkHashes = size_t{1} << kChunkShift;  // a 4 KiB page
  static constexpr size_t kChunkMask = kChunkHashes - 1;
  static constexpr size_t kGrowthShare = 32;
  static constexpr size_t kMaxBlockPages = 512;  // 2 MiB

  CompactHashes() = default;
  // A moved-from store is empty (its pointers into the blocks go too).
  CompactHashes(CompactHashes&& other) noexcept { *this = std::move(other); }
  CompactHashes& operator=(CompactHashes&& other) noexcept;

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  // The last hash (not empty).
  uint64_t back() const { return fill_[-1]; }
  uint64_t& operator[](size_t i) { return pages_[i >> kChunkShift][i & kChunkMask]; }
  uint64_t operator[](size_t i) const { return pages_[i >> kChunkShift][i & kChunkMask]; }
  // Page p of the table: hashes [512 p, 512 p + 512). Grouping in place
  // (compact_build.cc) moves whole pages by exchanging these entries; any
  // permutation of them keeps every hash, though back() is then no longer
  // the last one (no hash is added during a build).
  uint64_t*& page(size_t p) { return pages_[p]; }

  void push_back(uint64_t hash) {
    if (fill_ == end_) [[unlikely]] {
      AddPage();
    }
    *fill_++ = hash;
    ++size_;
  }
  // push_back of each, in order.
  void Append(std::span<const uint64_t> hashes);
  // Frees every block.
  void Clear();

  // Hashes [at, at + n) in spans of whole or partial pages, in order:
  // f(std::span<uint64_t>) for each.
  template <typename F>
  void ForEachSpan(size_t at, size_t n, F&& f) {
    while (n > 0) {
      const size_t offset = at & kChunkMask;
      const size_t take = n < kChunkHashes - offset ? n : kChunkHashes - offset;
      f(std::span<uint64_t>(pages_[at >> kChunkShift] + offset, take));
      at += take;
      n -= take;
    }
  }
  template <typename F>
  void ForEachSpan(F&& f) const {
    for (size_t p = 0; p < pages_.size(); ++p) {
      const size_t n = p + 1 < pages_.size() ? kChunkHashes : size_ - p * kChunkHashes;
      f(std::span<const uint64_t>(pages_[p], n));
    }
  }

 private:
  void AddPage();

  std::vector<std::unique_ptr<uint64_t, FilterMemoryDeleter>> blocks_;
  std::vector<uint64_t*> pages_;  // pages_[p]: hashes [512 p, 512 p + 512)
  size_t free_pages_ = 0;         // pages of the last block not in pages_ yet
  size_t size_ = 0;
  uint64_t* fill_ = nullptr;  // the next free slot of the last chunk
  uint64_t* end_ = nullptr;   // the end of the last chunk
};

}  // namespace linebloom
