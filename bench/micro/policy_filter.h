// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// Any rocksdb::FilterPolicy (built-in Bloom, legacy Bloom, Ribbon, or
// linebloom's plugin) driven exactly as RocksDB drives it: through
// FilterBitsBuilder::AddKey/Finish and the virtual FilterBitsReader::MayMatch
// (single) and MayMatch(n, ...) (MultiGet batches of at most 32).

#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string_view>

#include <rocksdb/cache.h>

#include "linebloom/rocksdb/testing/policy_filter_builder.h"

namespace linebloom::bench {

class PolicyBackedFilter {
 public:
  // `allocator`: where the filter's bytes are held for queries (null: new[],
  // RocksDB's default without a block-cache allocator).
  PolicyBackedFilter(std::shared_ptr<const ::rocksdb::FilterPolicy> policy, int format_version,
                     std::shared_ptr<::rocksdb::MemoryAllocator> allocator = nullptr)
      : policy_(std::move(policy)), format_version_(format_version), allocator_(std::move(allocator)) {
    if (allocator_) {
      // The table's block cache, for the builder: a filter policy may lay
      // out its bytes for the allocator they will be read into.
      ::rocksdb::LRUCacheOptions cache_options;
      cache_options.capacity = size_t{1} << 20;
      cache_options.memory_allocator = allocator_;
      block_cache_ = ::rocksdb::NewLRUCache(cache_options);
    }
  }

  void Build(std::span<const std::string_view> keys) {
    filter_.reset();
    rocksdb_plugin::PolicyFilterBuilder builder(*policy_, format_version_, block_cache_);
    for (std::string_view k : keys) builder.AddKey(k);
    // Query a copy in a plain heap buffer, as RocksDB does once the filter
    // block has been written to an SST and read back into the block cache
    // (the builder's own buffer may be aligned more favourably than that).
    const rocksdb_plugin::PolicyFilter fresh = builder.Finish();
    filter_.emplace(rocksdb_plugin::PolicyFilter::FromBytes(*policy_, fresh.bytes(), allocator_));
  }
  bool MayMatch(std::string_view key) const { return filter_->MayMatch(key); }
  void MayMatchBatch(std::span<const std::string_view> keys, std::span<bool> answers) const {
    filter_->MayMatchBatch(keys, answers);
  }
  size_t SizeBytes() const { return filter_->size_bytes(); }

 private:
  std::shared_ptr<const ::rocksdb::FilterPolicy> policy_;
  int format_version_;
  std::shared_ptr<::rocksdb::MemoryAllocator> allocator_;
  std::shared_ptr<::rocksdb::Cache> block_cache_;
  std::optional<rocksdb_plugin::PolicyFilter> filter_;
};

}  // namespace linebloom::bench
