// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// A builder's memory charged to the block cache, where the table options
// ask for it (cache_usage_options, CacheEntryRole::kFilterConstruction), as
// RocksDB's built-in filters charge theirs: the hashes a builder holds while
// keys are added, the filter being written while Finish runs, and every
// finished filter's buffer, which RocksDB keeps until the file is written
// (all partitions' of a partitioned filter), until the builder is destroyed.
// The charge is placeholder entries of kEntryBytes (RocksDB's own
// reservations use entries of the same size), so it runs up to one entry
// ahead of the memory. Best effort, as for the built-in Bloom filter: where
// a cache with a strict capacity limit is full, the build goes on with the
// entries it got.

#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include <rocksdb/table.h>

#include "linebloom/rocksdb/api_shims.h"

namespace linebloom::rocksdb_plugin {

// Whether `table` asks for filter-construction memory to be charged to its
// block cache (and has one).
bool ChargesFilterConstruction(const ::rocksdb::BlockBasedTableOptions& table);

class ConstructionCharge {
 public:
  static constexpr size_t kEntryBytes = size_t{256} << 10;

  explicit ConstructionCharge(std::shared_ptr<::rocksdb::Cache> cache) : cache_(std::move(cache)) {}
  ~ConstructionCharge() { ChargeTo(0); }
  ConstructionCharge(const ConstructionCharge&) = delete;
  ConstructionCharge& operator=(const ConstructionCharge&) = delete;

  // While keys are added: the builder holds `key_bytes` for them. Cheap
  // when the charge already covers them (one comparison).
  void Hold(size_t key_bytes) {
    if (finished_ + key_bytes > charged_bytes()) ChargeTo(finished_ + key_bytes);
  }
  // Finish is about to write a filter of about `filter_bytes` beside the
  // keys' `key_bytes`.
  void Finishing(size_t key_bytes, size_t filter_bytes) { ChargeTo(finished_ + key_bytes + filter_bytes); }
  // Finish wrote a filter of `filter_bytes` and let go of the keys.
  void Finished(size_t filter_bytes) {
    finished_ += filter_bytes;
    ChargeTo(finished_);
  }

  size_t charged_bytes() const { return handles_.size() * kEntryBytes; }

 private:
  // Holds ceil(bytes / kEntryBytes) entries, inserting or releasing the
  // difference; stops inserting where the cache refuses.
  void ChargeTo(size_t bytes);

  std::shared_ptr<::rocksdb::Cache> cache_;
  // Handles of the entries this charge inserted; the cache owns the entries.
  std::vector<::rocksdb::Cache::Handle*> handles_;
  size_t finished_ = 0;
};

}  // namespace linebloom::rocksdb_plugin
