// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// A real RocksDB on a temporary directory, configured for one filter mode,
// with the statistics the filter tests read.

#pragma once

#include <cstdlib>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>
#include <rocksdb/db.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/options.h>
#include <rocksdb/slice_transform.h>
#include <rocksdb/statistics.h>
#include <rocksdb/table.h>
#include <rocksdb/table_properties.h>
#include <rocksdb/utilities/options_util.h>

#include "linebloom/rocksdb/api_shims.h"
#include "test_keys.h"

namespace linebloom::rocksdb_plugin::testing {

// A fresh directory under $TMPDIR (or /tmp), removed with everything in it.
class TempDir {
 public:
  TempDir() {
    const char* base = std::getenv("TMPDIR");
    std::string pattern = std::string(base && *base ? base : "/tmp") + "/linebloom-rocksdb-XXXXXX";
    if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// Delegates to `inner` and shows `observe` the contents of every filter
// block RocksDB asks a reader for, where RocksDB holds them.
class ObservingFilterPolicy : public ::rocksdb::FilterPolicy {
 public:
  ObservingFilterPolicy(std::shared_ptr<const ::rocksdb::FilterPolicy> inner,
                        std::function<void(const ::rocksdb::Slice&)> observe)
      : inner_(std::move(inner)), observe_(std::move(observe)) {}
  const char* Name() const override { return inner_->Name(); }
  const char* CompatibilityName() const override { return inner_->CompatibilityName(); }
  ::rocksdb::FilterBitsBuilder* GetBuilderWithContext(const ::rocksdb::FilterBuildingContext& context) const override {
    return inner_->GetBuilderWithContext(context);
  }
  ::rocksdb::FilterBitsReader* GetFilterBitsReader(const ::rocksdb::Slice& contents) const override {
    observe_(contents);
    return inner_->GetFilterBitsReader(contents);
  }

 private:
  std::shared_ptr<const ::rocksdb::FilterPolicy> inner_;
  std::function<void(const ::rocksdb::Slice&)> observe_;
};

// The filter modes a user can turn on, combined freely.
struct FilterMode {
  const char* name = "full";
  bool partitioned = false;
  bool cache_index_and_filter_blocks = false;
  bool optimize_filters_for_memory = false;
  bool whole_key_filtering = true;
  size_t prefix_length = 0;  // 0: no prefix extractor
  ::rocksdb::ChecksumType checksum = ::rocksdb::kXXH3;
  // A block cache of this many bytes (0: RocksDB's default) with filter
  // construction charged to it (CacheEntryRole::kFilterConstruction).
  size_t charged_cache_bytes = 0;
};

inline ::rocksdb::Options MakeOptions(std::shared_ptr<const ::rocksdb::FilterPolicy> policy, const FilterMode& mode) {
  ::rocksdb::Options options;
  options.create_if_missing = true;
  options.statistics = ::rocksdb::CreateDBStatistics();
  ::rocksdb::BlockBasedTableOptions table;
  table.filter_policy = std::move(policy);
  table.format_version = 5;
  table.checksum = mode.checksum;
  table.whole_key_filtering = mode.whole_key_filtering;
  table.cache_index_and_filter_blocks = mode.cache_index_and_filter_blocks;
  table.optimize_filters_for_memory = mode.optimize_filters_for_memory;
  if (mode.partitioned) {
    table.partition_filters = true;
    table.index_type = ::rocksdb::BlockBasedTableOptions::kTwoLevelIndexSearch;
  }
  if (mode.charged_cache_bytes > 0) {
    table.block_cache = ::rocksdb::NewLRUCache(mode.charged_cache_bytes);
    table.cache_usage_options.options_overrides.insert(
        {::rocksdb::CacheEntryRole::kFilterConstruction, {::rocksdb::CacheEntryRoleOptions::Decision::kEnabled}});
  }
  options.table_factory.reset(::rocksdb::NewBlockBasedTableFactory(table));
  if (mode.prefix_length > 0) {
    options.prefix_extractor.reset(::rocksdb::NewFixedPrefixTransform(mode.prefix_length));
  }
  return options;
}

inline std::unique_ptr<::rocksdb::DB> OpenDb(const ::rocksdb::Options& options, const std::string& path) {
  std::unique_ptr<::rocksdb::DB> db;
  const ::rocksdb::Status s = OpenDB(options, path, &db);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return db;
}

// A deterministic 100-byte value for `key`.
inline std::string ValueFor(const std::string& key) {
  std::string v;
  while (v.size() < 100) v.append(key).push_back('|');
  v.resize(100);
  return v;
}

inline void PutAll(::rocksdb::DB& db, const std::vector<std::string>& keys) {
  ::rocksdb::WriteOptions wo;
  wo.disableWAL = true;
  for (const auto& key : keys) ASSERT_TRUE(db.Put(wo, key, ValueFor(key)).ok());
}

// Flushes the memtable, then compacts everything into the last level, so the
// keys live in freshly written SSTs with the current policy's filters.
inline void FlushAndCompact(::rocksdb::DB& db) {
  ASSERT_TRUE(db.Flush(::rocksdb::FlushOptions()).ok());
  ::rocksdb::CompactRangeOptions cro;
  cro.bottommost_level_compaction = ::rocksdb::BottommostLevelCompaction::kForce;
  ASSERT_TRUE(db.CompactRange(cro, nullptr, nullptr).ok());
}

// Filter policy names recorded in the table properties of every live SST.
inline std::vector<std::string> FilterPolicyNames(::rocksdb::DB& db) {
  ::rocksdb::TablePropertiesCollection props;
  EXPECT_TRUE(db.GetPropertiesOfAllTables(&props).ok());
  std::vector<std::string> names;
  for (const auto& [file, p] : props) names.push_back(p->filter_policy_name);
  return names;
}

// Every key is found with its value (ValueFor).
inline void ExpectEveryKeyFound(::rocksdb::DB& db, const std::vector<std::string>& keys) {
  std::string value;
  for (const auto& key : keys) {
    ASSERT_TRUE(db.Get(::rocksdb::ReadOptions(), key, &value).ok()) << key;
    ASSERT_EQ(value, ValueFor(key));
  }
}

struct FilterCounts {
  uint64_t useful = 0;         // filter said "no"
  uint64_t positive = 0;       // filter said "may match"
  uint64_t true_positive = 0;  // ... and the key was there
};

inline FilterCounts ReadFilterCounts(::rocksdb::Statistics& stats) {
  return {stats.getTickerCount(::rocksdb::BLOOM_FILTER_USEFUL),
          stats.getTickerCount(::rocksdb::BLOOM_FILTER_FULL_POSITIVE),
          stats.getTickerCount(::rocksdb::BLOOM_FILTER_FULL_TRUE_POSITIVE)};
}

// Loads the DB's latest OPTIONS file strictly (unknown options and ids are
// errors); returns the filter policy of its single column family's table
// options (a failed ASSERT leaves it null).
inline std::shared_ptr<const ::rocksdb::FilterPolicy> LoadOptionsFile(
    const std::string& path, ::rocksdb::DBOptions* db_options, std::vector<::rocksdb::ColumnFamilyDescriptor>* cfs) {
  ::rocksdb::ConfigOptions config;
  config.ignore_unknown_options = false;
  config.ignore_unsupported_options = false;
  const ::rocksdb::Status s = ::rocksdb::LoadLatestOptions(config, path, db_options, cfs);
  EXPECT_TRUE(s.ok()) << s.ToString();
  if (!s.ok() || cfs->size() != 1) return nullptr;
  const auto* table = (*cfs)[0].options.table_factory->GetOptions<::rocksdb::BlockBasedTableOptions>();
  return table == nullptr ? nullptr : table->filter_policy;
}

// Gets of absent keys (each must be NotFound); returns how many filter
// checks answered "absent" (BLOOM_FILTER_USEFUL) during them.
inline uint64_t AbsentKeysFiltered(::rocksdb::DB& db, ::rocksdb::Statistics& stats,
                                   const std::vector<std::string>& absent) {
  stats.Reset();
  std::string value;
  for (const auto& key : absent) {
    EXPECT_TRUE(db.Get(::rocksdb::ReadOptions(), key, &value).IsNotFound()) << key;
  }
  return ReadFilterCounts(stats).useful;
}

}  // namespace linebloom::rocksdb_plugin::testing
