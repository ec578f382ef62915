// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// Tables of table format version 1 stay readable. testdata/ holds two small
// version-1 tables (per-block and per-file linebloom.blocked512 filters,
// 512-byte blocks, 300 keys "key00000", "key00002", ... "key00598" with
// values "value <i> of the version 1 table"), written by the version-1
// writer. Every present key must return its value and every absent key
// NotFound, with the filters in use.

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>

#include "linebloom/foundation/file.h"
#include "linebloom/sstable/table_reader.h"

namespace linebloom::sstable {
namespace {

std::string ReadTestdata(const std::string& name) {
  std::ifstream in(std::string(LINEBLOOM_SSTABLE_TESTDATA) + "/" + name, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::string KeyOf(int i) {
  char k[32];
  std::snprintf(k, sizeof(k), "key%05d", i);
  return k;
}

void CheckEveryLookup(const std::string& file, FilterMode mode) {
  std::string bytes = ReadTestdata(file);
  ASSERT_GT(bytes.size(), 48u) << file;
  std::unique_ptr<TableReader> table;
  ASSERT_TRUE(TableReader::Open(NewMemoryFile(file, std::move(bytes)), TableReaderOptions{}, &table).ok());
  EXPECT_EQ(table->num_entries(), 300u);
  EXPECT_EQ(table->filter_mode(), mode);
  EXPECT_EQ(table->filter_policy_name(), "linebloom.blocked512");
  EXPECT_TRUE(table->filter_in_use());
  LookupStats stats;
  std::string value;
  for (int i = 0; i < 600; ++i) {
    const Status s = table->Get(KeyOf(i), &value, &stats);
    if (i % 2 == 0) {
      ASSERT_TRUE(s.ok()) << file << " " << KeyOf(i) << ": " << s.ToString();
      EXPECT_EQ(value, "value " + std::to_string(i) + " of the version 1 table");
    } else {
      EXPECT_TRUE(s.IsNotFound()) << file << " " << KeyOf(i) << ": " << s.ToString();
    }
  }
  // The filters answer "no" for most of the 300 absent keys.
  EXPECT_GT(stats.filter_negatives, 250u) << file;
}

// Every byte of a version-1 table is still covered: a changed byte is a
// Corruption (at open or when its block is read), never a wrong answer.
void CheckEveryChangedByte(const std::string& file) {
  const std::string bytes = ReadTestdata(file);
  for (size_t pos = 0; pos < bytes.size(); ++pos) {
    std::string damaged = bytes;
    damaged[pos] = static_cast<char>(damaged[pos] ^ 0x10);
    std::unique_ptr<TableReader> table;
    const Status open = TableReader::Open(NewMemoryFile(file, std::move(damaged)), TableReaderOptions{}, &table);
    if (!open.ok()) {
      EXPECT_TRUE(open.IsCorruption()) << file << " byte " << pos << ": " << open.ToString();
      continue;
    }
    bool reported = false;
    std::string value;
    for (int i = 0; i < 600; i += 3) {
      const Status s = table->Get(KeyOf(i), &value);
      if (s.IsCorruption()) {
        reported = true;
      } else if (i % 2 == 0) {
        ASSERT_TRUE(s.ok()) << file << " byte " << pos << " " << KeyOf(i) << ": " << s.ToString();
        EXPECT_EQ(value, "value " + std::to_string(i) + " of the version 1 table");
      } else {
        EXPECT_TRUE(s.IsNotFound()) << file << " byte " << pos << " " << KeyOf(i);
      }
    }
    // A change the sampled lookups did not reach must show in a full walk.
    if (!reported) {
      auto it = table->NewIterator();
      for (it->SeekToFirst(); it->Valid(); it->Next()) {
      }
      EXPECT_TRUE(it->status().IsCorruption()) << file << " byte " << pos << ": change went unnoticed";
    }
  }
}

TEST(Version1Table, PerBlockEveryChangedByteIsDetected) { CheckEveryChangedByte("v1_per_block.sst"); }
TEST(Version1Table, PerFileEveryChangedByteIsDetected) { CheckEveryChangedByte("v1_per_file.sst"); }

TEST(Version1Table, PerBlockFiltersAnswerEveryLookup) { CheckEveryLookup("v1_per_block.sst", FilterMode::kPerBlock); }
TEST(Version1Table, PerFileFilterAnswersEveryLookup) { CheckEveryLookup("v1_per_file.sst", FilterMode::kPerFile); }

}  // namespace
}  // namespace linebloom::sstable
