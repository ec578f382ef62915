// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// With linebloom's block-cache allocator, every filter block RocksDB hands
// to a filter reader starts on a 64-byte boundary (so no 64-byte filter
// block straddles two cache lines), in every filter mode, and the DB reads
// back every key.

#include <gtest/gtest.h>
#include <rocksdb/cache.h>

#include <atomic>
#include <cstdint>
#include <memory>

#include "db_fixture.h"
#include "linebloom/rocksdb/filter_memory_allocator.h"
#include "linebloom/rocksdb/linebloom_filter_policy.h"

namespace linebloom::rocksdb_plugin::testing {
namespace {

struct Case {
  const char* name;
  bool cache_filters;
  bool partitioned;
};

class FilterMemoryAllocatorTest : public ::testing::TestWithParam<Case> {};

TEST_P(FilterMemoryAllocatorTest, FilterBlocksAreCacheLineAlignedAndEveryKeyReadsBack) {
  const Case c = GetParam();
  std::atomic<int> aligned{0}, unaligned{0};
  auto policy = std::make_shared<ObservingFilterPolicy>(
      std::shared_ptr<const ::rocksdb::FilterPolicy>(NewLinebloomFilterPolicy(10)),
      [&](const ::rocksdb::Slice& contents) {
        (reinterpret_cast<uintptr_t>(contents.data()) % 64 == 0 ? aligned : unaligned)++;
      });
  ::rocksdb::Options options = MakeOptions(policy, FilterMode{});
  ::rocksdb::BlockBasedTableOptions table;
  table.filter_policy = policy;
  table.format_version = 5;
  table.cache_index_and_filter_blocks = c.cache_filters;
  if (c.partitioned) {
    table.partition_filters = true;
    table.index_type = ::rocksdb::BlockBasedTableOptions::kTwoLevelIndexSearch;
    table.metadata_block_size = 512;  // many small partitions
  }
  ::rocksdb::LRUCacheOptions cache;
  cache.capacity = 64 << 20;
  cache.memory_allocator = NewFilterMemoryAllocator();
  table.block_cache = ::rocksdb::NewLRUCache(cache);
  options.table_factory.reset(::rocksdb::NewBlockBasedTableFactory(table));

  TempDir dir;
  const std::vector<std::string> keys = Keys(0, 20000, 2);  // even: present
  {
    auto db = OpenDb(options, dir.path());
    ASSERT_TRUE(db);
    PutAll(*db, keys);
    FlushAndCompact(*db);
  }
  auto db = OpenDb(options, dir.path());  // filters now come from disk
  ASSERT_TRUE(db);
  std::string value;
  for (const auto& key : keys) {
    ASSERT_TRUE(db->Get(::rocksdb::ReadOptions(), key, &value).ok()) << key;
    ASSERT_EQ(value, ValueFor(key));
  }
  for (const auto& key : Keys(1, 2000, 2)) {  // odd: absent, inside the files' ranges
    EXPECT_TRUE(db->Get(::rocksdb::ReadOptions(), key, &value).IsNotFound());
  }
  db.reset();  // before the counters the policy's observer refers to
  EXPECT_GT(aligned.load(), 0) << c.name;
  EXPECT_EQ(unaligned.load(), 0) << c.name;
}

INSTANTIATE_TEST_SUITE_P(Modes, FilterMemoryAllocatorTest,
                         ::testing::Values(Case{"full", false, false}, Case{"full_cached", true, false},
                                           Case{"partitioned", false, true}, Case{"partitioned_cached", true, true}),
                         [](const auto& param_info) { return std::string(param_info.param.name); });

}  // namespace
}  // namespace linebloom::rocksdb_plugin::testing
