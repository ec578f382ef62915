// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.

#include "construction_charge.h"

#include <cstdint>
#include <cstring>

namespace linebloom::rocksdb_plugin {

bool ChargesFilterConstruction(const ::rocksdb::BlockBasedTableOptions& table) {
  using Decision = ::rocksdb::CacheEntryRoleOptions::Decision;
  if (table.block_cache == nullptr) return false;
  const auto& overrides = table.cache_usage_options.options_overrides;
  auto it = overrides.find(::rocksdb::CacheEntryRole::kFilterConstruction);
  if (it != overrides.end() && it->second.charged != Decision::kFallback) {
    return it->second.charged == Decision::kEnabled;
  }
  return table.cache_usage_options.options.charged == Decision::kEnabled;
}

void ConstructionCharge::ChargeTo(size_t bytes) {
  const size_t entries = (bytes + kEntryBytes - 1) / kEntryBytes;
  while (handles_.size() > entries) {
    cache_->Release(handles_.back(), /*erase_if_last_ref=*/true);
    handles_.pop_back();
  }
  while (handles_.size() < entries) {
    // 16 bytes, as HyperClockCache requires of every key, laid out as
    // RocksDB lays out the keys of its own reservations: a zero word (a
    // block's key starts with a random word of its DB) and 1 + an id
    // the cache hands out once, so no two of them, ours or RocksDB's, meet.
    char key[16] = {};
    const uint64_t id = cache_->NewId() + 1;
    std::memcpy(key + 8, &id, sizeof(id));
    ::rocksdb::Cache::Handle* handle = nullptr;
    if (!InsertPlaceholder(*cache_, ::rocksdb::Slice(key, sizeof(key)), kEntryBytes, &handle).ok()) return;
    handles_.push_back(handle);
  }
}

}  // namespace linebloom::rocksdb_plugin
