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

#include <rocksdb/db.h>
#include <rocksdb/options.h>
#include <rocksdb/statistics.h>
#include <rocksdb/status.h>
#include <rocksdb/version.h>

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

}  // namespace linebloom::rocksdb_plugin
