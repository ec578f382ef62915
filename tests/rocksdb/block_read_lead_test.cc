// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// Lead bytes for RocksDB's read buffer (block_read_lead.h): a large filter
// is laid out so that its blocks start on cache lines in the memory RocksDB
// reads it into, whatever offset from a line the allocator gives, and small
// filters keep format version 1. The compact kind's lines alike (format
// version 6; small ones keep version 5).

#include <gtest/gtest.h>
#include <rocksdb/cache.h>
#include <rocksdb/memory_allocator.h>

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "block_read_lead.h"  // white-box
#include "db_fixture.h"
#include "linebloom/compact_filter.h"
#include "linebloom/filter_reader.h"
#include "linebloom/rocksdb/testing/policy_filter_builder.h"
#include "linebloom/rocksdb/filter_memory_allocator.h"
#include "linebloom/rocksdb/linebloom_filter_policy.h"
#include "support/reference_compact.h"

namespace linebloom::rocksdb_plugin::testing {
namespace {

// Returns memory `offset` bytes past a 64-byte boundary, as glibc returns
// large blocks 16 bytes past a page boundary.
class OffsetAllocator final : public ::rocksdb::MemoryAllocator {
 public:
  explicit OffsetAllocator(size_t offset) : offset_(offset) {}
  const char* Name() const override { return "OffsetAllocator"; }
  void* Allocate(size_t size) override {
    auto base = std::make_unique<char[]>(size + 128);
    const uintptr_t at = (reinterpret_cast<uintptr_t>(base.get()) + 63) / 64 * 64 + offset_;
    char* const p = base.get() + (at - reinterpret_cast<uintptr_t>(base.get()));
    std::lock_guard<std::mutex> lock(mutex_);
    bases_[p] = std::move(base);
    ++allocations_;
    return p;
  }
  void Deallocate(void* p) override {
    std::lock_guard<std::mutex> lock(mutex_);
    bases_.erase(static_cast<char*>(p));
  }
  int allocations() const { return allocations_; }

 private:
  const size_t offset_;
  std::mutex mutex_;
  std::map<char*, std::unique_ptr<char[]>> bases_;
  std::atomic<int> allocations_{0};
};

TEST(BlockReadLead, LeadBringsTheBlocksToALineBoundary) {
  for (size_t offset : {0u, 16u, 32u, 48u, 8u}) {
    OffsetAllocator allocator(offset);
    EXPECT_EQ(LeadBytesForBlockRead(kLeadFromBytes, &allocator), (64 - offset) % 64) << offset;
    EXPECT_EQ(allocator.allocations(), 1);
  }
  EXPECT_EQ(LeadBytesForBlockRead(size_t{64} << 20, NewFilterMemoryAllocator().get()), 0u);
}

// An allocator without memory: the probe gives up, and the filter has no
// lead bytes.
class FailingAllocator final : public ::rocksdb::MemoryAllocator {
 public:
  explicit FailingAllocator(bool throws) : throws_(throws) {}
  const char* Name() const override { return "FailingAllocator"; }
  void* Allocate(size_t) override {
    if (throws_) throw std::bad_alloc();
    return nullptr;
  }
  void Deallocate(void*) override { ADD_FAILURE() << "nothing was allocated"; }

 private:
  const bool throws_;
};

TEST(BlockReadLead, NoMemoryForTheProbeMeansNoLead) {
  FailingAllocator returns_null(false), throws(true);
  EXPECT_EQ(LeadBytesForBlockRead(kLeadFromBytes, &returns_null), 0u);
  EXPECT_EQ(LeadBytesForBlockRead(kLeadFromBytes, &throws), 0u);
}

TEST(BlockReadLead, SmallFiltersHaveNoLeadAndAllocateNothing) {
  OffsetAllocator allocator(16);
  EXPECT_EQ(LeadBytesForBlockRead(kLeadFromBytes - 1, &allocator), 0u);
  EXPECT_EQ(LeadBytesForBlockRead(0, &allocator), 0u);
  EXPECT_EQ(allocator.allocations(), 0);
  EXPECT_EQ(LeadBytesForBlockRead(kLeadFromBytes - 1, nullptr), 0u);
}

std::vector<std::string> KeysFrom(int begin, int end) {
  std::vector<std::string> keys;
  for (int i = begin; i < end; ++i) keys.push_back("key" + std::to_string(i));
  return keys;
}

// A policy filter of `keys` for a table whose block cache has `allocator`.
PolicyFilter BuildWithAllocator(const ::rocksdb::FilterPolicy& policy, std::span<const std::string_view> keys,
                                std::shared_ptr<::rocksdb::MemoryAllocator> allocator) {
  ::rocksdb::LRUCacheOptions cache_options;
  cache_options.capacity = 1 << 20;
  cache_options.memory_allocator = std::move(allocator);
  PolicyFilterBuilder builder(policy, 5, ::rocksdb::NewLRUCache(cache_options));
  for (std::string_view k : keys) builder.AddKey(k);
  return builder.Finish();
}

// Allocators that return memory 16, 0 and 40 bytes past a line: for each,
// the filter of `views` (1 MiB or more) built for a block cache with that
// allocator and read back from its memory, as RocksDB reads it, with no key
// of `views` missing; `check(lead, built, read)` checks the rest, with the
// lead that allocator calls for.
template <class Check>
void BuildAndReadAtEachOffset(const ::rocksdb::FilterPolicy& policy, std::span<const std::string_view> views,
                              Check check) {
  for (size_t offset : {16u, 0u, 40u}) {
    auto allocator = std::make_shared<OffsetAllocator>(offset);
    const PolicyFilter built = BuildWithAllocator(policy, views, allocator);
    ASSERT_GE(built.bytes().size(), kLeadFromBytes);
    const PolicyFilter read = PolicyFilter::FromBytes(policy, built.bytes(), allocator);
    ASSERT_EQ(reinterpret_cast<uintptr_t>(read.bytes().data()) % 64, offset);
    for (std::string_view k : views) ASSERT_TRUE(read.MayMatch(k)) << k;
    check((64 - offset) % 64, built.bytes(), read);
  }
}

int PositivesAmongAbsentKeys(const PolicyFilter& filter) {
  int positives = 0;
  for (const std::string& k : KeysFrom(1000000, 1100000)) positives += filter.MayMatch(k) ? 1 : 0;
  return positives;
}

// Through the builder RocksDB drives: a filter of 1 MiB or more gets the lead
// its block cache's allocator calls for, and read from that allocator's
// memory (as RocksDB reads it) its blocks are cache-line aligned.
TEST(BlockReadLead, LargePolicyFilterIsAlignedInTheBlockCachesMemory) {
  std::shared_ptr<const ::rocksdb::FilterPolicy> policy(NewLinebloomFilterPolicy(50));
  const std::vector<std::string> keys = KeysFrom(0, 200000);  // 50 bits each: 1.2 MiB
  std::vector<std::string_view> views(keys.begin(), keys.end());
  BuildAndReadAtEachOffset(*policy, views, [](size_t lead, std::string_view bytes, const PolicyFilter& read) {
    EXPECT_EQ(static_cast<unsigned char>(bytes[bytes.size() - 9]), lead == 0 ? 1 : 2) << "version";
    EXPECT_EQ(static_cast<unsigned char>(bytes[bytes.size() - 10]), lead);
    FilterReader reader;
    ASSERT_TRUE(FilterReader::Parse(read.bytes(), &reader).ok());
    EXPECT_EQ(reinterpret_cast<uintptr_t>(reader.blocks().data()) % 64, 0u) << lead;
    EXPECT_LT(PositivesAmongAbsentKeys(read), 100) << "50 bits/key: about 1 in 10^5 (here up to 1 in 1000)";
  });
}

// align_blocks=false: every filter is version 1, for readers from before
// version 2 (a rolling upgrade).
TEST(BlockReadLead, AlignBlocksOffWritesVersion1) {
  LinebloomPolicyOptions options;
  options.bits_per_key = 50;
  options.align_blocks = false;
  std::shared_ptr<const ::rocksdb::FilterPolicy> policy(NewLinebloomFilterPolicy(options));
  const std::vector<std::string> keys = KeysFrom(0, 200000);
  std::vector<std::string_view> views(keys.begin(), keys.end());
  auto allocator = std::make_shared<OffsetAllocator>(16);
  const PolicyFilter built = BuildWithAllocator(*policy, views, allocator);
  ASSERT_GE(built.bytes().size(), kLeadFromBytes);
  EXPECT_EQ(built.bytes()[built.bytes().size() - 9], 1);
  EXPECT_EQ(built.bytes()[built.bytes().size() - 10], 0);
  EXPECT_EQ(allocator->allocations(), 0) << "no probe";
  const PolicyFilter read = PolicyFilter::FromBytes(*policy, built.bytes(), allocator);
  for (std::string_view k : views) ASSERT_TRUE(read.MayMatch(k)) << k;
}

TEST(BlockReadLead, SmallPolicyFilterIsVersion1) {
  std::shared_ptr<const ::rocksdb::FilterPolicy> policy(NewLinebloomFilterPolicy(10));
  const std::vector<std::string> keys = KeysFrom(0, 10000);
  std::vector<std::string_view> views(keys.begin(), keys.end());
  const PolicyFilter built = BuildPolicyFilter(*policy, views);
  EXPECT_EQ(built.bytes()[built.bytes().size() - 9], 1);
  EXPECT_EQ(built.bytes()[built.bytes().size() - 10], 0);
}

// The compact kind through the builder RocksDB drives: a filter of 1 MiB
// or more gets the lead its block cache's allocator calls for (version 8:
// the policy's compact filters mix lines of two plane counts at these
// bits), and read from that allocator's memory its lines are cache-line
// aligned; a small one, and any with align_blocks=false, has none (version
// 7).
TEST(BlockReadLead, LargeCompactPolicyFilterIsAlignedInTheBlockCachesMemory) {
  std::shared_ptr<const ::rocksdb::FilterPolicy> policy(NewLinebloomFilterPolicy(16, -1));
  // The policy's 16 Bloom bits per key are about 11.5 compact bits: 1.1 MiB.
  const std::vector<std::string> keys = KeysFrom(0, 800000);
  std::vector<std::string_view> views(keys.begin(), keys.end());
  BuildAndReadAtEachOffset(*policy, views, [](size_t lead, std::string_view bytes, const PolicyFilter& read) {
    ASSERT_EQ(DetectFilterKind(bytes), FilterKind::kCompact);
    EXPECT_EQ(static_cast<unsigned char>(bytes[bytes.size() - 9]), lead == 0 ? 7 : 8) << "version";
    EXPECT_EQ(bytes.substr(0, lead), std::string(lead, '\0'));
    reference::compact::Filter f;
    ASSERT_EQ(reference::compact::Parse(read.bytes(), /*verify_checksum=*/true, &f), 0);
    EXPECT_EQ(f.lead, lead);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(f.bytes) % 64, 0u) << lead;
    EXPECT_LT(PositivesAmongAbsentKeys(read), 200) << "11.5 compact bits/key: about 1 in 3000";
  });
}

TEST(BlockReadLead, SmallOrUnalignedCompactPolicyFilterHasNoLead) {
  std::shared_ptr<const ::rocksdb::FilterPolicy> small_policy(NewLinebloomFilterPolicy(16, -1));
  const std::vector<std::string> keys = KeysFrom(0, 800000);
  std::vector<std::string_view> views(keys.begin(), keys.end());
  const PolicyFilter small = BuildPolicyFilter(*small_policy, std::span(views).first(10000));
  ASSERT_EQ(DetectFilterKind(small.bytes()), FilterKind::kCompact);
  EXPECT_EQ(small.bytes()[small.bytes().size() - 9], 7);

  LinebloomPolicyOptions options;
  options.bits_per_key = 16;
  options.compact_from_level = -1;
  options.align_blocks = false;
  std::shared_ptr<const ::rocksdb::FilterPolicy> policy(NewLinebloomFilterPolicy(options));
  auto allocator = std::make_shared<OffsetAllocator>(16);
  const PolicyFilter built = BuildWithAllocator(*policy, views, allocator);
  ASSERT_GE(built.bytes().size(), kLeadFromBytes);
  EXPECT_EQ(built.bytes()[built.bytes().size() - 9], 7);
  EXPECT_EQ(allocator->allocations(), 0) << "no probe";
  const PolicyFilter read = PolicyFilter::FromBytes(*policy, built.bytes(), allocator);
  for (std::string_view k : views) ASSERT_TRUE(read.MayMatch(k)) << k;
}

// In a database: RocksDB reads a large filter block into its block cache's
// allocator's memory 16 bytes past a line, and the blocks are on lines.
TEST(BlockReadLead, RocksdbReadsALargeFilterWithItsBlocksOnCacheLines) {
  // Where each large filter's bytes and its blocks are, off a cache line.
  struct Placement {
    uintptr_t bytes_offset;
    uintptr_t blocks_offset;
  };
  std::mutex mutex;
  std::vector<Placement> placements;
  auto policy = std::make_shared<ObservingFilterPolicy>(
      std::shared_ptr<const ::rocksdb::FilterPolicy>(NewLinebloomFilterPolicy(50)),
      [&](const ::rocksdb::Slice& contents) {
        FilterReader reader;
        if (contents.size() < kLeadFromBytes ||
            !FilterReader::Parse({contents.data(), contents.size()}, &reader).ok()) {
          return;
        }
        std::lock_guard<std::mutex> lock(mutex);
        placements.push_back({reinterpret_cast<uintptr_t>(contents.data()) % 64,
                              reinterpret_cast<uintptr_t>(reader.blocks().data()) % 64});
      });
  ::rocksdb::Options options = MakeOptions(policy, FilterMode{});
  options.write_buffer_size = 128 << 20;
  ::rocksdb::BlockBasedTableOptions table;
  table.filter_policy = policy;
  table.format_version = 5;
  ::rocksdb::LRUCacheOptions cache;
  cache.capacity = 64 << 20;
  cache.memory_allocator = std::make_shared<OffsetAllocator>(16);
  table.block_cache = ::rocksdb::NewLRUCache(cache);
  options.table_factory.reset(::rocksdb::NewBlockBasedTableFactory(table));

  TempDir dir;
  const std::vector<std::string> keys = KeysFrom(0, 200000);
  {
    auto db = OpenDb(options, dir.path());
    ASSERT_TRUE(db);
    PutAll(*db, keys);
    FlushAndCompact(*db);
  }
  auto db = OpenDb(options, dir.path());  // the filter now comes from disk
  ASSERT_TRUE(db);
  std::string value;
  for (size_t i = 0; i < keys.size(); i += 7) {
    ASSERT_TRUE(db->Get(::rocksdb::ReadOptions(), keys[i], &value).ok()) << keys[i];
    ASSERT_EQ(value, ValueFor(keys[i]));
  }
  for (const std::string& key : KeysFrom(1000000, 1002000)) {
    EXPECT_TRUE(db->Get(::rocksdb::ReadOptions(), key, &value).IsNotFound());
  }
  const FilterCounts counts = ReadFilterCounts(*options.statistics);
  EXPECT_GE(counts.useful, 1990u) << "the filter answers no for the absent keys";
  db.reset();  // before what the policy's observer refers to
  ASSERT_FALSE(placements.empty()) << "RocksDB read a filter of 1 MiB or more";
  for (const auto& p : placements) {
    EXPECT_EQ(p.bytes_offset, 16u);
    EXPECT_EQ(p.blocks_offset, 0u);
  }
}

}  // namespace
}  // namespace linebloom::rocksdb_plugin::testing
