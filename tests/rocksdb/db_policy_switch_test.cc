// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// Changing a DB's filter policy, and carrying the policy through an OPTIONS
// file. RocksDB finds a filter block by the policy's CompatibilityName, so a
// DB reopened with another policy must ignore the old filters (not misread
// them) until compaction rewrites the files with the new ones.

#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <rocksdb/convenience.h>
#include <rocksdb/db.h>
#include <rocksdb/utilities/options_util.h>

#include "db_fixture.h"
#include "linebloom/rocksdb/linebloom_filter_policy.h"
#include "linebloom/rocksdb/registration.h"

namespace linebloom::rocksdb_plugin {
namespace {

using namespace testing;  // NOLINT: the fixture helpers

constexpr size_t kKeys = 10000;

std::shared_ptr<const ::rocksdb::FilterPolicy> Builtin() {
  return std::shared_ptr<const ::rocksdb::FilterPolicy>(::rocksdb::NewBloomFilterPolicy(10));
}

struct Switch {
  const char* name;
  std::shared_ptr<const ::rocksdb::FilterPolicy> (*first)();
  std::shared_ptr<const ::rocksdb::FilterPolicy> (*second)();
  const char* second_name;  // in the table properties after rewriting
};

class DbPolicySwitch : public ::testing::TestWithParam<Switch> {};

TEST_P(DbPolicySwitch, OldFiltersAreIgnoredThenReplaced) {
  const Switch sw = GetParam();
  TempDir dir;
  const auto present = Keys(0, kKeys, 2);
  const auto absent = Keys(1, kKeys - 1, 2);
  FilterMode mode;

  auto first = sw.first();
  {
    ::rocksdb::Options options = MakeOptions(first, mode);
    auto db = OpenDb(options, dir.path());
    ASSERT_TRUE(db);
    PutAll(*db, present);
    FlushAndCompact(*db);
    for (const auto& name : FilterPolicyNames(*db)) EXPECT_EQ(name, first->Name());
    EXPECT_GT(AbsentKeysFiltered(*db, *options.statistics, absent), kKeys * 9 / 10);
  }

  auto second = sw.second();
  ::rocksdb::Options options = MakeOptions(second, mode);
  auto db = OpenDb(options, dir.path());
  ASSERT_TRUE(db);
  // Old files: every key is there, and no filter is consulted at all (a
  // misread filter would either reject present keys or reject absent ones).
  ExpectEveryKeyFound(*db, present);
  options.statistics->Reset();
  EXPECT_EQ(AbsentKeysFiltered(*db, *options.statistics, absent), 0u);
  EXPECT_EQ(ReadFilterCounts(*options.statistics).positive, 0u);
  for (const auto& name : FilterPolicyNames(*db)) EXPECT_EQ(name, first->Name());

  // Rewritten files carry and use the new policy's filters.
  FlushAndCompact(*db);
  for (const auto& name : FilterPolicyNames(*db)) EXPECT_EQ(name, sw.second_name);
  ExpectEveryKeyFound(*db, present);
  EXPECT_GT(AbsentKeysFiltered(*db, *options.statistics, absent), kKeys * 9 / 10);
}

std::shared_ptr<const ::rocksdb::FilterPolicy> Linebloom() { return NewLinebloomFilterPolicy(10); }

INSTANTIATE_TEST_SUITE_P(Rocksdb, DbPolicySwitch,
                         ::testing::Values(Switch{"builtin_to_linebloom", Builtin, Linebloom, "linebloom"},
                                           Switch{"linebloom_to_builtin", Linebloom, Builtin, "bloomfilter"}),
                         [](const ::testing::TestParamInfo<Switch>& param_info) { return param_info.param.name; });

// OPTIONS file round trip: RocksDB writes the policy's id and options into
// the OPTIONS file; loading that file (with linebloom registered) gives back
// the same policy, and a DB opened from it reads and writes linebloom filters.
TEST(RocksdbOptionsFile, PolicyAndItsOptionsComeBack) {
  RegisterLinebloomWithDefaultLibrary();
  TempDir dir;
  LinebloomPolicyOptions written;
  written.bits_per_key = 7.5;
  written.num_probes = 4;
  written.verify_checksum = false;
  const auto present = Keys(0, kKeys, 2);
  {
    ::rocksdb::Options options = MakeOptions(NewLinebloomFilterPolicy(written), FilterMode());
    auto db = OpenDb(options, dir.path());
    ASSERT_TRUE(db);
    PutAll(*db, present);
    FlushAndCompact(*db);
  }

  ::rocksdb::DBOptions db_options;
  std::vector<::rocksdb::ColumnFamilyDescriptor> cfs;
  const auto policy = LoadOptionsFile(dir.path(), &db_options, &cfs);
  ASSERT_NE(policy, nullptr);
  const auto* loaded = policy->CheckedCast<LinebloomFilterPolicy>();
  ASSERT_NE(loaded, nullptr) << policy->Name();
  EXPECT_EQ(loaded->options().bits_per_key, 7.5);
  EXPECT_EQ(loaded->options().num_probes, 4);
  EXPECT_FALSE(loaded->options().verify_checksum);

  // Reopen from the loaded options; new files use the loaded policy.
  std::vector<::rocksdb::ColumnFamilyHandle*> handles;
  std::unique_ptr<::rocksdb::DB> db;
  db_options.statistics = ::rocksdb::CreateDBStatistics();
  ASSERT_TRUE(OpenDB(db_options, dir.path(), cfs, &handles, &db).ok());
  ExpectEveryKeyFound(*db, present);
  const auto more = Keys(2 * kKeys, kKeys, 2);
  PutAll(*db, more);
  FlushAndCompact(*db);
  ExpectEveryKeyFound(*db, more);
  for (const auto& name : FilterPolicyNames(*db)) EXPECT_EQ(name, "linebloom");
  // 7.5 bits/key, k = 4: the filter still rejects most absent keys.
  EXPECT_GT(AbsentKeysFiltered(*db, *db_options.statistics, Keys(2 * kKeys + 1, kKeys - 1, 2)), kKeys * 95 / 100);
  for (auto* h : handles) ASSERT_TRUE(db->DestroyColumnFamilyHandle(h).ok());
}

// DB::Open validates the policy's options.
TEST(RocksdbOptionsValidation, OpenRejectsOutOfRangeBitsPerKey) {
  LinebloomPolicyOptions bad;
  bad.bits_per_key = 0.25;
  TempDir dir;
  ::rocksdb::Options options = MakeOptions(NewLinebloomFilterPolicy(bad), FilterMode());
  std::unique_ptr<::rocksdb::DB> db;
  const ::rocksdb::Status s = OpenDB(options, dir.path(), &db);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
}

}  // namespace
}  // namespace linebloom::rocksdb_plugin
