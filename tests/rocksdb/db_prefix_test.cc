// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// Prefix filtering: with a prefix extractor RocksDB adds each key's prefix to
// the filter (as well as the key, under whole_key_filtering), and prefix
// seeks ask the filter about the prefix. These tests show that no prefix is
// ever lost, that each distinct prefix takes one entry, and that absent
// prefixes are rejected at the theoretical rate.

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <rocksdb/db.h>
#include <rocksdb/iterator.h>
#include <rocksdb/table_properties.h>

#include "db_fixture.h"
#include "linebloom/bloom_math.h"
#include "linebloom/filter_builder.h"
#include "linebloom/rocksdb/linebloom_filter_policy.h"

namespace linebloom::rocksdb_plugin {
namespace {

using namespace testing;  // NOLINT: the fixture helpers

constexpr size_t kPrefixLength = 8;
constexpr size_t kPrefixes = 10000;  // present prefixes: even p < 2 * kPrefixes
constexpr size_t kKeysPerPrefix = 2;

std::string Prefix(size_t p) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "p%07zu", p);
  return std::string(buf, kPrefixLength);
}

std::string PrefixedKey(size_t p, size_t s) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%08zu", s);
  return Prefix(p) + std::string(buf, 8);
}

struct PrefixCase {
  const char* name;
  bool whole_key_filtering;
  bool partitioned;
};

class DbPrefixFilter : public ::testing::TestWithParam<PrefixCase> {};

TEST_P(DbPrefixFilter, PrefixSeeksNeverMissAndAbsentPrefixesAreFiltered) {
  const PrefixCase param = GetParam();
  FilterMode mode;
  mode.prefix_length = kPrefixLength;
  mode.whole_key_filtering = param.whole_key_filtering;
  mode.partitioned = param.partitioned;
  TempDir dir;
  auto policy = NewLinebloomFilterPolicy(10);
  ::rocksdb::Options options = MakeOptions(policy, mode);
  auto db = OpenDb(options, dir.path());
  ASSERT_TRUE(db);

  std::vector<std::string> present;
  for (size_t i = 0; i < kPrefixes; ++i) {
    for (size_t s = 0; s < kKeysPerPrefix; ++s) present.push_back(PrefixedKey(2 * i, s));
  }
  PutAll(*db, present);
  FlushAndCompact(*db);

  // The filters hold each distinct key and each distinct prefix once, at 10
  // bits per entry: a prefix shared by several keys is not added again
  // (RocksDB from 9.6 hands every key's prefix to AddKeyAndAlt), exactly so
  // with whole keys in one full filter. In the other modes RocksDB itself
  // hands a few prefixes over twice (partitioned filters repeat a prefix at
  // each partition boundary), so those may hold a few more entries.
  {
    ::rocksdb::TablePropertiesCollection props;
    ASSERT_TRUE(db->GetPropertiesOfAllTables(&props).ok());
    uint64_t entries = 0;
    for (const auto& [path, p] : props) {
      entries += p->num_filter_entries;
      if (!param.partitioned) {
        EXPECT_EQ(p->filter_size, 64 * NumBlocksFor(p->num_filter_entries, 10.0) + 16) << path;
      }
    }
    const uint64_t distinct = (param.whole_key_filtering ? present.size() : 0) + kPrefixes;
    if (param.partitioned || !param.whole_key_filtering) {
      EXPECT_GE(entries, distinct);
      EXPECT_LE(entries, distinct + distinct / 100);
    } else {
      EXPECT_EQ(entries, distinct);
    }
    std::printf("  %s: %llu filter entries in %zu files for %llu distinct keys and prefixes\n", param.name,
                static_cast<unsigned long long>(entries), props.size(), static_cast<unsigned long long>(distinct));
  }

  // Every key by Get.
  std::string value;
  for (const auto& key : present) {
    ASSERT_TRUE(db->Get(::rocksdb::ReadOptions(), key, &value).ok()) << key;
  }

  ::rocksdb::ReadOptions prefix_read;
  prefix_read.prefix_same_as_start = true;

  // Every present prefix by prefix seek: all of its keys come back.
  {
    std::unique_ptr<::rocksdb::Iterator> it(db->NewIterator(prefix_read));
    for (size_t i = 0; i < kPrefixes; ++i) {
      size_t seen = 0;
      for (it->Seek(Prefix(2 * i)); it->Valid(); it->Next()) ++seen;
      ASSERT_TRUE(it->status().ok()) << it->status().ToString();
      ASSERT_EQ(seen, kKeysPerPrefix) << Prefix(2 * i);
    }
  }

  // Absent prefixes (odd p, inside the file's key range): nothing comes back,
  // and the filter rejects all but the false positives.
  options.statistics->Reset();
  {
    std::unique_ptr<::rocksdb::Iterator> it(db->NewIterator(prefix_read));
    for (size_t i = 0; i + 1 < kPrefixes; ++i) {
      it->Seek(Prefix(2 * i + 1));
      ASSERT_FALSE(it->Valid()) << Prefix(2 * i + 1);
    }
  }
  auto& stats = *options.statistics;
  const SeekFilterCounts seeks = ReadSeekFilterCounts(stats);
  const uint64_t checked = seeks.checked;
  const uint64_t useful = seeks.filtered;
  ASSERT_EQ(checked, kPrefixes - 1) << "one prefix check per seek";
  const double fpr = static_cast<double>(checked - useful) / checked;
  const double theory = BlockedFpr(10.0, OptimalBlockedProbes(10.0));
  std::printf("  %s: %zu absent prefixes, FPR %.4f %% (theory %.4f %%)\n", param.name, static_cast<size_t>(checked),
              100 * fpr, 100 * theory);
  EXPECT_NEAR(fpr, theory, FprTolerance(theory, checked));

  // Absent keys under present prefixes: found by neither Get nor the filter
  // (when whole keys are in it).
  options.statistics->Reset();
  for (size_t i = 0; i < kPrefixes; ++i) {
    ASSERT_TRUE(db->Get(::rocksdb::ReadOptions(), PrefixedKey(2 * i, 7), &value).IsNotFound());
  }
  const FilterCounts c = ReadFilterCounts(stats);
  if (param.whole_key_filtering) {
    EXPECT_GT(c.useful, kPrefixes * 95 / 100) << "whole-key filter rejects absent keys";
  } else {
    // Only prefixes are in the filter: it cannot reject these.
    EXPECT_EQ(c.useful, 0u);
  }
  EXPECT_EQ(policy->num_malformed_filters(), 0u);
}

INSTANTIATE_TEST_SUITE_P(Rocksdb, DbPrefixFilter,
                         ::testing::Values(PrefixCase{"whole_key_and_prefix", true, false},
                                           PrefixCase{"prefix_only", false, false},
                                           PrefixCase{"partitioned_whole_key_and_prefix", true, true},
                                           PrefixCase{"partitioned_prefix_only", false, true}),
                         [](const ::testing::TestParamInfo<PrefixCase>& param_info) { return param_info.param.name; });

}  // namespace
}  // namespace linebloom::rocksdb_plugin
