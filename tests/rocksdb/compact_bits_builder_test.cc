// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// CompactBitsBuilder (the compact kind's FilterBitsBuilder): its sizing
// bound against real builds, repeats and prefixes, post-verification, and
// the Bloom fallback.

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include "compact_bits_builder.h"
#include "linebloom/compact_filter.h"
#include "linebloom/filter_reader.h"

namespace linebloom::rocksdb_plugin {
namespace {

std::string_view View(const ::rocksdb::Slice& s) { return {s.data(), s.size()}; }

std::string KeyOf(uint64_t i) { return "key" + std::to_string(i); }

FilterOptions Bits(double bits_per_key) {
  FilterOptions options;
  options.bits_per_key = bits_per_key;
  return options;
}

// Every real build fits its CalculateSpace, and ApproximateNumEntries is
// its inverse: the most entries whose bound fits.
TEST(CompactBitsBuilder, SpaceBoundsEveryBuild) {
  std::mt19937_64 rng(7);
  for (double bits : {5.5, 7.75, 10.0, 11.5, 16.0, 23.0, 30.0}) {
    CompactBitsBuilder builder(Bits(bits), /*post_verify=*/false);
    for (size_t n : {1, 2, 7, 40, 100, 333, 1000, 2900, 10000, 50000, 120000}) {
      for (size_t i = 0; i < n; ++i) builder.AddKey(KeyOf(rng()));
      ASSERT_EQ(builder.EstimateEntriesAdded(), n);
      const size_t bound = builder.CalculateSpace(n);
      std::unique_ptr<const char[]> buf;
      const ::rocksdb::Slice filter = builder.Finish(&buf);
      EXPECT_LE(filter.size(), bound) << bits << " bits/key, " << n << " keys";
      // Not wastefully loose either: within 2 % and 8 lines of the build.
      EXPECT_LE(bound, filter.size() * 1.02 + 8 * 64) << bits << " bits/key, " << n << " keys";
    }
    for (size_t bytes : {0, 100, 400, 1024, 4096, 65536, 1 << 20}) {
      const size_t n = builder.ApproximateNumEntries(bytes);
      if (n > 0) {
        EXPECT_LE(builder.CalculateSpace(n), bytes);
      }
      EXPECT_GT(builder.CalculateSpace(n + 1), bytes);
    }
  }
  CompactBitsBuilder builder(Bits(10), false);
  EXPECT_EQ(builder.ApproximateNumEntries(4096), CompactEntriesWithin(4096, 10));
  EXPECT_GT(builder.ApproximateNumEntries(4096), 2500u);  // a 4 KiB partition at 10 bits/key
}

TEST(CompactBitsBuilder, BitsAreClampedToTheCompactRange) {
  EXPECT_EQ(CompactBitsBuilder(Bits(2), false).bits_per_key(), kMinCompactBitsPerKey);
  EXPECT_EQ(CompactBitsBuilder(Bits(60), false).bits_per_key(), kMaxCompactBitsPerKey);
  CompactBitsBuilder builder(Bits(9), false);
  EXPECT_EQ(builder.bits_per_key(), 9.0);
  builder.SetBitsPerKey(1);
  EXPECT_EQ(builder.bits_per_key(), kMinCompactBitsPerKey);
}

// Adjacent repeats, and prefixes seen before or equal to their key, are one
// entry each; the filter holds every key and prefix.
TEST(CompactBitsBuilder, RepeatsAndPrefixesCountOnce) {
  CompactBitsBuilder builder(Bits(10), /*post_verify=*/true);
  std::vector<std::string> entries;
  for (int p = 0; p < 50; ++p) {
    const std::string prefix = "pfx" + std::to_string(1000 + p);
    entries.push_back(prefix);
    for (int k = 0; k < 20; ++k) {
      const std::string key = prefix + "-" + std::to_string(k);
      entries.push_back(key);
      builder.AddKeyAndAlt(key, prefix);
      builder.AddKeyAndAlt(key, prefix);  // a second version of the key
    }
    builder.AddKeyAndAlt(prefix + "x", prefix + "x");  // its own prefix
    entries.push_back(prefix + "x");
  }
  EXPECT_EQ(builder.EstimateEntriesAdded(), entries.size());
  std::unique_ptr<const char[]> buf;
  ::rocksdb::Status status;
  const ::rocksdb::Slice filter = builder.Finish(&buf, &status);
  ASSERT_TRUE(status.ok()) << status.ToString();
  EXPECT_EQ(builder.EstimateEntriesAdded(), 0u);
  EXPECT_TRUE(builder.MaybePostVerify(filter).ok());
  ASSERT_EQ(DetectFilterKind(View(filter)), FilterKind::kCompact);
  CompactFilterReader reader;
  ASSERT_TRUE(CompactFilterReader::Parse(View(filter), &reader).ok());
  for (const auto& e : entries) EXPECT_TRUE(reader.MayContain(e)) << e;
  int false_positives = 0;
  for (int i = 0; i < 10000; ++i) false_positives += reader.MayContain("absent" + std::to_string(i));
  EXPECT_LT(false_positives, 300);  // the model's rate at 10 bits/key is ~0.2 %
}

TEST(CompactBitsBuilder, PostVerifyCatchesADamagedFilter) {
  CompactBitsBuilder builder(Bits(10), /*post_verify=*/true);
  for (int i = 0; i < 2000; ++i) builder.AddKey(KeyOf(i));
  std::unique_ptr<const char[]> buf;
  const ::rocksdb::Slice filter = builder.Finish(&buf);
  std::string damaged(filter.data(), filter.size());
  damaged[damaged.size() / 2] ^= 0x10;
  const ::rocksdb::Status s = builder.MaybePostVerify(::rocksdb::Slice(damaged));
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
}

// A build that runs out of layers writes a Bloom filter of the same keys,
// says why, and still post-verifies.
TEST(CompactBitsBuilder, FallbackWritesABloomFilterAndReportsIt) {
  std::vector<std::string> reasons;
  CompactBitsBuilder builder(Bits(10), /*post_verify=*/true,
                             [&reasons](const std::string& reason) { reasons.push_back(reason); });
  builder.TEST_SetMaxLayers(1);  // 5000 keys always bump some out of the first layer
  for (int i = 0; i < 5000; ++i) builder.AddKey(KeyOf(i));
  std::unique_ptr<const char[]> buf;
  const ::rocksdb::Slice filter = builder.Finish(&buf);
  ASSERT_EQ(reasons.size(), 1u);
  EXPECT_NE(reasons[0].find("Bloom"), std::string::npos) << reasons[0];
  ASSERT_EQ(DetectFilterKind(View(filter)), FilterKind::kBloom);
  EXPECT_TRUE(builder.MaybePostVerify(filter).ok());
  FilterReader reader;
  ASSERT_TRUE(FilterReader::Parse(View(filter), &reader).ok());
  for (int i = 0; i < 5000; ++i) EXPECT_TRUE(reader.MayContain(KeyOf(i)));
}

TEST(CompactBitsBuilder, EstimatedFpRateFollowsTheModel) {
  CompactBitsBuilder builder(Bits(10), false);
  EXPECT_EQ(builder.EstimatedFpRate(0, 1000), 0.0);
  EXPECT_EQ(builder.EstimatedFpRate(100, 16), 1.0);
  const double at_10 = builder.EstimatedFpRate(100000, 125000 + 16);
  EXPECT_NEAR(at_10, CompactFpr(10, 100000), 1e-12);
  EXPECT_LT(builder.EstimatedFpRate(100000, 2 * 125000), at_10);
}

}  // namespace
}  // namespace linebloom::rocksdb_plugin
