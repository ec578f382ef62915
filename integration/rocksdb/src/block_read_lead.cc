// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.

#include "block_read_lead.h"

#include <cstdint>
#include <new>

#include <rocksdb/memory_allocator.h>
// The definition of rocksdb::Cache (memory_allocator()): cache.h until 7.x,
// advanced_cache.h from 8.0 on.
#if __has_include(<rocksdb/advanced_cache.h>)
#include <rocksdb/advanced_cache.h>
#endif

#include "linebloom/filter_format.h"
#include "linebloom/rocksdb/filter_bits.h"  // kRocksdbBlockTrailerBytes

namespace linebloom::rocksdb_plugin {

size_t LeadBytesForBlockRead(size_t filter_bytes, ::rocksdb::MemoryAllocator* allocator) {
  if (filter_bytes < kLeadFromBytes) return 0;
  const size_t size = filter_bytes + kRocksdbBlockTrailerBytes;
  // ::operator new[] as a call, not a new-expression, which a compiler may
  // elide (and then report any address). Without memory for the probe the
  // filter is laid out without lead bytes: the probe must not be what fails
  // a filter (Finish allocates the filter itself next).
  void* probe = nullptr;
  try {
    probe = allocator != nullptr ? allocator->Allocate(size) : ::operator new[](size);
  } catch (const std::bad_alloc&) {
    return 0;
  }
  if (probe == nullptr) return 0;
  const size_t offset = reinterpret_cast<uintptr_t>(probe) % kFilterBlockBytes;
  if (allocator != nullptr) {
    allocator->Deallocate(probe);
  } else {
    ::operator delete[](probe);
  }
  return (kFilterBlockBytes - offset) % kFilterBlockBytes;
}

size_t LeadBytesForBlockRead(size_t filter_bytes, const ReadMemory& memory) {
  if (!memory.align) return 0;
  const auto& cache = memory.block_cache;
  return LeadBytesForBlockRead(filter_bytes, cache ? cache->memory_allocator() : nullptr);
}

}  // namespace linebloom::rocksdb_plugin
