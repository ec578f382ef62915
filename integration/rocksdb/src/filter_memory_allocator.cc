// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.

#include "linebloom/rocksdb/filter_memory_allocator.h"

#include "linebloom/filter_builder.h"

namespace linebloom::rocksdb_plugin {
namespace {

class FilterMemoryAllocator final : public ::rocksdb::MemoryAllocator {
 public:
  const char* Name() const override { return "linebloom.FilterMemoryAllocator"; }
  // Throws std::bad_alloc when out of memory, as new[] (RocksDB's default).
  void* Allocate(size_t size) override { return AllocateFilterMemory(size); }
  void Deallocate(void* p) override { FreeFilterMemory(p); }
};

}  // namespace

std::shared_ptr<::rocksdb::MemoryAllocator> NewFilterMemoryAllocator() {
  return std::make_shared<FilterMemoryAllocator>();
}

}  // namespace linebloom::rocksdb_plugin
