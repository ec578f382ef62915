// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// The sizing rules of filter_format.h: blocks and bytes for n keys, their
// inverse MaxKeysFor, and the choice of k after rounding to whole blocks,
// which the builder follows.

#include "linebloom/filter_format.h"

#include <gtest/gtest.h>

#include <string>

#include "linebloom/bloom_math.h"
#include "linebloom/filter_builder.h"
#include "linebloom/filter_reader.h"

namespace linebloom {
namespace {

TEST(FilterFormat, BytesAreWholeBlocksPlusTheTrailer) {
  EXPECT_EQ(kFilterBlockBits, 512);
  EXPECT_EQ(FilterBytesFor(0, 10), kFilterTrailerBytes);
  EXPECT_EQ(FilterBytesFor(1, 10), 64u + 16);
  EXPECT_EQ(FilterBytesFor(100, 10), 2u * 64 + 16);  // ceil(1000 / 512) = 2
}

TEST(FilterFormat, MaxKeysForIsTheInverseOfTheSize) {
  EXPECT_EQ(MaxKeysFor(0, 10), 0u);
  EXPECT_EQ(MaxKeysFor(64 + 15, 10), 0u);   // a block without room for the trailer
  EXPECT_EQ(MaxKeysFor(64 + 16, 10), 51u);  // floor(512 / 10)
  for (double bits : {1.0, 2.5, 9.9, 10.0, 16.0, 33.3, 100.0}) {
    for (size_t bytes = 64 + 16; bytes < 64 * 300; bytes += 37) {
      const size_t n = MaxKeysFor(bytes, bits);
      EXPECT_LE(FilterBytesFor(n, bits), bytes) << bits << " " << bytes;
      EXPECT_GT(FilterBytesFor(n + 1, bits), bytes) << bits << " " << bytes;
    }
  }
}

TEST(FilterFormat, FixedProbesAreKeptWithinRange) {
  EXPECT_EQ(ProbesFor({.bits_per_key = 10, .num_probes = 3}, 32), 3);
  EXPECT_EQ(ProbesFor({.bits_per_key = 10, .num_probes = 99}, 32), kMaxProbes);
}

TEST(FilterFormat, ProbesAreChosenForTheBitsAfterRounding) {
  // No keys: the optimum for the bits asked for.
  EXPECT_EQ(ProbesFor({.bits_per_key = 10}, 0), OptimalBlockedProbes(10));
  // 32 keys at 10 bits/key fill one block: a standard filter of 16 bits per
  // key, best k = round(16 ln 2) = 11.
  EXPECT_EQ(ProbesFor({.bits_per_key = 10}, 32), 11);
  // 100 keys: two blocks, 10.24 bits per key.
  EXPECT_EQ(ProbesFor({.bits_per_key = 10}, 100), OptimalBlockedProbes(1024.0 / 100));
  // Many keys: rounding adds next to nothing, the optimum for 10 remains.
  EXPECT_EQ(ProbesFor({.bits_per_key = 10}, 1000000), OptimalBlockedProbes(10));
}

TEST(FilterFormat, TheBuilderUsesTheRule) {
  FilterBuilder builder({.bits_per_key = 10});
  EXPECT_EQ(builder.num_probes(), ProbesFor({.bits_per_key = 10}, 0));
  // The same builder, reused for filters of different sizes.
  for (int keys : {32, 100, 3, 1000, 32}) {
    for (int i = 0; i < keys; ++i) builder.AddKey(std::to_string(i));
    EXPECT_EQ(builder.num_probes(), ProbesFor({.bits_per_key = 10}, keys)) << keys;
    const std::string bytes = builder.Finish();
    FilterReader reader;
    ASSERT_TRUE(FilterReader::Parse(bytes, &reader).ok());
    EXPECT_EQ(reader.num_probes(), ProbesFor({.bits_per_key = 10}, keys)) << keys;
    EXPECT_EQ(bytes.size(), FilterBytesFor(keys, 10)) << keys;
  }
}

}  // namespace
}  // namespace linebloom
