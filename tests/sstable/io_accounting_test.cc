// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// The per-lookup counters are exact, not estimates: each test predicts every
// counter from first principles and compares for equality.

#include <gtest/gtest.h>

#include "always_maybe_policy.h"
#include "linebloom/filter_builder.h"
#include "linebloom/filter_reader.h"
#include "table_test_util.h"

namespace linebloom::sstable {
namespace {

using testing::AbsentKey;
using testing::AlwaysMaybePolicy;
using testing::BuildTable;
using testing::MakeEntries;
using testing::OpenTable;
using testing::Options;

constexpr size_t kKeys = 3000;

// Bytes a buffered read of block b transfers: exactly the stored block.
uint64_t StoredSize(const TableReader& t, std::string_view key) { return t.block(*t.FindBlock(key)).size; }

TEST(IoAccounting, AlwaysMaybeFilterReadsOneBlockPerAbsentLookup) {
  const auto entries = MakeEntries(kKeys, 30);
  for (FilterMode mode : {FilterMode::kPerBlock, FilterMode::kPerFile}) {
    auto options = Options(mode, 1024);
    options.filter_policy = std::make_shared<AlwaysMaybePolicy>();
    std::unique_ptr<TableReader> table;
    TableReaderOptions ro;
    ro.filter_policies = {std::make_shared<AlwaysMaybePolicy>()};
    ASSERT_TRUE(OpenTable(BuildTable(entries, options), ro, &table).ok());
    ASSERT_TRUE(table->filter_in_use());

    LookupStats stats;
    uint64_t expected_bytes = 0;
    std::string value;
    for (size_t i = 0; i < kKeys; ++i) {
      ASSERT_TRUE(table->Get(AbsentKey(i), &value, &stats).IsNotFound());
      if (i + 1 < kKeys) expected_bytes += StoredSize(*table, AbsentKey(i));
    }
    // AbsentKey(last) sorts after every key: no block holds its range.
    EXPECT_EQ(stats.lookups, kKeys);
    EXPECT_EQ(stats.filter_probes, kKeys - 1);
    EXPECT_EQ(stats.filter_negatives, 0u);
    EXPECT_EQ(stats.block_reads, kKeys - 1);
    EXPECT_EQ(stats.false_positives, kKeys - 1);
    EXPECT_EQ(stats.unneeded_block_reads, kKeys - 1);
    EXPECT_EQ(stats.bytes_read, expected_bytes);
  }
}

TEST(IoAccounting, NoFilterReadsOneBlockPerLookupInRange) {
  const auto entries = MakeEntries(kKeys, 30);
  std::unique_ptr<TableReader> table;
  ASSERT_TRUE(OpenTable(BuildTable(entries, Options(FilterMode::kNone, 1024)), {}, &table).ok());
  LookupStats absent, present;
  std::string value;
  for (size_t i = 0; i < kKeys; ++i) {
    ASSERT_TRUE(table->Get(AbsentKey(i), &value, &absent).IsNotFound());
    ASSERT_TRUE(table->Get(entries[i].key, &value, &present).ok());
  }
  EXPECT_EQ(absent.filter_probes, 0u);
  EXPECT_EQ(absent.block_reads, kKeys - 1);
  EXPECT_EQ(absent.unneeded_block_reads, kKeys - 1);
  EXPECT_EQ(absent.false_positives, 0u);  // no filter, so nothing to be false
  EXPECT_EQ(present.block_reads, kKeys);
  EXPECT_EQ(present.unneeded_block_reads, 0u);
}

// With linebloom, the counted false positives are exactly the block reads
// that found nothing, and equal what the filter alone answers for the same
// keys (recomputed here from the filter bytes, without the table).
TEST(IoAccounting, LinebloomFalsePositivesEqualUnneededBlockReads) {
  const auto entries = MakeEntries(20000, 30);
  for (FilterMode mode : {FilterMode::kPerBlock, FilterMode::kPerFile}) {
    auto options = Options(mode, 1024);
    // 4 bits/key makes false positives common enough to count.
    options.filter_policy = NewLinebloomLinePairPolicy({.bits_per_key = 4});
    std::unique_ptr<TableReader> table;
    ASSERT_TRUE(OpenTable(BuildTable(entries, options), {}, &table).ok());

    LookupStats stats;
    uint64_t expected_fp = 0, expected_bytes = 0;
    std::string value;
    for (size_t i = 0; i + 1 < entries.size(); ++i) {
      const std::string key = AbsentKey(i);
      ASSERT_TRUE(table->Get(key, &value, &stats).IsNotFound());
      const std::string_view filter_bytes =
          mode == FilterMode::kPerFile ? table->file_filter() : table->block(*table->FindBlock(key)).filter;
      std::unique_ptr<TableFilterReader> filter;
      ASSERT_TRUE(options.filter_policy->NewTableReader(table->filter_parameters(), &filter).ok());
      ASSERT_TRUE(filter->AddFilter(filter_bytes).ok());
      if (filter->MayMatch(0, key)) {
        ++expected_fp;
        expected_bytes += StoredSize(*table, key);
      }
    }
    const uint64_t lookups = entries.size() - 1;
    EXPECT_GT(expected_fp, 0u);
    EXPECT_EQ(stats.filter_probes, lookups);
    EXPECT_EQ(stats.false_positives, expected_fp);
    EXPECT_EQ(stats.unneeded_block_reads, stats.false_positives);
    EXPECT_EQ(stats.block_reads, stats.false_positives);
    EXPECT_EQ(stats.filter_negatives + stats.block_reads, stats.filter_probes);
    EXPECT_EQ(stats.bytes_read, expected_bytes);

    // Present keys: never a filter negative, one block each, no waste.
    LookupStats present;
    for (const auto& e : entries) ASSERT_TRUE(table->Get(e.key, &value, &present).ok());
    EXPECT_EQ(present.filter_negatives, 0u);
    EXPECT_EQ(present.block_reads, entries.size());
    EXPECT_EQ(present.false_positives, 0u);
    EXPECT_EQ(present.unneeded_block_reads, 0u);
  }
}

// Table format 2 charges a table for exactly its filter bytes: each block's
// filter is its key count times the bits per key rounded to the nearest
// byte, plus the 5 bytes of parameters once per table and the one-byte
// filter size in each index entry.
TEST(IoAccounting, FilterMemoryIsTheSumOfTheFilters) {
  const auto entries = MakeEntries(5000, 30);
  std::unique_ptr<TableReader> table;
  ASSERT_TRUE(OpenTable(BuildTable(entries, Options(FilterMode::kPerBlock, 1024)), {}, &table).ok());
  EXPECT_EQ(table->format_version(), 2u);
  EXPECT_EQ(table->filter_parameters().size(), 5u);
  size_t sum = 0;
  for (size_t i = 0; i < table->num_blocks(); ++i) {
    const BlockInfo b = table->block(i);
    EXPECT_EQ(b.filter.size(), (b.num_entries * 10 + 4) / 8) << "block " << i;
    sum += b.filter.size() + 1;
  }
  EXPECT_EQ(table->filter_memory(), sum + 5);
  // 10.0 bits/key for the filters themselves, to within one byte a block.
  EXPECT_NEAR(8.0 * static_cast<double>(sum - table->num_blocks()) / 5000, 10.0,
              4.0 * static_cast<double>(table->num_blocks()) / 5000);

  // A whole-file filter likewise: 5000 keys at 10 bits/key, 6250 bytes.
  ASSERT_TRUE(OpenTable(BuildTable(entries, Options(FilterMode::kPerFile, 1024)), {}, &table).ok());
  EXPECT_EQ(table->file_filter().size(), 6250u);
  EXPECT_EQ(table->filter_memory(), table->file_filter().size() + 5);
}

}  // namespace
}  // namespace linebloom::sstable
