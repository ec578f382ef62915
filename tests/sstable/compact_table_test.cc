// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// Tables with compact filters ("linebloom.compact"), per file and per block:
// read by the default reader options, every key found, absent keys stopped
// by the filter at about the rate the compact model gives, and the Bloom
// filter the compact builder writes when its layers cannot hold the keys
// read back through the same policy.

#include <gtest/gtest.h>

#include <cmath>

#include "linebloom/compact_filter.h"
#include "linebloom/compact_math.h"
#include "table_test_util.h"

namespace linebloom::sstable {
namespace {

using testing::AbsentKey;
using testing::BuildTable;
using testing::Entry;
using testing::MakeEntries;
using testing::OpenTable;
using testing::Options;

constexpr size_t kKeys = 6000;

// Looks up every key and three absent keys per key; returns the stats of
// the absent lookups.
LookupStats LookUpAll(const TableReader& table, const std::vector<Entry>& entries) {
  std::string value;
  for (size_t i = 0; i < entries.size(); ++i) {
    const Status s = table.Get(entries[i].key, &value);
    EXPECT_TRUE(s.ok()) << "key " << i << ": " << s.ToString();
    EXPECT_EQ(value, entries[i].value) << "key " << i;
  }
  LookupStats absent;
  for (size_t i = 0; i + 1 < entries.size(); ++i) {
    for (const char* suffix : {"", "a", "b"}) {
      EXPECT_TRUE(table.Get(AbsentKey(i) + suffix, &value, &absent).IsNotFound()) << "absent key " << i;
    }
  }
  return absent;
}

class CompactTableTest : public ::testing::TestWithParam<FilterMode> {};

TEST_P(CompactTableTest, EveryKeyFoundAbsentKeysSkipped) {
  const FilterMode mode = GetParam();
  const auto entries = MakeEntries(kKeys, 40);
  TableWriterOptions options = Options(mode);
  options.filter_policy = NewLinebloomCompactPolicy({.bits_per_key = 10});
  std::unique_ptr<TableReader> table;
  ASSERT_TRUE(OpenTable(BuildTable(entries, options), {}, &table).ok());
  EXPECT_EQ(table->filter_policy_name(), kLinebloomCompactPolicyName);
  ASSERT_TRUE(table->filter_in_use());
  ASSERT_GT(table->num_blocks(), 20u);

  const LookupStats absent = LookUpAll(*table, entries);
  ASSERT_EQ(absent.filter_probes, 3 * (kKeys - 1));
  EXPECT_EQ(absent.filter_negatives + absent.false_positives, absent.filter_probes);
  EXPECT_EQ(absent.block_reads, absent.false_positives);
  // The model's rate for each filter's keys, and 4 standard deviations of
  // the count over the probes (plus a little for the model's own error).
  const size_t keys_per_filter = mode == FilterMode::kPerFile ? kKeys : kKeys / table->num_blocks();
  const double fpr = CompactFpr(10, keys_per_filter);
  const double expected = fpr * static_cast<double>(absent.filter_probes);
  EXPECT_LE(static_cast<double>(absent.false_positives), 1.2 * expected + 4 * std::sqrt(expected) + 2)
      << "model rate " << fpr << " for " << keys_per_filter << " keys";
  if (mode == FilterMode::kPerFile) {
    // One filter over the file: the bits asked plus at most a line's worth
    // of rounding and the trailer.
    EXPECT_LE(8.0 * static_cast<double>(table->filter_memory()), 10.0 * kKeys * 1.03 + 8 * (64 + 64 + 20));
  }
}

INSTANTIATE_TEST_SUITE_P(Modes, CompactTableTest, ::testing::Values(FilterMode::kPerFile, FilterMode::kPerBlock),
                         [](const auto& param_info) {
                           return param_info.param == FilterMode::kPerFile ? std::string("PerFile")
                                                                           : std::string("PerBlock");
                         });

// FORMAT.md section 2: a per-file compact table filter is exactly the
// compact filter of the file's keys, with no table parameters.
TEST(CompactTable, PerFileFilterIsTheCompactFilterOfTheKeys) {
  const auto entries = MakeEntries(3000, 40);
  const FilterOptions filter_options{.bits_per_key = 7.75, .seed = 99};
  TableWriterOptions options = Options(FilterMode::kPerFile);
  options.filter_policy = NewLinebloomCompactPolicy(filter_options);
  std::unique_ptr<TableReader> table;
  ASSERT_TRUE(OpenTable(BuildTable(entries, options), {}, &table).ok());
  CompactFilterBuilder builder(filter_options);
  for (const Entry& e : entries) builder.AddKey(e.key);
  EXPECT_EQ(table->file_filter(), builder.Finish());
  EXPECT_TRUE(table->filter_parameters().empty());
  EXPECT_EQ(DetectFilterKind(table->file_filter()), FilterKind::kCompact);
}

// A reader given only other policies reads the table without its filter:
// still every key, just without skipping blocks.
TEST(CompactTable, ReaderWithoutThePolicyReadsWithoutFilters) {
  const auto entries = MakeEntries(500, 40);
  TableWriterOptions options = Options(FilterMode::kPerFile);
  options.filter_policy = NewLinebloomCompactPolicy();
  TableReaderOptions ro;
  ro.filter_policies = {NewLinebloomLinePairPolicy()};
  std::unique_ptr<TableReader> table;
  ASSERT_TRUE(OpenTable(BuildTable(entries, options), ro, &table).ok());
  EXPECT_FALSE(table->filter_in_use());
  const LookupStats absent = LookUpAll(*table, entries);
  EXPECT_EQ(absent.filter_probes, 0u);
}

// Writes what CompactFilterBuilder writes with a single layer allowed,
// under the compact policy's name: a Bloom filter whenever the first layer
// bumps a key.
class OneLayerBuilder final : public BlockFilterBuilder {
 public:
  OneLayerBuilder() { builder_.TEST_SetMaxLayers(1); }
  void AddKey(std::string_view key) override { builder_.AddKey(key); }
  size_t NumKeys() const override { return builder_.NumKeys(); }
  std::string Finish() override {
    std::string filter = builder_.Finish();
    fell_back += !builder_.fallback_reason().empty();
    return filter;
  }
  std::string Parameters() const override { return {}; }
  static inline int fell_back = 0;

 private:
  CompactFilterBuilder builder_{FilterOptions{.bits_per_key = 10}};
};

class OneLayerPolicy final : public BlockFilterPolicy {
 public:
  std::string Name() const override { return std::string(kLinebloomCompactPolicyName); }
  std::unique_ptr<BlockFilterBuilder> NewBuilder() const override { return std::make_unique<OneLayerBuilder>(); }
  Status NewTableReader(std::string_view parameters, std::unique_ptr<TableFilterReader>* out) const override {
    return NewLinebloomCompactPolicy()->NewTableReader(parameters, out);
  }
};

TEST(CompactTable, BloomFallbackFiltersAreRead) {
  const auto entries = MakeEntries(kKeys, 40);
  for (FilterMode mode : {FilterMode::kPerFile, FilterMode::kPerBlock}) {
    OneLayerBuilder::fell_back = 0;
    TableWriterOptions options = Options(mode);
    options.filter_policy = std::make_shared<OneLayerPolicy>();
    const std::string bytes = BuildTable(entries, options);
    ASSERT_GT(OneLayerBuilder::fell_back, 0) << FilterModeName(mode);
    std::unique_ptr<TableReader> table;
    ASSERT_TRUE(OpenTable(bytes, {}, &table).ok());
    ASSERT_TRUE(table->filter_in_use());
    if (mode == FilterMode::kPerFile) {
      EXPECT_EQ(DetectFilterKind(table->file_filter()), FilterKind::kBloom);
    }
    const LookupStats absent = LookUpAll(*table, entries);
    EXPECT_GT(absent.filter_negatives, absent.filter_probes * 9 / 10) << FilterModeName(mode);
  }
}

}  // namespace
}  // namespace linebloom::sstable
