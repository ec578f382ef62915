// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// LinebloomFilterPolicy outside a database: the filters it builds, what its
// readers answer for good and bad bytes, its sizing contract with RocksDB,
// and how it is named and configured from strings.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <gtest/gtest.h>
#include <rocksdb/convenience.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/options.h>
#include <rocksdb/table.h>

#include "capturing_logger.h"
#include "linebloom/bloom_math.h"
#include "linebloom/filter_builder.h"
#include "linebloom/rocksdb/testing/policy_filter_builder.h"
#include "linebloom/rocksdb/filter_bits.h"
#include "linebloom/rocksdb/linebloom_filter_policy.h"
#include "linebloom/rocksdb/registration.h"
#include "test_keys.h"

namespace linebloom::rocksdb_plugin {
namespace {

using testing::CapturingLogger;
using testing::FprTolerance;
using testing::Keys;
using testing::Views;

double Theory(double bits_per_key) { return BlockedFpr(bits_per_key, OptimalBlockedProbes(bits_per_key)); }

size_t CountFalsePositives(const PolicyFilter& filter, const std::vector<std::string>& absent) {
  size_t fp = 0;
  for (const auto& key : absent) fp += filter.MayMatch(key);
  return fp;
}

TEST(RocksdbPolicy, NamesIdentifyLinebloom) {
  auto policy = NewLinebloomFilterPolicy(10);
  EXPECT_STREQ(policy->Name(), "linebloom");
  EXPECT_STREQ(policy->CompatibilityName(), "linebloom");
  EXPECT_TRUE(policy->IsInstanceOf("linebloom"));
}

TEST(RocksdbPolicy, NoFalseNegativesAndTheoreticalFpr) {
  for (double bits : {10.0, 7.5}) {
    auto policy = NewLinebloomFilterPolicy(bits);
    const auto present = Keys(0, 100000, 2);
    const auto absent = Keys(1, 500000, 2);
    PolicyFilter filter = BuildPolicyFilter(*policy, Views(present));
    EXPECT_EQ(filter.size_bytes(), NumBlocksFor(present.size(), bits) * 64 + 16);
    for (const auto& key : present) ASSERT_TRUE(filter.MayMatch(key)) << key;
    const double measured = static_cast<double>(CountFalsePositives(filter, absent)) / absent.size();
    EXPECT_NEAR(measured, Theory(bits), FprTolerance(Theory(bits), absent.size())) << "bits/key " << bits;
  }
}

TEST(RocksdbPolicy, BatchedMayMatchEqualsSingle) {
  auto policy = NewLinebloomFilterPolicy(10);
  const auto present = Keys(0, 5000, 2);
  PolicyFilter filter = BuildPolicyFilter(*policy, Views(present));
  const auto mixed = Keys(0, 10000, 1);
  std::unique_ptr<bool[]> batch(new bool[mixed.size()]);
  filter.MayMatchBatch(Views(mixed), {batch.get(), mixed.size()});
  for (size_t i = 0; i < mixed.size(); ++i) {
    ASSERT_EQ(batch[i], filter.MayMatch(mixed[i])) << i;
  }

  // RocksDB passes at most 32 keys, but the reader takes any count.
  std::unique_ptr<::rocksdb::FilterBitsReader> reader(
      policy->GetFilterBitsReader(::rocksdb::Slice(filter.bytes().data(), filter.bytes().size())));
  std::vector<::rocksdb::Slice> slices(mixed.begin(), mixed.begin() + 100);
  std::vector<::rocksdb::Slice*> pointers;
  for (auto& s : slices) pointers.push_back(&s);
  bool answers[100];
  reader->MayMatch(100, pointers.data(), answers);
  for (size_t i = 0; i < 100; ++i) EXPECT_EQ(answers[i], batch[i]) << i;
}

TEST(RocksdbPolicy, EmptyFilterIsATrailerThatAnswersNo) {
  auto policy = NewLinebloomFilterPolicy(10);
  PolicyFilterBuilder builder(*policy);
  PolicyFilter filter = builder.Finish();
  EXPECT_EQ(filter.size_bytes(), 16u);
  EXPECT_FALSE(filter.MayMatch("anything"));
  const std::vector<std::string_view> queries = {"a", "b", "c"};
  bool answers[3] = {true, true, true};
  filter.MayMatchBatch(queries, answers);
  EXPECT_FALSE(answers[0] || answers[1] || answers[2]);
}

TEST(RocksdbPolicy, EstimateEntriesAddedCountsDistinctKeys) {
  auto policy = NewLinebloomFilterPolicy(10);
  PolicyFilterBuilder builder(*policy);
  for (const auto& key : Keys(0, 100, 1)) {
    builder.AddKey(key);
    builder.AddKey(key);  // RocksDB adds a repeated prefix/key adjacently
  }
  EXPECT_EQ(builder.EstimateEntriesAdded(), 100u);
  builder.Finish();
  EXPECT_EQ(builder.EstimateEntriesAdded(), 0u);
}

// Partitioned filters cut a partition after ApproximateNumEntries(
// metadata_block_size) keys, so it must be the exact inverse of the sizing.
TEST(RocksdbPolicy, ApproximateNumEntriesInvertsTheSizing) {
  for (double bits : {10.0, 7.3, 1.0, 100.0}) {
    auto policy = NewLinebloomFilterPolicy(bits);
    PolicyFilterBuilder builder(*policy);
    EXPECT_EQ(builder.ApproximateNumEntries(0), 0u);
    EXPECT_EQ(builder.ApproximateNumEntries(79), 0u) << "one block needs 80 bytes";
    for (size_t bytes = 80; bytes < 200000; bytes = bytes * 5 / 4 + 3) {
      const size_t n = builder.ApproximateNumEntries(bytes);
      const auto size = [&](size_t keys) { return NumBlocksFor(keys, bits) * 64 + 16; };
      ASSERT_LE(size(n), bytes) << bits << " bits/key, " << bytes << " bytes";
      ASSERT_GT(size(n + 1), bytes) << bits << " bits/key, " << bytes << " bytes";
    }
  }
  // And through a real build: 4096 bytes (the default metadata_block_size).
  auto policy = NewLinebloomFilterPolicy(10);
  PolicyFilterBuilder builder(*policy);
  const size_t n = builder.ApproximateNumEntries(4096);
  for (const auto& key : Keys(0, n, 1)) builder.AddKey(key);
  EXPECT_LE(builder.Finish().size_bytes(), 4096u);
}

// Damaged bytes, one kind at a time.
struct Damage {
  const char* name;
  void (*apply)(std::string&);
};

const Damage kDamages[] = {
    {"empty", [](std::string& f) { f.clear(); }},
    {"truncated", [](std::string& f) { f.resize(f.size() - 1); }},
    {"bad magic", [](std::string& f) { f[f.size() - 8] ^= 0x20; }},
    {"future version", [](std::string& f) { f[f.size() - 9] = 3; }},
    {"zeroed body", [](std::string& f) { std::fill(f.begin(), f.begin() + 640, '\0'); }},
    {"flipped checksum", [](std::string& f) { f[f.size() - 1] ^= 1; }},
    {"extra block", [](std::string& f) { f.insert(0, 64, '\x5a'); }},
    {"misaligned body", [](std::string& f) { f.insert(0, 1, '\x5a'); }},
};

TEST(RocksdbPolicy, DamagedFilterAlwaysMayMatchAndIsReportedOncePerKind) {
  auto policy = NewLinebloomFilterPolicy(10);
  auto logger = std::make_shared<CapturingLogger>();
  policy->SetInfoLog(logger);
  const auto present = Keys(0, 2000, 2);
  const auto absent = Keys(1, 2000, 2);
  const std::string good(BuildPolicyFilter(*policy, Views(present)).bytes());

  uint64_t expected_count = 0;
  for (const Damage& damage : kDamages) {
    std::string bad = good;
    damage.apply(bad);
    for (int repeat = 0; repeat < 3; ++repeat) {
      PolicyFilter filter = PolicyFilter::FromBytes(*policy, bad);
      ++expected_count;
      for (const auto& key : present) ASSERT_TRUE(filter.MayMatch(key)) << damage.name;
      for (const auto& key : absent) ASSERT_TRUE(filter.MayMatch(key)) << damage.name;
      std::unique_ptr<bool[]> answers(new bool[absent.size()]);
      filter.MayMatchBatch(Views(absent), {answers.get(), absent.size()});
      for (size_t i = 0; i < absent.size(); ++i) ASSERT_TRUE(answers[i]) << damage.name;
    }
    EXPECT_EQ(policy->num_malformed_filters(), expected_count) << damage.name;
    EXPECT_NE(policy->last_malformed_reason().find("malformed filter block"), std::string::npos);
  }
  // Eight kinds of damage but five reasons: too short (empty), bad magic
  // (bad magic, truncated: the trailer moved), unsupported version, bad size
  // (misaligned body), checksum mismatch (zeroed body, flipped checksum,
  // extra block). One line per reason, however often it recurs.
  const auto lines = logger->Matching("linebloom: ignoring a malformed filter block");
  EXPECT_EQ(lines.size(), 5u);
  for (const auto& line : lines) std::printf("  logged: %s\n", line.c_str());
}

TEST(RocksdbPolicy, ChecksumVerificationCanBeTurnedOff) {
  LinebloomPolicyOptions options;
  options.verify_checksum = false;
  auto policy = NewLinebloomFilterPolicy(options);
  const auto present = Keys(0, 2000, 2);
  std::string bytes(BuildPolicyFilter(*policy, Views(present)).bytes());
  bytes[bytes.size() - 1] ^= 1;  // only the checksum field is wrong
  PolicyFilter filter = PolicyFilter::FromBytes(*policy, bytes);
  EXPECT_EQ(policy->num_malformed_filters(), 0u) << "checksum must not be checked";
  for (const auto& key : present) ASSERT_TRUE(filter.MayMatch(key));
  EXPECT_LT(CountFalsePositives(filter, Keys(1, 2000, 2)), 100u) << "still a real filter";
}

// detect_filter_construct_corruption: RocksDB hands the finished filter back
// to MaybePostVerify, which re-queries every key.
TEST(RocksdbPolicy, PostVerifyCatchesAFilterMissingKeys) {
  auto policy = NewLinebloomFilterPolicy(10);
  ::rocksdb::BlockBasedTableOptions table_options;
  table_options.detect_filter_construct_corruption = true;
  ::rocksdb::FilterBuildingContext context(table_options);
  std::unique_ptr<::rocksdb::FilterBitsBuilder> builder(policy->GetBuilderWithContext(context));

  const auto build = [&](const std::vector<std::string>& keys, std::unique_ptr<const char[]>* buf) {
    for (const auto& key : keys) builder->AddKey(key);
    ::rocksdb::Status status;
    ::rocksdb::Slice filter = builder->Finish(buf, &status);
    EXPECT_TRUE(status.ok()) << status.ToString();
    return filter;
  };
  std::unique_ptr<const char[]> buf_a, buf_b;
  ::rocksdb::Slice a = build(Keys(0, 3000, 2), &buf_a);
  EXPECT_TRUE(builder->MaybePostVerify(a).ok());

  // A well-formed filter of other keys, same size: some key is missing.
  build(Keys(0, 3000, 2), &buf_b);
  const std::string other_bytes(BuildPolicyFilter(*policy, Views(Keys(1, 3000, 2))).bytes());
  ::rocksdb::Status status = builder->MaybePostVerify(other_bytes);
  EXPECT_TRUE(status.IsCorruption()) << status.ToString();

  // A damaged copy does not even parse.
  ::rocksdb::Slice c = build(Keys(0, 3000, 2), &buf_a);
  std::string damaged = c.ToString();
  damaged[10] ^= 0x7f;
  status = builder->MaybePostVerify(damaged);
  EXPECT_TRUE(status.IsCorruption()) << status.ToString();
}

class RocksdbOptionStrings : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { RegisterLinebloomWithDefaultLibrary(); }

  // ignore_unsupported_options is true by default in RocksDB: an unknown id
  // then "succeeds" with no policy at all. The tests want the error.
  ::rocksdb::Status Create(const std::string& value, std::shared_ptr<const ::rocksdb::FilterPolicy>* out) {
    ::rocksdb::ConfigOptions config;
    config.ignore_unsupported_options = false;
    return ::rocksdb::FilterPolicy::CreateFromString(config, value, out);
  }
  const LinebloomFilterPolicy& AsLinebloom(const std::shared_ptr<const ::rocksdb::FilterPolicy>& policy) {
    auto* lb = policy->CheckedCast<LinebloomFilterPolicy>();
    EXPECT_NE(lb, nullptr) << (policy ? policy->Name() : "null");
    static const LinebloomFilterPolicy kNone;
    return lb ? *lb : kNone;
  }
};

TEST_F(RocksdbOptionStrings, AllFormsCreateTheConfiguredPolicy) {
  std::shared_ptr<const ::rocksdb::FilterPolicy> policy;
  ASSERT_TRUE(Create("linebloom", &policy).ok());
  EXPECT_EQ(AsLinebloom(policy).options().bits_per_key, 10.0);

  ASSERT_TRUE(Create("linebloom:10", &policy).ok());
  EXPECT_EQ(AsLinebloom(policy).options().bits_per_key, 10.0);

  ASSERT_TRUE(Create("linebloom:7.25", &policy).ok());
  EXPECT_EQ(AsLinebloom(policy).options().bits_per_key, 7.25);

  ASSERT_TRUE(Create("id=linebloom;bits_per_key=12.5;num_probes=5;verify_checksum=false", &policy).ok());
  const auto& lb = AsLinebloom(policy);
  EXPECT_EQ(lb.options().bits_per_key, 12.5);
  EXPECT_EQ(lb.options().num_probes, 5);
  EXPECT_FALSE(lb.options().verify_checksum);

  ASSERT_TRUE(Create("{id=linebloom;bits_per_key=9}", &policy).ok());
  EXPECT_EQ(AsLinebloom(policy).options().bits_per_key, 9.0);
}

TEST_F(RocksdbOptionStrings, SerializedFormRoundTrips) {
  std::shared_ptr<const ::rocksdb::FilterPolicy> policy, again;
  ASSERT_TRUE(
      Create("id=linebloom;bits_per_key=6.5;num_probes=3;verify_checksum=false;align_blocks=false", &policy).ok());
  ::rocksdb::ConfigOptions config;
  const std::string serialized = policy->ToString(config);
  std::printf("  serialized: %s\n", serialized.c_str());
  ASSERT_TRUE(Create(serialized, &again).ok()) << serialized;
  EXPECT_EQ(AsLinebloom(again).options().bits_per_key, 6.5);
  EXPECT_EQ(AsLinebloom(again).options().num_probes, 3);
  EXPECT_FALSE(AsLinebloom(again).options().verify_checksum);
  EXPECT_FALSE(AsLinebloom(again).options().align_blocks);
  std::string mismatch;
  EXPECT_TRUE(policy->AreEquivalent(config, again.get(), &mismatch)) << mismatch;
}

TEST_F(RocksdbOptionStrings, BadValuesAreErrors) {
  std::shared_ptr<const ::rocksdb::FilterPolicy> policy;
  for (const char* bad : {"linebloom:", "linebloom:abc", "linebloom:0.5", "linebloom:1000", "linebloom:10:x",
                          "linebloomx", "id=linebloom;bits_per_key=banana", "id=linebloom;no_such_option=1"}) {
    EXPECT_FALSE(Create(bad, &policy).ok()) << bad;
  }
  // With RocksDB's default ConfigOptions an unknown id is silently ignored:
  // the call succeeds and leaves the previous policy in place.
  ::rocksdb::ConfigOptions lenient;
  const std::shared_ptr<const ::rocksdb::FilterPolicy> before = NewLinebloomFilterPolicy(10);
  policy = before;
  ASSERT_TRUE(::rocksdb::FilterPolicy::CreateFromString(lenient, "linebloomx", &policy).ok());
  EXPECT_EQ(policy, before);
}

TEST_F(RocksdbOptionStrings, ValidateOptionsRejectsOutOfRangeValues) {
  const ::rocksdb::DBOptions db;
  const ::rocksdb::ColumnFamilyOptions cf;
  std::shared_ptr<const ::rocksdb::FilterPolicy> policy;
  ASSERT_TRUE(Create("id=linebloom;bits_per_key=10", &policy).ok());
  EXPECT_TRUE(policy->ValidateOptions(db, cf).ok());
  for (const char* bad :
       {"id=linebloom;bits_per_key=0.5", "id=linebloom;bits_per_key=101", "id=linebloom;num_probes=25",
        "id=linebloom;num_probes=-1", "id=linebloom;hash_scheme=2", "id=linebloom;hash_scheme=0"}) {
    ASSERT_TRUE(Create(bad, &policy).ok()) << bad;
    EXPECT_TRUE(policy->ValidateOptions(db, cf).IsInvalidArgument()) << bad;
  }
}

// hash_scheme: 3 by default, 1 on request, each written to the filter's
// trailer (docs/FORMAT.md section 1, byte 5), kept in the serialized form,
// and read by a policy of either setting.
TEST_F(RocksdbOptionStrings, HashSchemeIsWrittenAndEitherIsRead) {
  const auto present = Keys(0, 20000, 2);
  const auto absent = Keys(1, 20000, 2);
  std::shared_ptr<const ::rocksdb::FilterPolicy> scheme3, scheme1, again;
  ASSERT_TRUE(Create("linebloom:10", &scheme3).ok());
  ASSERT_TRUE(Create("id=linebloom;bits_per_key=10;hash_scheme=1", &scheme1).ok());
  EXPECT_EQ(AsLinebloom(scheme3).options().hash_scheme, 3);
  EXPECT_EQ(AsLinebloom(scheme1).options().hash_scheme, 1);
  ::rocksdb::ConfigOptions config;
  ASSERT_TRUE(Create(scheme1->ToString(config), &again).ok());
  EXPECT_EQ(AsLinebloom(again).options().hash_scheme, 1);

  for (const auto& [writer, scheme] : {std::pair{scheme3, 3}, std::pair{scheme1, 1}}) {
    const PolicyFilter built = BuildPolicyFilter(AsLinebloom(writer), Views(present));
    const std::string_view bytes = built.bytes();
    EXPECT_EQ(static_cast<unsigned char>(bytes[bytes.size() - 11]), scheme);
    for (const auto& reader_policy : {scheme3, scheme1}) {
      const PolicyFilter filter = PolicyFilter::FromBytes(AsLinebloom(reader_policy), bytes);
      for (const auto& key : present) ASSERT_TRUE(filter.MayMatch(key)) << "scheme " << scheme;
      const double measured = static_cast<double>(CountFalsePositives(filter, absent)) / absent.size();
      EXPECT_NEAR(measured, Theory(10), FprTolerance(Theory(10), absent.size())) << "scheme " << scheme;
    }
  }
}

}  // namespace
}  // namespace linebloom::rocksdb_plugin
