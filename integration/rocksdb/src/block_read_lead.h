// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// How many lead bytes (docs/FORMAT.md, filter version 2) put a filter's
// blocks on cache lines in the memory RocksDB will read the filter into.
//
// A block of a filter is one cache line only if it starts on a 64-byte
// boundary where the filter is read. RocksDB reads a filter block like any
// other block: into a buffer of the block's size plus its 5-byte trailer,
// from the block cache's MemoryAllocator if the cache has one, else from
// new[] (AllocateBlock in RocksDB's memory/memory_allocator_impl.h), and
// hands the filter policy the bytes from the buffer's first byte on. Where
// such a buffer starts relative to a cache line is the allocator's choice,
// and for large buffers it is a fixed one: glibc serves them with mmap and
// returns the page's start plus its 16-byte chunk header; jemalloc and
// tcmalloc return whole pages; NewFilterMemoryAllocator 64-byte aligned
// memory. So the builder asks the allocator RocksDB will use for one buffer
// of that size, reads where it starts modulo 64 and frees it untouched (one
// mmap and munmap, a few microseconds, against the milliseconds of building
// a filter of that size). A filter in a buffer starting `s` bytes past a
// boundary gets (64 - s) mod 64 lead bytes.
//
// Only filters of kLeadFromBytes and more get lead bytes: smaller ones are
// mostly read from the CPU's caches, where a block across two lines costs
// little, and they stay version 1, readable by linebloom releases from
// before version 2. Between 128 KiB and 32 MiB glibc's choice is not fixed:
// after a large free it serves such sizes from its heap, at whatever offset
// the heap's chunks leave. The probe then sees the heap's offset of the
// moment, a guess no worse than the version-1 layout's, which assumes 0.
//
// Internal header.

#pragma once

#include <cstddef>
#include <memory>

#include <rocksdb/cache.h>

namespace rocksdb {
class MemoryAllocator;
}  // namespace rocksdb

namespace linebloom::rocksdb_plugin {

inline constexpr size_t kLeadFromBytes = size_t{1} << 20;

// The lead bytes for a filter of `filter_bytes` bytes (without lead) that
// RocksDB will read with `allocator` (the block cache's, or null for new[]):
// 0 below kLeadFromBytes.
size_t LeadBytesForBlockRead(size_t filter_bytes, ::rocksdb::MemoryAllocator* allocator);

// Where RocksDB will read the filters a builder finishes (the Bloom and the
// compact kind alike): with `align`, those of 1 MiB or more get the lead
// bytes that put their blocks (lines) on cache lines in memory from the
// block cache's allocator (new[] without a cache or allocator).
struct ReadMemory {
  bool align = false;
  std::shared_ptr<::rocksdb::Cache> block_cache;  // the table's; may be null
};

// The lead bytes for a filter of `filter_bytes` bytes (without lead) read
// into `memory`: LeadBytesForBlockRead with the cache's allocator, 0
// without `align`.
size_t LeadBytesForBlockRead(size_t filter_bytes, const ReadMemory& memory);

}  // namespace linebloom::rocksdb_plugin
