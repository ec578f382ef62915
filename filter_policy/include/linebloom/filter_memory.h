// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// Memory for filter bytes: 64-byte aligned, so that each block is one cache
// line (a block at an arbitrary heap address straddles two, doubling the
// misses of a query on a large filter); from 2 MiB up also 2 MiB aligned
// with a transparent-huge-page hint, so that a large filter needs few TLB
// entries.

#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <string_view>

namespace linebloom {

// Throws std::bad_alloc; free with FreeFilterMemory. AlignedFilter, the
// builder's hash buffers and the RocksDB plugin's block-cache allocator use
// it.
void* AllocateFilterMemory(size_t size);
void FreeFilterMemory(void* memory);
// A unique_ptr deleter for AllocateFilterMemory's memory.
struct FilterMemoryDeleter {
  void operator()(void* memory) const { FreeFilterMemory(memory); }
};

// Owns filter bytes in AllocateFilterMemory's memory.
class AlignedFilter {
 public:
  AlignedFilter() = default;
  explicit AlignedFilter(size_t size);
  // An aligned copy of `bytes`.
  static AlignedFilter Copy(std::string_view bytes);
  std::string_view bytes() const { return {data_.get(), size_}; }
  // Writable storage for FilterBuilder::FinishInto.
  std::span<char> mutable_bytes() { return {data_.get(), size_}; }

 private:
  std::unique_ptr<char, FilterMemoryDeleter> data_;
  size_t size_ = 0;
};

}  // namespace linebloom
