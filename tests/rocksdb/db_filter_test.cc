// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// linebloom inside a real RocksDB, in every filter mode: full filters,
// partitioned filters, filters in the block cache, optimize_filters_for_memory,
// filter-construction memory charged to the block cache.
// Present keys must all be found; absent keys must be answered by the filter
// at the theoretical rate, measured from RocksDB's own statistics; MultiGet
// must agree with Get; and all of it must survive a reopen and further
// compactions.

#include <atomic>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <rocksdb/db.h>

#include "db_fixture.h"
#include "linebloom/bloom_math.h"
#include "linebloom/rocksdb/filter_bits.h"
#include "linebloom/rocksdb/linebloom_filter_policy.h"

namespace linebloom::rocksdb_plugin {
namespace {

using namespace testing;  // NOLINT: the fixture helpers

constexpr size_t kPresent = 20000;  // present keys: Key(8j)
constexpr size_t kStride = 8;

double Theory10() { return BlockedFpr(10.0, OptimalBlockedProbes(10.0)); }

// Absent keys between the present ones: Key(8j + {1,3,5,7}).
std::vector<std::string> AbsentKeys(size_t first_j, size_t count_j) {
  std::vector<std::string> keys;
  keys.reserve(count_j * 4);
  for (size_t j = first_j; j < first_j + count_j; ++j) {
    for (size_t r : {1, 3, 5, 7}) keys.push_back(Key(kStride * j + r));
  }
  return keys;
}

// The batched MultiGet API (the std::vector overload looks keys up one at a
// time and never reaches the filter's batched MayMatch).
std::vector<::rocksdb::Status> BatchedMultiGet(::rocksdb::DB& db, const std::vector<::rocksdb::Slice>& keys,
                                               std::vector<std::string>* values) {
  std::vector<::rocksdb::PinnableSlice> pinned(keys.size());
  std::vector<::rocksdb::Status> statuses(keys.size());
  db.MultiGet(::rocksdb::ReadOptions(), db.DefaultColumnFamily(), keys.size(), keys.data(), pinned.data(),
              statuses.data());
  values->clear();
  for (auto& p : pinned) values->push_back(p.ToString());
  return statuses;
}

void ExpectAllFound(::rocksdb::DB& db, const std::vector<std::string>& keys) {
  std::string value;
  size_t missing = 0;
  for (const auto& key : keys) {
    const ::rocksdb::Status s = db.Get(::rocksdb::ReadOptions(), key, &value);
    if (!s.ok() || value != ValueFor(key)) ++missing;
  }
  EXPECT_EQ(missing, 0u) << "present keys not returned";
}

// Looks up absent keys with Get; each lookup must consult exactly one filter
// (the DB is compacted into non-overlapping files) and the fraction answered
// "may match" must be the theoretical false-positive rate.
void ExpectFilteredAtTheoreticalRate(::rocksdb::DB& db, ::rocksdb::Statistics& stats,
                                     const std::vector<std::string>& absent, const char* what) {
  stats.Reset();
  std::string value;
  size_t found = 0;
  for (const auto& key : absent) found += db.Get(::rocksdb::ReadOptions(), key, &value).ok();
  EXPECT_EQ(found, 0u);
  const FilterCounts c = ReadFilterCounts(stats);
  EXPECT_EQ(c.useful + c.positive, absent.size()) << what << ": one filter per lookup";
  EXPECT_EQ(c.true_positive, 0u);
  const double fpr = static_cast<double>(c.positive) / absent.size();
  std::printf("  %s: %zu absent Gets, FPR %.4f %% (theory %.4f %%)\n", what, absent.size(), 100 * fpr,
              100 * Theory10());
  EXPECT_NEAR(fpr, Theory10(), FprTolerance(Theory10(), absent.size())) << what;
}

// MultiGet over a mix of present and absent keys answers exactly like Get,
// and its absent keys are filtered (the batched MayMatch path).
void ExpectMultiGetEqualsGet(::rocksdb::DB& db, ::rocksdb::Statistics& stats) {
  std::vector<std::string> keys;
  for (size_t i = 0; i < 4000; ++i) keys.push_back(Key(i * 3 + 1000));  // both kinds
  stats.Reset();
  size_t absent = 0;
  constexpr size_t kBatch = 100;  // RocksDB splits it into batches of 32
  for (size_t start = 0; start < keys.size(); start += kBatch) {
    std::vector<::rocksdb::Slice> slices(keys.begin() + start, keys.begin() + start + kBatch);
    std::vector<std::string> values;
    std::vector<::rocksdb::Status> statuses = BatchedMultiGet(db, slices, &values);
    for (size_t i = 0; i < kBatch; ++i) {
      const std::string& key = keys[start + i];
      std::string value;
      const ::rocksdb::Status single = db.Get(::rocksdb::ReadOptions(), key, &value);
      ASSERT_EQ(statuses[i].code(), single.code()) << key;
      if (single.ok()) {
        ASSERT_EQ(values[i], value) << key;
      } else {
        ++absent;
      }
    }
  }
  // Get and MultiGet each filtered the absent keys: at least the
  // non-false-positive ones, twice.
  const FilterCounts c = ReadFilterCounts(stats);
  EXPECT_GT(absent, 2000u);
  EXPECT_GE(c.useful, static_cast<uint64_t>(2 * absent * 0.97)) << "MultiGet used the filter";
}

class DbFilterModes : public ::testing::TestWithParam<FilterMode> {};

TEST_P(DbFilterModes, FindsEveryKeyAndFiltersAbsentOnes) {
  const FilterMode mode = GetParam();
  TempDir dir;
  auto policy = NewLinebloomFilterPolicy(10);
  ::rocksdb::Options options = MakeOptions(policy, mode);
  auto db = OpenDb(options, dir.path());
  ASSERT_TRUE(db);

  const auto present = Keys(0, kPresent, kStride);
  PutAll(*db, present);
  FlushAndCompact(*db);
  for (const auto& name : FilterPolicyNames(*db)) EXPECT_EQ(name, "linebloom");

  ExpectAllFound(*db, present);
  ExpectFilteredAtTheoreticalRate(*db, *options.statistics, AbsentKeys(0, kPresent - 1), "after compaction");
  ExpectMultiGetEqualsGet(*db, *options.statistics);

  // Reopen: the filters are read back from the SSTs.
  db.reset();
  db = OpenDb(options, dir.path());
  ASSERT_TRUE(db);
  ExpectAllFound(*db, present);
  ExpectFilteredAtTheoreticalRate(*db, *options.statistics, AbsentKeys(0, kPresent / 2), "after reopen");

  // More data and more compactions: old and new keys, rewritten filters.
  const auto more = Keys(kPresent * kStride, kPresent / 2, kStride);
  PutAll(*db, more);
  FlushAndCompact(*db);
  FlushAndCompact(*db);
  ExpectAllFound(*db, present);
  ExpectAllFound(*db, more);
  ExpectFilteredAtTheoreticalRate(*db, *options.statistics, AbsentKeys(kPresent / 2, kPresent - 1),
                                  "after more compactions");
  EXPECT_EQ(policy->num_malformed_filters(), 0u);
}

// A linebloom policy whose readers count how RocksDB calls them.
class CountingPolicy : public LinebloomFilterPolicy {
 public:
  struct Counts {
    std::atomic<uint64_t> single{0}, batches{0}, batched_keys{0};
  };
  ::rocksdb::FilterBitsReader* GetFilterBitsReader(const ::rocksdb::Slice& contents) const override {
    return new Reader(LinebloomFilterPolicy::GetFilterBitsReader(contents), counts_.get());
  }
  const Counts& counts() const { return *counts_; }

 private:
  class Reader : public ::rocksdb::FilterBitsReader {
   public:
    Reader(::rocksdb::FilterBitsReader* inner, Counts* counts) : inner_(inner), counts_(counts) {}
    bool MayMatch(const ::rocksdb::Slice& key) override {
      ++counts_->single;
      return inner_->MayMatch(key);
    }
    void MayMatch(int n, ::rocksdb::Slice** keys, bool* may_match) override {
      ++counts_->batches;
      counts_->batched_keys += static_cast<uint64_t>(n);
      inner_->MayMatch(n, keys, may_match);
    }

   private:
    std::unique_ptr<::rocksdb::FilterBitsReader> inner_;
    Counts* counts_;
  };
  std::shared_ptr<Counts> counts_ = std::make_shared<Counts>();
};

// MultiGet reaches the reader's batched MayMatch (not a loop of single
// calls), in batches of at most 32 keys.
TEST(RocksdbMultiGet, UsesTheBatchedReader) {
  TempDir dir;
  auto policy = std::make_shared<CountingPolicy>();
  auto db = OpenDb(MakeOptions(policy, FilterMode()), dir.path());
  ASSERT_TRUE(db);
  PutAll(*db, Keys(0, 5000, kStride));
  FlushAndCompact(*db);
  const uint64_t single_before = policy->counts().single;
  const auto absent = AbsentKeys(0, 1000);  // 4000 keys
  std::vector<::rocksdb::Slice> slices(absent.begin(), absent.end());
  std::vector<std::string> values;
  const auto statuses = BatchedMultiGet(*db, slices, &values);
  for (const auto& s : statuses) ASSERT_TRUE(s.IsNotFound()) << s.ToString();
  const auto& c = policy->counts();
  EXPECT_EQ(c.batched_keys, absent.size());
  EXPECT_GE(c.batches * 32, absent.size()) << "batches of at most 32";
  EXPECT_EQ(c.single, single_before) << "MultiGet made single-key calls";
}

FilterMode Mode(const char* name, void (*set)(FilterMode&)) {
  FilterMode m;
  m.name = name;
  set(m);
  return m;
}

INSTANTIATE_TEST_SUITE_P(
    Rocksdb, DbFilterModes,
    ::testing::Values(Mode("full", [](FilterMode&) {}),
                      Mode("partitioned", [](FilterMode& m) { m.partitioned = true; }),
                      Mode("cached", [](FilterMode& m) { m.cache_index_and_filter_blocks = true; }),
                      Mode("partitioned_cached",
                           [](FilterMode& m) { m.partitioned = m.cache_index_and_filter_blocks = true; }),
                      Mode("optimize_for_memory", [](FilterMode& m) { m.optimize_filters_for_memory = true; }),
                      Mode("construction_charged", [](FilterMode& m) { m.charged_cache_bytes = size_t{8} << 20; }),
                      Mode("partitioned_construction_charged",
                           [](FilterMode& m) {
                             m.partitioned = true;
                             m.charged_cache_bytes = size_t{8} << 20;
                           })),
    [](const ::testing::TestParamInfo<FilterMode>& param_info) { return param_info.param.name; });

}  // namespace
}  // namespace linebloom::rocksdb_plugin
