// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// The sizing rules of filter_format.h: blocks and bytes for n keys, their
// inverse MaxKeysFor, and the choice of k after rounding to whole blocks,
// which the builder follows.

#include "linebloom/filter_format.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <thread>
#include <vector>

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

// k is the search's argmin over the probes: not worse than either neighbour
// (BlockedFpr is unimodal in k, so that is the minimum).
void ExpectOptimal(double bits, int k) {
  const double fpr = BlockedFpr(bits, k);
  if (k > kMinProbes) {
    EXPECT_LE(fpr, BlockedFpr(bits, k - 1)) << bits << " " << k;
  }
  if (k < kMaxProbes) {
    EXPECT_LE(fpr, BlockedFpr(bits, k + 1)) << bits << " " << k;
  }
}

// OptimalBlockedProbes remembers its answers process-wide (bloom_math.cc):
// over more distinct bits per key than it has slots, asked in two orders and
// from two threads at once, every answer is the optimum and the same every
// time, and ProbesFor over a sweep of bits per key and key counts keeps its
// rule (the rounded bits per key, the standard optimum in one block).
TEST(FilterFormat, RememberedProbesAreTheSearchedOnes) {
  std::vector<double> bits;
  for (double c = 1.0; c < 60.0; c += 0.0291) bits.push_back(c);
  bits.push_back(100.0);
  bits.push_back(199.5);
  bits.push_back(0.5);  // outside the remembered range
  std::vector<int> first(bits.size());
  for (size_t i = 0; i < bits.size(); ++i) first[i] = OptimalBlockedProbes(bits[i]);
  for (size_t i = 0; i < bits.size(); i += 7) ExpectOptimal(bits[i], first[i]);
  auto ask_backwards = [&](std::vector<int>* out) {
    for (size_t i = bits.size(); i-- > 0;) (*out)[i] = OptimalBlockedProbes(bits[i]);
  };
  std::vector<int> second(bits.size()), third(bits.size());
  std::thread other(ask_backwards, &third);
  ask_backwards(&second);
  other.join();
  EXPECT_EQ(second, first);
  EXPECT_EQ(third, first);

  for (double bpk : {2.0, 6.5, 10.0, 16.0, 23.7}) {
    for (size_t n = 1; n < 20000; n += n / 8 + 1) {
      const size_t blocks = NumBlocksFor(n, bpk);
      const double actual = static_cast<double>(blocks) * kFilterBlockBits / static_cast<double>(n);
      const int k = ProbesFor({.bits_per_key = bpk}, n);
      if (blocks == 1) {
        EXPECT_EQ(k, std::clamp(OptimalStandardProbes(actual), kMinProbes, kMaxProbes)) << bpk << " " << n;
      } else {
        ExpectOptimal(actual, k);
        EXPECT_EQ(k, ProbesFor({.bits_per_key = bpk}, n)) << bpk << " " << n;
      }
    }
  }
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
