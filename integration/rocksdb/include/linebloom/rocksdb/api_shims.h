// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// RocksDB's public API as one set of calls for every supported release
// (7.8 to 11.8). Code that uses a call whose form differs between releases
// goes through this header, so the version checks live here only.

#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <rocksdb/version.h>
#if ROCKSDB_MAJOR >= 8
#include <rocksdb/advanced_cache.h>
#else
#include <rocksdb/cache.h>
#endif
#include <rocksdb/db.h>
#include <rocksdb/options.h>
#include <rocksdb/statistics.h>
#include <rocksdb/status.h>

namespace linebloom::rocksdb_plugin {

// DB::Open filled a DB** until 10.x (which added a std::unique_ptr<DB>*
// overload beside it); 11.0 removed the DB** form.
inline ::rocksdb::Status OpenDB(const ::rocksdb::Options& options, const std::string& path,
                                std::unique_ptr<::rocksdb::DB>* db) {
#if ROCKSDB_MAJOR >= 11
  return ::rocksdb::DB::Open(options, path, db);
#else
  ::rocksdb::DB* raw = nullptr;
  const ::rocksdb::Status s = ::rocksdb::DB::Open(options, path, &raw);
  db->reset(raw);
  return s;
#endif
}

// The same with column families; `handles` receives one handle per
// descriptor (the caller destroys them before the DB).
inline ::rocksdb::Status OpenDB(const ::rocksdb::DBOptions& options, const std::string& path,
                                const std::vector<::rocksdb::ColumnFamilyDescriptor>& families,
                                std::vector<::rocksdb::ColumnFamilyHandle*>* handles,
                                std::unique_ptr<::rocksdb::DB>* db) {
#if ROCKSDB_MAJOR >= 11
  return ::rocksdb::DB::Open(options, path, families, handles, db);
#else
  ::rocksdb::DB* raw = nullptr;
  const ::rocksdb::Status s = ::rocksdb::DB::Open(options, path, families, handles, &raw);
  db->reset(raw);
  return s;
#endif
}

// What prefix filters did for iterator seeks: `checked` seeks asked a
// filter, `filtered` of them were answered "absent". RocksDB 7.8 counts them
// in BLOOM_FILTER_PREFIX_CHECKED/_USEFUL; later releases count only point
// lookups there and seeks in the {NON_,}LAST_LEVEL_SEEK_FILTERED/_MATCH
// tickers (present in 8.11.5, the oldest later release this is tested with).
struct SeekFilterCounts {
  uint64_t checked = 0;
  uint64_t filtered = 0;
};
inline SeekFilterCounts ReadSeekFilterCounts(const ::rocksdb::Statistics& stats) {
  SeekFilterCounts c;
#if ROCKSDB_MAJOR >= 8
  c.filtered = stats.getTickerCount(::rocksdb::LAST_LEVEL_SEEK_FILTERED) +
               stats.getTickerCount(::rocksdb::NON_LAST_LEVEL_SEEK_FILTERED);
  c.checked = c.filtered + stats.getTickerCount(::rocksdb::LAST_LEVEL_SEEK_FILTER_MATCH) +
              stats.getTickerCount(::rocksdb::NON_LAST_LEVEL_SEEK_FILTER_MATCH);
#else
  c.checked = stats.getTickerCount(::rocksdb::BLOOM_FILTER_PREFIX_CHECKED);
  c.filtered = stats.getTickerCount(::rocksdb::BLOOM_FILTER_PREFIX_USEFUL);
#endif
  return c;
}

// A placeholder entry of `charge` bytes in `cache`: no object, nothing to
// delete, only the charge against the cache's capacity, as RocksDB's own
// reservations of memory used elsewhere (CacheEntryRole::kFilterConstruction
// where the release tags entries with a role). Fails with MemoryLimit where
// the cache has a strict capacity limit and is full. From 8.1 an entry
// names its role in a CacheItemHelper; 7.8 takes a deleter.
inline ::rocksdb::Status InsertPlaceholder(::rocksdb::Cache& cache, const ::rocksdb::Slice& key, size_t charge,
                                           ::rocksdb::Cache::Handle** handle) {
#if ROCKSDB_MAJOR > 8 || (ROCKSDB_MAJOR == 8 && ROCKSDB_MINOR >= 1)
  static const ::rocksdb::Cache::CacheItemHelper kHelper(::rocksdb::CacheEntryRole::kFilterConstruction);
  return cache.Insert(key, nullptr, &kHelper, charge, handle, ::rocksdb::Cache::Priority::LOW);
#else
  return cache.Insert(
      key, nullptr, charge, [](const ::rocksdb::Slice&, void*) {}, handle, ::rocksdb::Cache::Priority::LOW);
#endif
}

}  // namespace linebloom::rocksdb_plugin
