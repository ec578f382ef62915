// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// Filter-construction memory charged to the block cache
// (cache_usage_options, CacheEntryRole::kFilterConstruction), for both
// kinds: the hashes while keys are added, every finished filter until the
// builder is destroyed, nothing where the table options do not ask for it,
// and a full cache with a strict capacity limit never fails a build; in an
// LRU cache and a HyperClockCache.

#include <gtest/gtest.h>

#include <climits>
#include <memory>
#include <string>
#include <vector>

#include <rocksdb/filter_policy.h>
#include <rocksdb/table.h>

#include "linebloom/compact_filter.h"
#include "linebloom/rocksdb/api_shims.h"  // the Cache class of every release
#include "linebloom/rocksdb/filter_bits.h"
#include "linebloom/rocksdb/linebloom_filter_policy.h"

namespace linebloom::rocksdb_plugin {
namespace {

constexpr size_t kEntryBytes = size_t{256} << 10;  // the charge's unit

std::string Key(size_t i) { return "construction-key-" + std::to_string(i); }

::rocksdb::BlockBasedTableOptions TableWith(std::shared_ptr<::rocksdb::Cache> cache, bool charged) {
  ::rocksdb::BlockBasedTableOptions table;
  table.block_cache = std::move(cache);
  if (charged) {
    table.cache_usage_options.options_overrides.insert(
        {::rocksdb::CacheEntryRole::kFilterConstruction,
         {/*.charged = */ ::rocksdb::CacheEntryRoleOptions::Decision::kEnabled}});
  }
  return table;
}

// compact_from_level -1: every file compact; INT_MAX: never.
class ConstructionCharge : public ::testing::TestWithParam<int> {
 protected:
  // A builder of the policy for a table with `cache` (the builder keeps
  // what it needs of the table options).
  std::unique_ptr<::rocksdb::FilterBitsBuilder> NewBuilder(std::shared_ptr<::rocksdb::Cache> cache,
                                                           bool charged) const {
    const ::rocksdb::BlockBasedTableOptions table = TableWith(std::move(cache), charged);
    ::rocksdb::FilterBuildingContext context(table);
    return std::unique_ptr<::rocksdb::FilterBitsBuilder>(policy_->GetBuilderWithContext(context));
  }

  std::shared_ptr<const LinebloomFilterPolicy> policy_ = NewLinebloomFilterPolicy(10, GetParam());
};

TEST_P(ConstructionCharge, HoldsTheHashesAndEveryFinishedFilterUntilTheBuilderGoes) {
  auto cache = ::rocksdb::NewLRUCache(size_t{256} << 20, /*num_shard_bits=*/0);
  std::unique_ptr<::rocksdb::FilterBitsBuilder> builder = NewBuilder(cache, true);
  ASSERT_NE(builder, nullptr);
  EXPECT_EQ(cache->GetUsage(), 0u);

  // The builder holds 8 bytes per key; the charge runs at most one entry
  // (and the 64 keys between checks) ahead.
  constexpr size_t kKeys = 300000;
  for (size_t i = 0; i < kKeys; ++i) builder->AddKey(Key(i));
  const size_t hashes = kKeys * 8;
  EXPECT_GE(cache->GetUsage() + 64 * 8, hashes);
  EXPECT_LE(cache->GetUsage(), hashes + kEntryBytes);

  // After Finish the hashes are let go; the filter (RocksDB holds it until
  // the file is written) stays charged, and so does the next partition's.
  std::unique_ptr<const char[]> first_buf, second_buf;
  const ::rocksdb::Slice first = builder->Finish(&first_buf);
  EXPECT_EQ(DetectFilterKind({first.data(), first.size()}),
            GetParam() == INT_MAX ? FilterKind::kBloom : FilterKind::kCompact);
  EXPECT_GE(cache->GetUsage(), first.size());
  EXPECT_LT(cache->GetUsage(), first.size() + 64 + kEntryBytes);
  for (size_t i = 0; i < kKeys; ++i) builder->AddKey(Key(kKeys + i));
  const ::rocksdb::Slice second = builder->Finish(&second_buf);
  EXPECT_GE(cache->GetUsage(), first.size() + second.size());
  EXPECT_LT(cache->GetUsage(), first.size() + second.size() + 128 + kEntryBytes);

  // The filters answer for their keys as without a charge.
  std::unique_ptr<::rocksdb::FilterBitsReader> reader(policy_->GetFilterBitsReader(first));
  for (size_t i = 0; i < kKeys; i += 997) EXPECT_TRUE(reader->MayMatch(Key(i))) << i;

  builder.reset();
  EXPECT_EQ(cache->GetUsage(), 0u);
}

TEST_P(ConstructionCharge, NothingIsChargedUnlessTheTableOptionsAsk) {
  auto cache = ::rocksdb::NewLRUCache(size_t{256} << 20, /*num_shard_bits=*/0);
  std::unique_ptr<::rocksdb::FilterBitsBuilder> builder = NewBuilder(cache, false);
  ASSERT_NE(builder, nullptr);
  for (size_t i = 0; i < 100000; ++i) builder->AddKey(Key(i));
  std::unique_ptr<const char[]> buf;
  builder->Finish(&buf);
  EXPECT_EQ(cache->GetUsage(), 0u);
}

// A cache of one entry's room, with a strict capacity limit: the build
// charges what it can and finishes, every key present.
TEST_P(ConstructionCharge, AFullStrictCacheNeverFailsTheBuild) {
  auto cache = ::rocksdb::NewLRUCache(kEntryBytes + kEntryBytes / 2, /*num_shard_bits=*/0,
                                      /*strict_capacity_limit=*/true);
  std::unique_ptr<::rocksdb::FilterBitsBuilder> builder = NewBuilder(cache, true);
  ASSERT_NE(builder, nullptr);
  constexpr size_t kKeys = 200000;
  for (size_t i = 0; i < kKeys; ++i) builder->AddKey(Key(i));
  // One entry fits (the cache counts an entry's metadata too), no second.
  EXPECT_GE(cache->GetUsage(), kEntryBytes);
  EXPECT_LE(cache->GetUsage(), cache->GetCapacity());
  std::unique_ptr<const char[]> buf;
  ::rocksdb::Status status;
  const ::rocksdb::Slice filter = builder->Finish(&buf, &status);
  ASSERT_TRUE(status.ok()) << status.ToString();
  std::unique_ptr<::rocksdb::FilterBitsReader> reader(policy_->GetFilterBitsReader(filter));
  for (size_t i = 0; i < kKeys; ++i) ASSERT_TRUE(reader->MayMatch(Key(i))) << i;
  builder.reset();
  EXPECT_EQ(cache->GetUsage(), 0u);
}

#if LINEBLOOM_ROCKSDB_VERSION_AT_LEAST(9, 6)
// From 9.6 RocksDB adds each key with its prefix (AddKeyAndAlt); the set of
// a filter's distinct prefixes (at least 16 bytes each) is charged too.
TEST_P(ConstructionCharge, HoldsThePrefixSetToo) {
  auto cache = ::rocksdb::NewLRUCache(size_t{256} << 20, /*num_shard_bits=*/0);
  std::unique_ptr<::rocksdb::FilterBitsBuilder> builder = NewBuilder(cache, true);
  ASSERT_NE(builder, nullptr);
  // Every key its own prefix: two entries' hashes and a prefix per key.
  constexpr size_t kKeys = 200000;
  for (size_t i = 0; i < kKeys; ++i) builder->AddKeyAndAlt(Key(i), "prefix-" + std::to_string(i));
  EXPECT_GE(cache->GetUsage() + 64 * 8, kKeys * (2 * 8 + 16));
  std::unique_ptr<const char[]> buf;
  builder->Finish(&buf);
  builder.reset();
  EXPECT_EQ(cache->GetUsage(), 0u);
}
#endif

// HyperClockCache takes keys of exactly 16 bytes, as the placeholders' are.
TEST_P(ConstructionCharge, AlsoInAHyperClockCache) {
  auto cache = ::rocksdb::HyperClockCacheOptions(size_t{64} << 20, kEntryBytes, /*num_shard_bits=*/0).MakeSharedCache();
  std::unique_ptr<::rocksdb::FilterBitsBuilder> builder = NewBuilder(cache, true);
  ASSERT_NE(builder, nullptr);
  // The cache charges its own table's metadata from the start.
  const size_t empty = cache->GetUsage();
  constexpr size_t kKeys = 100000;
  for (size_t i = 0; i < kKeys; ++i) builder->AddKey(Key(i));
  EXPECT_GE(cache->GetUsage() - empty + 64 * 8, kKeys * 8);
  std::unique_ptr<const char[]> buf;
  const ::rocksdb::Slice filter = builder->Finish(&buf);
  EXPECT_GE(cache->GetUsage() - empty, filter.size());
  builder.reset();
  EXPECT_EQ(cache->GetUsage(), empty);
}

INSTANTIATE_TEST_SUITE_P(BothKinds, ConstructionCharge, ::testing::Values(INT_MAX, -1),
                         [](const ::testing::TestParamInfo<int>& kind) {
                           return std::string(kind.param == INT_MAX ? "Bloom" : "Compact");
                         });

}  // namespace
}  // namespace linebloom::rocksdb_plugin
