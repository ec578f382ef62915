// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// The compact filter kind in the policy: compact_from_level and
// compact_bottommost from option strings and ids, the kind each new file
// gets, the readers the policy hands out for each kind, and malformed
// compact filter blocks.

#include <climits>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>
#include <rocksdb/convenience.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/options.h>
#include <rocksdb/table.h>

#include "linebloom/bloom_math.h"
#include "linebloom/compact_filter.h"
#include "linebloom/compact_math.h"
#include "linebloom/rocksdb/linebloom_filter_policy.h"
#include "linebloom/rocksdb/registration.h"
#include "linebloom/rocksdb/testing/policy_filter_builder.h"
#include "test_keys.h"

namespace linebloom::rocksdb_plugin {
namespace {

using ::rocksdb::TableFileCreationReason;
using testing::Keys;

std::shared_ptr<const ::rocksdb::FilterPolicy> FromString(const std::string& text) {
  RegisterLinebloomWithDefaultLibrary();
  ::rocksdb::ConfigOptions config;
  config.ignore_unsupported_options = false;
  std::shared_ptr<const ::rocksdb::FilterPolicy> policy;
  const ::rocksdb::Status s = ::rocksdb::FilterPolicy::CreateFromString(config, text, &policy);
  EXPECT_TRUE(s.ok()) << text << ": " << s.ToString();
  return policy;
}

const LinebloomFilterPolicy& Linebloom(const std::shared_ptr<const ::rocksdb::FilterPolicy>& policy) {
  const auto* lb = policy->CheckedCast<LinebloomFilterPolicy>();
  if (lb == nullptr) throw std::runtime_error("not a linebloom policy");
  return *lb;
}

bool Valid(const ::rocksdb::FilterPolicy& policy) {
  return policy.ValidateOptions(::rocksdb::DBOptions(), ::rocksdb::ColumnFamilyOptions()).ok();
}

TEST(RocksdbCompactKind, OptionsFromStringsAndIds) {
  auto policy = FromString("id=linebloom;bits_per_key=10;compact_from_level=6;compact_bottommost=true");
  EXPECT_EQ(Linebloom(policy).options().compact_from_level, 6);
  EXPECT_TRUE(Linebloom(policy).options().compact_bottommost);
  EXPECT_TRUE(Valid(*policy));

  ::rocksdb::ConfigOptions config;
  const std::string serialized = policy->ToString(config);
  EXPECT_NE(serialized.find("compact_from_level=6"), std::string::npos) << serialized;
  auto again = FromString(serialized);
  EXPECT_EQ(Linebloom(again).options().compact_from_level, 6);
  EXPECT_TRUE(Linebloom(again).options().compact_bottommost);

  // Defaults: never compact.
  policy = FromString("linebloom:10");
  EXPECT_EQ(Linebloom(policy).options().compact_from_level, INT_MAX);
  EXPECT_FALSE(Linebloom(policy).options().compact_bottommost);

  // "linebloom:<bits>:<level>", as "ribbonfilter:<bits>:<bloom_before_level>".
  policy = FromString("linebloom:9.5:-1");
  EXPECT_EQ(Linebloom(policy).options().bits_per_key, 9.5);
  EXPECT_EQ(Linebloom(policy).options().compact_from_level, -1);
  EXPECT_EQ(NewLinebloomFilterPolicy(8, 3)->options().compact_from_level, 3);
  EXPECT_EQ(NewLinebloomFilterPolicy(8)->options().compact_from_level, INT_MAX);

  ::rocksdb::ConfigOptions strict;
  std::shared_ptr<const ::rocksdb::FilterPolicy> bad;
  for (const char* id : {"linebloom:10:", "linebloom:10:x", "linebloom:10:-2", "linebloom::3", "linebloom:10:3:4"}) {
    EXPECT_FALSE(::rocksdb::FilterPolicy::CreateFromString(strict, id, &bad).ok()) << id;
  }
  policy = FromString("id=linebloom;compact_from_level=-2");
  EXPECT_FALSE(Valid(*policy));
  EXPECT_FALSE(::rocksdb::FilterPolicy::CreateFromString(strict, "id=linebloom;compact_bottommost=maybe", &bad).ok());
}

struct Context {
  ::rocksdb::CompactionStyle style = ::rocksdb::kCompactionStyleLevel;
  TableFileCreationReason reason = TableFileCreationReason::kCompaction;
  int level = -1;
  bool bottommost = false;
};

FilterKind KindFor(const LinebloomFilterPolicy& policy, const Context& c) {
  ::rocksdb::BlockBasedTableOptions table;
  ::rocksdb::FilterBuildingContext context(table);
  context.compaction_style = c.style;
  context.reason = c.reason;
  context.level_at_creation = c.level;
  context.num_levels = 7;
  context.is_bottommost = c.bottommost;
  return policy.NewFileFilterKind(context);
}

// Levels as RocksDB's Ribbon policy counts them for bloom_before_level.
TEST(RocksdbCompactKind, KindByLevelAsRibbonCountsLevels) {
  using enum FilterKind;
  constexpr auto kFlush = TableFileCreationReason::kFlush;
  constexpr auto kMisc = TableFileCreationReason::kMisc;
  auto from2 = NewLinebloomFilterPolicy(10, 2);
  EXPECT_EQ(KindFor(*from2, {.reason = kFlush, .level = 0}), kBloom);
  EXPECT_EQ(KindFor(*from2, {.level = 1}), kBloom);
  EXPECT_EQ(KindFor(*from2, {.level = 2}), kCompact);
  EXPECT_EQ(KindFor(*from2, {.level = 6}), kCompact);
  EXPECT_EQ(KindFor(*from2, {.style = ::rocksdb::kCompactionStyleUniversal, .level = 1}), kBloom);
  EXPECT_EQ(KindFor(*from2, {.style = ::rocksdb::kCompactionStyleUniversal, .level = 3}), kCompact);
  // Unknown level (SstFileWriter) and FIFO: the bottom.
  EXPECT_EQ(KindFor(*from2, {.reason = kMisc, .level = -1}), kCompact);
  EXPECT_EQ(KindFor(*from2, {.style = ::rocksdb::kCompactionStyleFIFO, .reason = kFlush, .level = 0}), kCompact);

  // 0: everything but flushes; -1: everything.
  auto from0 = NewLinebloomFilterPolicy(10, 0);
  EXPECT_EQ(KindFor(*from0, {.reason = kFlush, .level = 0}), kBloom);
  EXPECT_EQ(KindFor(*from0, {.level = 0}), kCompact);
  auto everywhere = NewLinebloomFilterPolicy(10, -1);
  EXPECT_EQ(KindFor(*everywhere, {.reason = kFlush, .level = 0}), kCompact);

  // Never (the default), whatever the file.
  auto never = NewLinebloomFilterPolicy(10);
  EXPECT_EQ(KindFor(*never, {.reason = kMisc, .level = -1}), kBloom);
  EXPECT_EQ(KindFor(*never, {.style = ::rocksdb::kCompactionStyleFIFO}), kBloom);
  EXPECT_EQ(KindFor(*never, {.level = 6, .bottommost = true}), kBloom);

  // compact_bottommost: a file going into the bottommost run, at any level.
  LinebloomPolicyOptions options;
  options.compact_bottommost = true;
  auto bottom = NewLinebloomFilterPolicy(options);
  EXPECT_EQ(KindFor(*bottom, {.level = 3, .bottommost = true}), kCompact);
  EXPECT_EQ(KindFor(*bottom, {.level = 3}), kBloom);
}

// Without level_aware a compact file gets the bits whose modeled rate
// matches the Bloom filter's at bits_per_key: fewer bits, no worse rate.
// With the model of the lines the policy writes: up to four extra planes,
// or one with compact_extra_planes=1 (which needs more bits for a rate).
TEST(RocksdbCompactKind, CompactBitsMatchTheBloomRate) {
  for (double bits : {7.0, 10.0, 16.0}) {
    for (int extra : {kCompactExtraPlanes, kCompactExtraPlanesVersion3}) {
      LinebloomPolicyOptions options;
      options.bits_per_key = bits;
      options.compact_from_level = 0;
      options.compact_extra_planes = extra;
      auto policy = NewLinebloomFilterPolicy(options);
      const double compact = policy->CompactBitsPerKey();
      const double bloom_rate = BlockedFpr(bits, OptimalBlockedProbes(bits));
      EXPECT_LT(compact, bits);
      EXPECT_LE(CompactFpr(compact, 1 << 16, extra), bloom_rate) << bits;
      // The least such bits (to 0.01), unless the compact minimum already
      // does better.
      if (compact > kMinCompactBitsPerKey) {
        EXPECT_GT(CompactFpr(compact - 0.02, 1 << 16, extra), bloom_rate) << bits;
      }
      ::rocksdb::BlockBasedTableOptions table;
      ::rocksdb::FilterBuildingContext context(table);
      context.level_at_creation = 3;
      context.reason = TableFileCreationReason::kCompaction;
      EXPECT_EQ(policy->PlanNewFileFilter(context)->bits_per_key, compact);
      context.reason = TableFileCreationReason::kFlush;
      context.level_at_creation = 0;
      EXPECT_EQ(policy->PlanNewFileFilter(context)->bits_per_key, bits);
    }
  }
  // At 10 bits: 7.58 compact bits with up to four extra planes, 7.68 with one.
  LinebloomPolicyOptions one;
  one.bits_per_key = 10;
  one.compact_extra_planes = kCompactExtraPlanesVersion3;
  EXPECT_LT(NewLinebloomFilterPolicy(10, 0)->CompactBitsPerKey(), NewLinebloomFilterPolicy(one)->CompactBitsPerKey());
}

// A filter built by the policy for a compact file: its bytes are the
// compact kind, and the policy's reader finds every key (single and batch)
// and rejects most absent ones. A policy that never builds compact filters
// reads it the same.
TEST(RocksdbCompactKind, PolicyBuildsAndReadsCompactFilters) {
  auto policy = NewLinebloomFilterPolicy(10, -1);
  ::rocksdb::BlockBasedTableOptions table;
  ::rocksdb::FilterBuildingContext context(table);
  context.reason = TableFileCreationReason::kFlush;
  context.level_at_creation = 0;
  std::unique_ptr<::rocksdb::FilterBitsBuilder> builder(policy->GetBuilderWithContext(context));
  ASSERT_NE(builder, nullptr);
  const auto present = Keys(0, 20000, 2);
  const auto absent = Keys(1, 20000, 2);
  for (const auto& k : present) builder->AddKey(k);
  std::unique_ptr<const char[]> buf;
  const ::rocksdb::Slice bytes = builder->Finish(&buf);
  ASSERT_EQ(DetectFilterKind({bytes.data(), bytes.size()}), FilterKind::kCompact);
  EXPECT_LT(bytes.size(), 20000 * 10 / 8);  // fewer bits than the Bloom filter's

  for (auto reading : {policy, NewLinebloomFilterPolicy(10)}) {
    const PolicyFilter filter = PolicyFilter::FromBytes(*reading, {bytes.data(), bytes.size()});
    std::vector<std::string_view> queries(present.begin(), present.end());
    queries.insert(queries.end(), absent.begin(), absent.end());
    std::unique_ptr<bool[]> answers(new bool[queries.size()]);
    filter.MayMatchBatch(queries, std::span<bool>(answers.get(), queries.size()));
    size_t false_positives = 0;
    for (size_t i = 0; i < queries.size(); ++i) {
      EXPECT_EQ(answers[i], filter.MayMatch(queries[i])) << queries[i];
      if (i < present.size()) {
        ASSERT_TRUE(answers[i]) << queries[i];
      } else {
        false_positives += answers[i];
      }
    }
    EXPECT_LT(false_positives, absent.size() / 50);  // Bloom-equivalent of 10 bits/key: ~1 %
    EXPECT_EQ(reading->num_malformed_filters(), 0u);
  }
}

// compact_extra_planes and compact_mixed: the defaults (4, true) write
// format version 7 (lines of up to E(r) extra planes, the first layer in
// sections of r - 1 and r planes); compact_mixed=false version 5;
// compact_extra_planes=1 version 3, which older releases read. From option
// strings, kept in the serialized options, and all read by any policy.
TEST(RocksdbCompactKind, ExtraPlanesChooseTheFormatVersion) {
  const auto keys = Keys(0, 20000, 2);
  struct Setting {
    const char* text;
    int extra;
    bool mixed;
    int version;
  };
  for (const Setting& s : {Setting{"", kCompactExtraPlanes, true, 7}, Setting{";compact_extra_planes=1", 1, true, 3},
                           Setting{";compact_mixed=false", kCompactExtraPlanes, false, 5},
                           Setting{";compact_extra_planes=4;compact_mixed=true", kCompactExtraPlanes, true, 7}}) {
    const std::string text = std::string("id=linebloom;bits_per_key=14;compact_from_level=-1") + s.text;
    auto policy = FromString(text);
    EXPECT_EQ(Linebloom(policy).options().compact_extra_planes, s.extra) << text;
    EXPECT_EQ(Linebloom(policy).options().compact_mixed, s.mixed) << text;
    ::rocksdb::ConfigOptions config;
    const auto reloaded = FromString(policy->ToString(config));
    EXPECT_EQ(Linebloom(reloaded).options().compact_extra_planes, s.extra);
    EXPECT_EQ(Linebloom(reloaded).options().compact_mixed, s.mixed);

    // compact_from_level=-1: every file, the default context's too.
    const std::vector<std::string_view> views(keys.begin(), keys.end());
    const PolicyFilter built = BuildPolicyFilter(*policy, views);
    const std::string_view bytes = built.bytes();
    ASSERT_EQ(DetectFilterKind(bytes), FilterKind::kCompact);
    // 14 Bloom bits per key are about 10 compact bits: r = 8 or 9, E = 4,
    // between two efficient settings.
    EXPECT_EQ(bytes[bytes.size() - 9], s.version) << text;
    const PolicyFilter filter = PolicyFilter::FromBytes(*NewLinebloomFilterPolicy(10), bytes);
    for (const auto& k : keys) ASSERT_TRUE(filter.MayMatch(k)) << k;
  }
}

// Damaged compact bytes: "may match" for every key, the reason kept.
TEST(RocksdbCompactKind, MalformedCompactFiltersMayMatch) {
  auto policy = NewLinebloomFilterPolicy(10, -1);
  CompactFilterBuilder builder;
  for (const auto& k : Keys(0, 1000, 1)) builder.AddKey(k);
  const std::string good = builder.Finish();
  ASSERT_EQ(DetectFilterKind(good), FilterKind::kCompact);

  std::string flipped = good;
  flipped[10] ^= 0x01;                      // checksum mismatch
  std::string truncated = good.substr(64);  // lines no longer match the table
  for (const std::string& bad : {flipped, truncated}) {
    ASSERT_EQ(DetectFilterKind(bad), FilterKind::kCompact);
    const uint64_t before = policy->num_malformed_filters();
    const PolicyFilter filter = PolicyFilter::FromBytes(*policy, bad);
    EXPECT_EQ(policy->num_malformed_filters(), before + 1);
    EXPECT_NE(policy->last_malformed_reason().find("malformed filter block"), std::string::npos);
    EXPECT_NE(policy->last_malformed_reason().find("compact kind"), std::string::npos)
        << policy->last_malformed_reason();
    for (const auto& k : Keys(5000, 100, 1)) EXPECT_TRUE(filter.MayMatch(k));
  }
  // A trailer of a version after the compact kind's: no known kind.
  std::string future = good;
  future[future.size() - 9] = 9;
  ASSERT_EQ(DetectFilterKind(future), FilterKind::kUnknown);
  const PolicyFilter unknown = PolicyFilter::FromBytes(*policy, future);
  EXPECT_TRUE(unknown.MayMatch("anything"));
  EXPECT_NE(policy->last_malformed_reason().find("version"), std::string::npos) << policy->last_malformed_reason();
  EXPECT_EQ(policy->last_malformed_reason().find("compact kind"), std::string::npos);

  // A filter of no keys from the policy's builder answers "no".
  ::rocksdb::BlockBasedTableOptions table;
  ::rocksdb::FilterBuildingContext context(table);
  std::unique_ptr<::rocksdb::FilterBitsBuilder> bits_builder(policy->GetBuilderWithContext(context));
  std::unique_ptr<const char[]> buf;
  const ::rocksdb::Slice empty = bits_builder->Finish(&buf);
  const PolicyFilter none = PolicyFilter::FromBytes(*policy, {empty.data(), empty.size()});
  EXPECT_FALSE(none.MayMatch("anything"));
  EXPECT_EQ(policy->num_malformed_filters(), 3u);
}

}  // namespace
}  // namespace linebloom::rocksdb_plugin
