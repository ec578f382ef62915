// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// Write/read round trips: every present key found with its value, every
// absent key absent, iteration in order, for every filter mode and for
// tables from empty to thousands of blocks.

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <random>
#include <tuple>

#include "always_maybe_policy.h"
#include "table_test_util.h"

namespace linebloom::sstable {
namespace {

using testing::AbsentKey;
using testing::AlwaysMaybePolicy;
using testing::BuildTable;
using testing::Entry;
using testing::Key;
using testing::MakeEntries;
using testing::OpenTable;
using testing::Options;

void ExpectTableHolds(const TableReader& table, const std::vector<Entry>& entries) {
  ASSERT_EQ(table.num_entries(), entries.size());
  std::string value;
  for (size_t i = 0; i < entries.size(); ++i) {
    Status s = table.Get(entries[i].key, &value);
    ASSERT_TRUE(s.ok()) << "key " << i << ": " << s.ToString();
    ASSERT_EQ(value, entries[i].value) << "key " << i;
  }
  // Absent keys before, between and after the present ones.
  for (std::string_view probe : {std::string_view(""), std::string_view("a"), std::string_view("zzz")}) {
    bool present = false;
    for (const Entry& e : entries) present |= e.key == probe;
    if (!present) {
      EXPECT_TRUE(table.Get(probe, &value).IsNotFound()) << "\"" << probe << "\"";
    }
  }
  for (size_t i = 0; i < entries.size(); ++i) {
    Status s = table.Get(entries[i].key + "~absent", &value);
    ASSERT_TRUE(s.IsNotFound()) << "absent key " << i << ": " << s.ToString();
  }

  auto it = table.NewIterator();
  size_t n = 0;
  for (it->SeekToFirst(); it->Valid(); it->Next(), ++n) {
    ASSERT_LT(n, entries.size());
    ASSERT_EQ(it->key(), entries[n].key);
    ASSERT_EQ(it->value(), entries[n].value);
  }
  EXPECT_TRUE(it->status().ok()) << it->status().ToString();
  EXPECT_EQ(n, entries.size());
}

class RoundTripTest : public ::testing::TestWithParam<std::tuple<FilterMode, size_t, size_t>> {};

TEST_P(RoundTripTest, EveryKeyFoundEveryAbsentKeyAbsent) {
  const auto [mode, num_keys, block_size] = GetParam();
  const auto entries = MakeEntries(num_keys, 40);
  const std::string bytes = BuildTable(entries, Options(mode, block_size));
  std::unique_ptr<TableReader> table;
  ASSERT_TRUE(OpenTable(bytes, {}, &table).ok());
  EXPECT_EQ(table->filter_mode(), mode);
  EXPECT_EQ(table->filter_in_use(), mode != FilterMode::kNone);
  ExpectTableHolds(*table, entries);
  if (num_keys > 0) {
    // Blocks are closed at the target size, so the count follows from it.
    EXPECT_GE(table->num_blocks(), 1u);
    if (block_size == 1) {
      EXPECT_EQ(table->num_blocks(), num_keys);
    }
  } else {
    EXPECT_EQ(table->num_blocks(), 0u);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Sizes, RoundTripTest,
    ::testing::Combine(::testing::Values(FilterMode::kNone, FilterMode::kPerBlock, FilterMode::kPerFile),
                       // 0 keys, 1 key, one block, a few blocks, thousands of blocks.
                       ::testing::Values(size_t{0}, size_t{1}, size_t{20}, size_t{500}, size_t{20000}),
                       ::testing::Values(size_t{1}, size_t{256}, size_t{4096})),
    [](const auto& param_info) {
      const FilterMode mode = std::get<0>(param_info.param);
      const char* name = mode == FilterMode::kPerBlock  ? "PerBlock"
                         : mode == FilterMode::kPerFile ? "PerFile"
                                                        : "NoFilter";
      return std::string(name) + "_" + std::to_string(std::get<1>(param_info.param)) + "keys_block" +
             std::to_string(std::get<2>(param_info.param));
    });

TEST(RoundTrip, ThousandsOfBlocks) {
  const auto entries = MakeEntries(20000, 40);
  const std::string bytes = BuildTable(entries, Options(FilterMode::kPerBlock, 256));
  std::unique_ptr<TableReader> table;
  ASSERT_TRUE(OpenTable(bytes, {}, &table).ok());
  EXPECT_GT(table->num_blocks(), 2000u);
}

TEST(RoundTrip, KeysAndValuesUpTo64KiB) {
  std::mt19937_64 rng(42);
  std::vector<Entry> entries;
  const size_t sizes[] = {0, 1, 100, 4095, 4096, 4097, 30000, 65535, 65536};
  for (size_t i = 0; i < 200; ++i) {
    const size_t key_extra = sizes[rng() % std::size(sizes)];
    const size_t value_size = sizes[rng() % std::size(sizes)];
    // The fixed prefix keeps keys sorted however long the padding is.
    entries.push_back(
        {Key(i) + std::string(key_extra, static_cast<char>('A' + i % 26)), testing::Value(i, value_size)});
  }
  for (FilterMode mode : {FilterMode::kNone, FilterMode::kPerBlock, FilterMode::kPerFile}) {
    for (bool compress : {true, false}) {
      auto options = Options(mode);
      options.compress = compress;
      const std::string bytes = BuildTable(entries, options);
      std::unique_ptr<TableReader> table;
      ASSERT_TRUE(OpenTable(bytes, {}, &table).ok());
      ExpectTableHolds(*table, entries);
    }
  }
}

TEST(RoundTrip, BinaryKeysSortBytewise) {
  // Bytes >= 0x80 sort after ASCII (unsigned comparison), and a key's
  // prefix sorts before it.
  std::vector<Entry> entries = {{std::string("\0", 1), "nul"},
                                {std::string("\0\0", 2), "nulnul"},
                                {"a", "a"},
                                {"ab", "ab"},
                                {"\x7f", "del"},
                                {"\x80", "x80"},
                                {"\xff\xff", "ffff"}};
  const std::string bytes = BuildTable(entries, Options(FilterMode::kPerBlock, 8));
  std::unique_ptr<TableReader> table;
  ASSERT_TRUE(OpenTable(bytes, {}, &table).ok());
  ExpectTableHolds(*table, entries);
}

TEST(RoundTrip, CompressionShrinksCompressibleBlocks) {
  std::vector<Entry> entries;
  for (size_t i = 0; i < 2000; ++i) entries.push_back({Key(i), std::string(200, 'x')});
  auto plain = Options(FilterMode::kNone);
  plain.compress = false;
  const std::string raw = BuildTable(entries, plain);
  const std::string lz4 = BuildTable(entries, Options(FilterMode::kNone));
  EXPECT_LT(lz4.size() * 3, raw.size());
  std::unique_ptr<TableReader> table;
  ASSERT_TRUE(OpenTable(lz4, {}, &table).ok());
  ExpectTableHolds(*table, entries);
}

TEST(RoundTrip, SeekFindsFirstKeyAtOrAfterTarget) {
  const auto entries = MakeEntries(1000, 10);
  const std::string bytes = BuildTable(entries, Options(FilterMode::kPerBlock, 128));
  std::unique_ptr<TableReader> table;
  ASSERT_TRUE(OpenTable(bytes, {}, &table).ok());
  auto it = table->NewIterator();
  for (size_t i : {size_t{0}, size_t{1}, size_t{17}, size_t{500}, size_t{998}}) {
    it->Seek(Key(i));
    ASSERT_TRUE(it->Valid());
    EXPECT_EQ(it->key(), Key(i));
    it->Seek(AbsentKey(i));
    ASSERT_TRUE(it->Valid());
    EXPECT_EQ(it->key(), Key(i + 1));
  }
  it->Seek(AbsentKey(999));
  EXPECT_FALSE(it->Valid());
  EXPECT_TRUE(it->status().ok());
  it->Seek("");
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->key(), Key(0));
}

TEST(Writer, RejectsOutOfOrderAndDuplicateKeysAndStaysUsable) {
  std::string bytes;
  std::unique_ptr<TableWriter> writer;
  ASSERT_TRUE(TableWriter::Open(std::make_unique<testing::StringFile>(&bytes), {}, &writer).ok());
  ASSERT_TRUE(writer->Add("b", "1").ok());
  Status dup = writer->Add("b", "2");
  EXPECT_TRUE(dup.IsInvalidArgument());
  EXPECT_NE(dup.message().find("duplicate key"), std::string::npos) << dup.message();
  Status order = writer->Add("a", "3");
  EXPECT_TRUE(order.IsInvalidArgument());
  EXPECT_NE(order.message().find("out of order"), std::string::npos) << order.message();
  EXPECT_NE(order.message().find("\"a\""), std::string::npos) << order.message();
  EXPECT_TRUE(writer->Add(std::string(kMaxKeySize + 1, 'z'), "").IsInvalidArgument());
  ASSERT_TRUE(writer->Add("c", "4").ok());
  ASSERT_TRUE(writer->Finish().ok());
  EXPECT_TRUE(writer->Add("d", "5").IsInvalidArgument());
  EXPECT_EQ(writer->num_entries(), 2u);
  EXPECT_EQ(writer->file_size(), bytes.size());

  std::unique_ptr<TableReader> table;
  ASSERT_TRUE(OpenTable(bytes, {}, &table).ok());
  std::string value;
  ASSERT_TRUE(table->Get("b", &value).ok());
  EXPECT_EQ(value, "1");
  ASSERT_TRUE(table->Get("c", &value).ok());
  EXPECT_EQ(value, "4");
  EXPECT_TRUE(table->Get("a", &value).IsNotFound());
}

TEST(Writer, RejectsUnusableOptions) {
  std::string bytes;
  std::unique_ptr<TableWriter> writer;
  TableWriterOptions zero_block;
  zero_block.block_size = 0;
  EXPECT_TRUE(
      TableWriter::Open(std::make_unique<testing::StringFile>(&bytes), zero_block, &writer).IsInvalidArgument());
  TableWriterOptions no_policy;
  no_policy.filter_policy = nullptr;
  EXPECT_TRUE(TableWriter::Open(std::make_unique<testing::StringFile>(&bytes), no_policy, &writer).IsInvalidArgument());
}

TEST(Writer, SyncsOnFinishUnlessDisabled) {
  for (bool sync : {true, false}) {
    std::string bytes;
    auto file = std::make_unique<testing::StringFile>(&bytes);
    testing::StringFile* raw = file.get();
    TableWriterOptions options;
    options.sync_on_finish = sync;
    std::unique_ptr<TableWriter> writer;
    ASSERT_TRUE(TableWriter::Open(std::move(file), options, &writer).ok());
    ASSERT_TRUE(writer->Add("k", "v").ok());
    ASSERT_TRUE(writer->Finish().ok());
    EXPECT_EQ(raw->syncs, sync ? 1 : 0);
  }
}

TEST(FilterPolicy, NameIsRecordedAndForeignFiltersAreIgnored) {
  const auto entries = MakeEntries(300, 20);
  auto options = Options(FilterMode::kPerBlock, 512);
  options.filter_policy = std::make_shared<AlwaysMaybePolicy>();
  const std::string bytes = BuildTable(entries, options);

  // Default reader options know only linebloom: the table is still fully
  // readable, without its filters.
  std::unique_ptr<TableReader> table;
  ASSERT_TRUE(OpenTable(bytes, {}, &table).ok());
  EXPECT_EQ(table->filter_policy_name(), "test.always-maybe");
  EXPECT_FALSE(table->filter_in_use());
  EXPECT_EQ(table->filter_memory(), 0u);
  ExpectTableHolds(*table, entries);

  TableReaderOptions with_policy;
  with_policy.filter_policies.push_back(std::make_shared<AlwaysMaybePolicy>());
  ASSERT_TRUE(OpenTable(bytes, with_policy, &table).ok());
  EXPECT_TRUE(table->filter_in_use());
  ExpectTableHolds(*table, entries);

  // A linebloom table read by a reader that knows only the other policy.
  const std::string lb = BuildTable(entries, Options(FilterMode::kPerBlock, 512));
  TableReaderOptions only_other;
  only_other.filter_policies = {std::make_shared<AlwaysMaybePolicy>()};
  ASSERT_TRUE(OpenTable(lb, only_other, &table).ok());
  EXPECT_EQ(table->filter_policy_name(), kLinebloomLinePairPolicyName);
  EXPECT_FALSE(table->filter_in_use());
  ExpectTableHolds(*table, entries);
}

TEST(FilterPolicy, UseFiltersFalseIgnoresThem) {
  const auto entries = MakeEntries(300, 20);
  const std::string bytes = BuildTable(entries, Options(FilterMode::kPerFile, 512));
  TableReaderOptions off;
  off.use_filters = false;
  std::unique_ptr<TableReader> table;
  ASSERT_TRUE(OpenTable(bytes, off, &table).ok());
  EXPECT_FALSE(table->filter_in_use());
  ExpectTableHolds(*table, entries);
}

class PosixFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("linebloom_sstable_test_" + std::to_string(::getpid()) + "_" +
                                                     ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::filesystem::path dir_;
};

TEST_F(PosixFileTest, BufferedAndDirectReadsGiveTheSameAnswers) {
  const auto entries = MakeEntries(5000, 60);
  const std::string path = dir_ / "t.sst";
  std::unique_ptr<TableWriter> writer;
  ASSERT_TRUE(TableWriter::Create(path, Options(FilterMode::kPerBlock), &writer).ok());
  for (const auto& e : entries) ASSERT_TRUE(writer->Add(e.key, e.value).ok());
  ASSERT_TRUE(writer->Finish().ok());
  EXPECT_EQ(std::filesystem::file_size(path), writer->file_size());

  std::unique_ptr<TableReader> buffered;
  ASSERT_TRUE(TableReader::Open(path, IoMode::kBuffered, {}, &buffered).ok());
  ExpectTableHolds(*buffered, entries);

  std::unique_ptr<TableReader> direct;
  Status s = TableReader::Open(path, IoMode::kDirect, {}, &direct);
  if (s.IsNotSupported()) GTEST_SKIP() << s.ToString();
  ASSERT_TRUE(s.ok()) << s.ToString();
  ExpectTableHolds(*direct, entries);

  // O_DIRECT transfers whole aligned 4 KiB units; buffered reads exactly
  // the stored block.
  LookupStats b, d;
  std::string value;
  for (size_t i = 0; i < entries.size(); i += 97) {
    ASSERT_TRUE(buffered->Get(entries[i].key, &value, &b).ok());
    ASSERT_TRUE(direct->Get(entries[i].key, &value, &d).ok());
  }
  EXPECT_EQ(b.block_reads, d.block_reads);
  EXPECT_EQ(d.bytes_read % 4096, 0u);
  EXPECT_GE(d.bytes_read, b.bytes_read);
}

TEST_F(PosixFileTest, MissingFileIsNotFound) {
  std::unique_ptr<TableReader> table;
  EXPECT_TRUE(TableReader::Open(dir_ / "missing.sst", IoMode::kBuffered, {}, &table).IsNotFound());
}

}  // namespace
}  // namespace linebloom::sstable
