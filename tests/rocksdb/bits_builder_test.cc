// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// The builder's contract with RocksDB, on every layout (the calls are made on
// LinebloomBitsBuilder directly, so RocksDB 7.8 checks them too): repeats
// of keys and prefixes are added once, EstimateEntriesAdded is exact and 0
// only when nothing was added, CalculateSpace is the size Finish produces,
// EstimatedFpRate is the exact blocked-Bloom rate of that size.

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <rocksdb/slice.h>
#include <rocksdb/table.h>

#include "bits_builder.h"     // white-box: the builder
#include "block_read_lead.h"  // kLeadFromBytes
#include "capturing_logger.h"
#include "linebloom/bloom_math.h"
#include "linebloom/filter_reader.h"
#include "linebloom/rocksdb/linebloom_filter_policy.h"

namespace linebloom::rocksdb_plugin {
namespace {

using ::rocksdb::Slice;

struct Built {
  std::unique_ptr<const char[]> buf;
  Slice filter;
};

Built Finish(LinebloomBitsBuilder& builder) {
  Built b;
  ::rocksdb::Status status;
  b.filter = builder.Finish(&b.buf, &status);
  EXPECT_TRUE(status.ok()) << status.ToString();
  return b;
}

bool MayContain(const Built& b, const std::string& key) {
  FilterReader reader;
  EXPECT_TRUE(FilterReader::Parse({b.filter.data(), b.filter.size()}, &reader).ok());
  return reader.MayContain(key);
}

std::string Key(int prefix, int i) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "p%04d/k%06d", prefix, i);
  return buf;
}
std::string PrefixOf(int prefix) { return Key(prefix, 0).substr(0, 5); }

// Prefixes repeat across many keys, interleaved with them and not adjacent to
// each other (key i has prefix i % 10): each is added once.
TEST(RocksdbBitsBuilder, RepeatedPrefixesAreAddedOnce) {
  LinebloomBitsBuilder builder(FilterOptions{}, /*post_verify=*/true);
  EXPECT_EQ(builder.EstimateEntriesAdded(), 0u);
  std::vector<std::string> keys;
  for (int i = 0; i < 1000; ++i) keys.push_back(Key(i % 10, i));
  for (const auto& key : keys) {
    builder.AddKeyAndAlt(key, Slice(key.data(), 5));
    builder.AddKeyAndAlt(key, Slice(key.data(), 5));  // a second version of the key
  }
  EXPECT_EQ(builder.EstimateEntriesAdded(), 1000u + 10u);
  const size_t expected_size = builder.CalculateSpace(1010);
  const Built b = Finish(builder);
  EXPECT_EQ(b.filter.size(), expected_size) << "sized for distinct keys + distinct prefixes";
  EXPECT_TRUE(builder.MaybePostVerify(b.filter).ok());
  EXPECT_EQ(builder.EstimateEntriesAdded(), 0u) << "Finish resets the builder";
  for (const auto& key : keys) ASSERT_TRUE(MayContain(b, key)) << key;
  for (int p = 0; p < 10; ++p) ASSERT_TRUE(MayContain(b, PrefixOf(p))) << p;
}

// RocksDB's own de-duplication cases (filter_policy_internal.h): a key that
// is its own prefix, an alt equal to the previous key (the first prefix of a
// partition is added with AddKey), a key equal to an earlier prefix.
TEST(RocksdbBitsBuilder, KeysAndPrefixesDeduplicateAcrossKinds) {
  LinebloomBitsBuilder builder(FilterOptions{}, false);
  builder.AddKeyAndAlt("ab", "ab");  // own prefix: one entry
  EXPECT_EQ(builder.EstimateEntriesAdded(), 1u);
  builder.AddKeyAndAlt("abc", "ab");  // prefix already there
  EXPECT_EQ(builder.EstimateEntriesAdded(), 2u);
  builder.AddKey("ab");  // a key equal to a known prefix
  EXPECT_EQ(builder.EstimateEntriesAdded(), 2u);
  builder.AddKey("xy");               // partition start: the prefix as a key
  builder.AddKeyAndAlt("xyz", "xy");  // its alt equals the previous key
  EXPECT_EQ(builder.EstimateEntriesAdded(), 4u);
  builder.AddKey("xyz");  // adjacent repeat
  EXPECT_EQ(builder.EstimateEntriesAdded(), 4u);
  const Built b = Finish(builder);
  for (const char* e : {"ab", "abc", "xy", "xyz"}) EXPECT_TRUE(MayContain(b, e)) << e;

  // The prefix set belongs to one filter: the next one adds the prefix again.
  builder.AddKeyAndAlt("abd", "ab");
  EXPECT_EQ(builder.EstimateEntriesAdded(), 2u);
}

// EstimateEntriesAdded is 0 exactly when nothing was added (RocksDB writes no
// filter at 0): one AddKey of any key, even the empty one, makes it 1.
// Finish places the filter's blocks on 64-byte boundaries of the buffer, so
// each block is one cache line while it is built; RocksDB writes the Slice,
// and the buffer only owns it. new[] aligns to 16 bytes (a large block comes
// from mmap at a page + 16), so an unaligned start shows in some of these
// sizes, from one block to 4 MiB. Filters of 1 MiB and more start with lead
// bytes (block_read_lead.h): the blocks start after them.
TEST(RocksdbBitsBuilder, FilterBlocksStartOnTheBuffersCacheLines) {
  LinebloomBitsBuilder builder(FilterOptions{}, /*post_verify=*/true);
  for (int num_keys : {1, 7, 100, 1000, 20000, 3000000}) {
    std::vector<std::string> keys;
    for (int i = 0; i < num_keys; ++i) keys.push_back(Key(i % 100, i));
    for (const auto& key : keys) builder.AddKey(Slice(key));
    const Built b = Finish(builder);
    FilterReader reader;
    ASSERT_TRUE(FilterReader::Parse({b.filter.data(), b.filter.size()}, &reader).ok());
    const size_t lead = static_cast<size_t>(reader.blocks().data() - b.filter.data());
    const auto start = reinterpret_cast<uintptr_t>(b.filter.data());
    const auto owner = reinterpret_cast<uintptr_t>(b.buf.get());
    EXPECT_EQ((start + lead) % kFilterBlockBytes, 0u) << num_keys << " keys";
    EXPECT_GE(start, owner) << num_keys << " keys";
    EXPECT_LT(start - owner, kFilterBlockBytes) << num_keys << " keys";
    // (Whether a large filter gets lead bytes depends on the allocator.)
    if (b.filter.size() < kLeadFromBytes) {
      EXPECT_EQ(lead, 0u) << num_keys << " keys";
    }
    EXPECT_EQ(b.filter.size(), lead + builder.CalculateSpace(static_cast<size_t>(num_keys)));
    EXPECT_TRUE(builder.MaybePostVerify(b.filter).ok()) << num_keys << " keys";
    for (int i = 0; i < num_keys; i += 997) ASSERT_TRUE(MayContain(b, keys[static_cast<size_t>(i)])) << i;
  }
}

TEST(RocksdbBitsBuilder, EntriesAddedIsZeroOnlyWhenNothingWasAdded) {
  LinebloomBitsBuilder builder(FilterOptions{}, false);
  EXPECT_EQ(builder.EstimateEntriesAdded(), 0u);
  builder.AddKey("");
  EXPECT_EQ(builder.EstimateEntriesAdded(), 1u);
  Finish(builder);
  EXPECT_EQ(builder.EstimateEntriesAdded(), 0u);
  builder.AddKeyAndAlt("k", "");
  EXPECT_EQ(builder.EstimateEntriesAdded(), 2u);
}

TEST(RocksdbBitsBuilder, CalculateSpaceIsTheFinishedSizeAndInvertsApproximateNumEntries) {
  for (double bits : {1.0, 7.5, 10.0, 23.0}) {
    FilterOptions options;
    options.bits_per_key = bits;
    LinebloomBitsBuilder builder(options, false);
    for (size_t n : {0, 1, 2, 51, 52, 1000, 12345}) {
      for (size_t i = 0; i < n; ++i) builder.AddKey(std::to_string(i));
      const size_t space = builder.CalculateSpace(n);
      EXPECT_EQ(space, 64 * NumBlocksFor(n, bits) + 16) << bits << " " << n;
      EXPECT_EQ(Finish(builder).filter.size(), space) << bits << " " << n;
      EXPECT_GE(builder.ApproximateNumEntries(space), n) << bits << " " << n;
    }
  }
}

// The rate of a filter of `bytes` bytes: the whole 64-byte blocks after the
// 16-byte trailer, at the builder's probes.
TEST(RocksdbBitsBuilder, EstimatedFpRateIsTheBlockedRateOfTheRealSize) {
  FilterOptions options;
  options.bits_per_key = 10;
  LinebloomBitsBuilder builder(options, false);
  const int k = OptimalBlockedProbes(10);
  const size_t n = 10000;
  const size_t bytes = builder.CalculateSpace(n);
  const double blocks = static_cast<double>((bytes - 16) / 64);
  EXPECT_DOUBLE_EQ(builder.EstimatedFpRate(n, bytes), BlockedFpr(blocks * 512 / n, k));
  EXPECT_DOUBLE_EQ(builder.EstimatedFpRate(n, bytes + 63), builder.EstimatedFpRate(n, bytes))
      << "a partial block is not counted";
  EXPECT_LT(builder.EstimatedFpRate(n, 2 * bytes), builder.EstimatedFpRate(n, bytes));
  EXPECT_EQ(builder.EstimatedFpRate(0, bytes), 0.0);
  EXPECT_EQ(builder.EstimatedFpRate(n, 79), 1.0) << "no block";
  // The measured rate of a real filter of that size agrees.
  for (size_t i = 0; i < n; ++i) builder.AddKey("present" + std::to_string(i));
  const Built b = Finish(builder);
  size_t positives = 0;
  const size_t queries = 200000;
  for (size_t i = 0; i < queries; ++i) positives += MayContain(b, "absent" + std::to_string(i));
  const double measured = static_cast<double>(positives) / queries;
  const double expected = builder.EstimatedFpRate(n, b.filter.size());
  EXPECT_NEAR(measured, expected, 5 * std::sqrt(expected / queries) + 0.05 * expected);
}

// optimize_filters_for_memory: warned about only when the user turned it on
// against the release's default (it is on by default from RocksDB 9.2).
TEST(RocksdbBitsBuilder, OptimizeFiltersForMemoryWarnsOnlyAgainstTheDefault) {
  const bool by_default = ::rocksdb::BlockBasedTableOptions().optimize_filters_for_memory;
  for (bool value : {false, true}) {
    auto policy = NewLinebloomFilterPolicy(10);
    auto logger = std::make_shared<testing::CapturingLogger>();
    ::rocksdb::BlockBasedTableOptions table;
    table.optimize_filters_for_memory = value;
    ::rocksdb::FilterBuildingContext context(table);
    context.info_log = logger.get();
    std::unique_ptr<::rocksdb::FilterBitsBuilder> builder(policy->GetBuilderWithContext(context));
    ASSERT_NE(builder, nullptr);
    const size_t warnings = logger->Matching("optimize_filters_for_memory").size();
    EXPECT_EQ(warnings, value && !by_default ? 1u : 0u) << "value " << value << ", default " << by_default;
  }
}

}  // namespace
}  // namespace linebloom::rocksdb_plugin
