// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// A rocksdb::MemoryAllocator for the block cache that allocates like
// linebloom allocates its own filters (linebloom::AllocateFilterMemory):
// 64-byte aligned, and from 2 MiB up 2 MiB aligned with a transparent-huge-
// page hint. RocksDB reads a filter block into memory from the block cache's
// allocator with the filter's first byte at the start of the allocation, so
// with this allocator every 64-byte filter block is one cache line instead
// of straddling two (malloc aligns to 16 bytes), and large filter partitions
// sit on huge pages. It helps any filter policy, RocksDB's built-in ones too.
//
//   rocksdb::LRUCacheOptions cache;
//   cache.capacity = 1 << 30;
//   cache.memory_allocator = linebloom::rocksdb_plugin::NewFilterMemoryAllocator();
//   table_options.block_cache = rocksdb::NewLRUCache(cache);
//
// Without a block cache (or with another allocator) RocksDB uses new[].

#pragma once

#include <memory>

#include <rocksdb/memory_allocator.h>

namespace linebloom::rocksdb_plugin {

std::shared_ptr<::rocksdb::MemoryAllocator> NewFilterMemoryAllocator();

}  // namespace linebloom::rocksdb_plugin
