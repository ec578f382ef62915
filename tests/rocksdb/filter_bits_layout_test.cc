// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// Proves at run time that filter_bits.h matches the FilterBitsBuilder /
// FilterBitsReader vtable layout of the RocksDB we link: RocksDB's own
// built-in filters, built and queried only through our declaration, must
// behave like Bloom filters (no false negatives, the textbook false-positive
// rate). A wrong slot order would call the wrong function -- returning
// garbage, crashing, or failing these checks.

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>
#include <rocksdb/filter_policy.h>

#include "linebloom/bloom_math.h"
#include "linebloom/rocksdb/testing/policy_filter_builder.h"
#include "linebloom/rocksdb/filter_bits.h"

namespace linebloom::rocksdb_plugin {
namespace {

// 16-byte keys; `tag` separates the present set from the absent one.
std::vector<std::string> MakeKeys(char tag, size_t first, size_t count) {
  std::vector<std::string> keys;
  keys.reserve(count);
  char buf[32];
  for (size_t i = first; i < first + count; ++i) {
    std::snprintf(buf, sizeof buf, "%c%015zu", tag, i);
    keys.emplace_back(buf, 16);
  }
  return keys;
}

std::vector<std::string_view> Views(const std::vector<std::string>& keys) { return {keys.begin(), keys.end()}; }

std::shared_ptr<const ::rocksdb::FilterPolicy> Bloom(double bits_per_key) {
  return std::shared_ptr<const ::rocksdb::FilterPolicy>(::rocksdb::NewBloomFilterPolicy(bits_per_key));
}

TEST(RocksdbFilterBitsLayout, BuilderSlotsAnswerLikeABuilder) {
  auto policy = Bloom(10);
  PolicyFilterBuilder builder(*policy, /*format_version=*/5);
  EXPECT_EQ(builder.EstimateEntriesAdded(), 0u);
  const auto keys = MakeKeys('k', 0, 1000);
  for (const auto& key : keys) {
    builder.AddKey(key);
    builder.AddKey(key);  // adjacent repeat: RocksDB's builder drops it
  }
  EXPECT_EQ(builder.EstimateEntriesAdded(), keys.size());
  // 10 bits/key: a 12500-byte filter holds about 10000 keys.
  const size_t fit = builder.ApproximateNumEntries(12500);
  EXPECT_GT(fit, 9000u);
  EXPECT_LT(fit, 11000u);
  PolicyFilter filter = builder.Finish();
  // FastLocalBloom: whole 64-byte lines for 10000 bits, plus 5 bytes metadata.
  EXPECT_EQ(filter.size_bytes(), (1000 * 10 + 511) / 512 * 64 + 5);
  EXPECT_EQ(builder.EstimateEntriesAdded(), 0u) << "Finish must reset the builder";
}

// The measured rate on Q absent keys is Binomial(Q, p)/Q; we allow 4.5
// standard deviations of that, plus 3 % of p for the filter's rounding of its
// size to whole cache lines.
void ExpectFprNear(size_t false_positives, size_t queries, double theory) {
  const double measured = static_cast<double>(false_positives) / queries;
  const double sd = std::sqrt(theory * (1 - theory) / queries);
  std::printf("measured FPR %.4f %% over %zu queries, theory %.4f %%\n", 100 * measured, queries, 100 * theory);
  EXPECT_NEAR(measured, theory, 4.5 * sd + 0.03 * theory) << "measured " << measured << " theory " << theory;
}

TEST(RocksdbFilterBitsLayout, BuiltinBloomThroughOurDeclaration) {
  auto policy = Bloom(10);
  const auto present = MakeKeys('k', 0, 100000);
  const auto absent = MakeKeys('a', 0, 1000000);
  PolicyFilter filter = BuildPolicyFilter(*policy, Views(present), 5);

  for (const auto& key : present) {
    ASSERT_TRUE(filter.MayMatch(key)) << "false negative for " << key;
  }
  size_t false_positives = 0;
  for (const auto& key : absent) {
    false_positives += filter.MayMatch(key);
  }
  // RocksDB's format_version 5 Bloom is a 512-bit blocked filter with 6
  // probes at 10 bits/key: the blocked formula applies (~0.96 %).
  ExpectFprNear(false_positives, absent.size(), BlockedFpr(10.0, 6));
}

TEST(RocksdbFilterBitsLayout, BatchedMayMatchAgreesWithSingle) {
  auto policy = Bloom(10);
  const auto present = MakeKeys('k', 0, 20000);
  const auto absent = MakeKeys('a', 0, 20000);
  PolicyFilter filter = BuildPolicyFilter(*policy, Views(present), 5);

  std::vector<std::string_view> queries;
  for (size_t i = 0; i < present.size(); ++i) {
    queries.push_back(present[i]);
    queries.push_back(absent[i]);
  }
  std::unique_ptr<bool[]> batch(new bool[queries.size()]);
  filter.MayMatchBatch(queries, {batch.get(), queries.size()});
  for (size_t i = 0; i < queries.size(); ++i) {
    ASSERT_EQ(batch[i], filter.MayMatch(queries[i])) << i;
    if (i % 2 == 0) {
      ASSERT_TRUE(batch[i]) << "false negative at " << i;
    }
  }
}

TEST(RocksdbFilterBitsLayout, LegacyBloomAndRibbonHaveNoFalseNegatives) {
  const auto present = MakeKeys('k', 0, 20000);
  const auto absent = MakeKeys('a', 0, 100000);
  struct Case {
    const char* name;
    std::shared_ptr<const ::rocksdb::FilterPolicy> policy;
    int format_version;
  };
  const Case cases[] = {
      {"legacy bloom (format_version 4)", Bloom(10), 4},
      {"ribbon",
       std::shared_ptr<const ::rocksdb::FilterPolicy>(::rocksdb::NewRibbonFilterPolicy(10, /*bloom_before_level=*/-1)),
       5},
  };
  for (const auto& c : cases) {
    PolicyFilter filter = BuildPolicyFilter(*c.policy, Views(present), c.format_version);
    for (const auto& key : present) {
      ASSERT_TRUE(filter.MayMatch(key)) << c.name << ": false negative";
    }
    size_t false_positives = 0;
    for (const auto& key : absent) false_positives += filter.MayMatch(key);
    // Both aim at ~1 %; anything near that proves the reader really filters.
    EXPECT_LT(false_positives, absent.size() * 2 / 100) << c.name;
    EXPECT_GT(false_positives, absent.size() / 400) << c.name;
  }
}

TEST(RocksdbFilterBitsLayout, EmptyFilterAnswersNo) {
  auto policy = Bloom(10);
  PolicyFilterBuilder builder(*policy, 5);
  PolicyFilter filter = builder.Finish();
  EXPECT_FALSE(filter.MayMatch("anything"));
}

TEST(RocksdbFilterBitsLayout, FromBytesReadsAStoredFilter) {
  auto policy = Bloom(10);
  const auto present = MakeKeys('k', 0, 5000);
  std::string stored(BuildPolicyFilter(*policy, Views(present), 5).bytes());
  PolicyFilter reread = PolicyFilter::FromBytes(*policy, stored);
  EXPECT_EQ(reread.bytes(), stored);
  for (const auto& key : present) ASSERT_TRUE(reread.MayMatch(key));
}

}  // namespace
}  // namespace linebloom::rocksdb_plugin
