// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// The math against hand-computed values, and union / intersection and their
// estimates against filters built from the actual sets.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>

#include "linebloom/bloom_math.h"
#include "linebloom/filter_builder.h"
#include "linebloom/filter_reader.h"
#include "linebloom/filter_set_ops.h"

namespace linebloom {
namespace {

TEST(BloomMath, StandardFilterByHand) {
  // (1 - e^-0.7)^7 = 0.503415^7 = 0.0081937
  EXPECT_NEAR(StandardFpr(10, 7), 0.0081937, 1e-6);
  // k = 1, c = 1: 1 - e^-1
  EXPECT_NEAR(StandardFpr(1, 1), 1 - std::exp(-1.0), 1e-12);
  EXPECT_EQ(OptimalStandardProbes(10), 7);   // 6.93
  EXPECT_EQ(OptimalStandardProbes(20), 14);  // 13.86
  EXPECT_EQ(OptimalStandardProbes(0.5), 1);
  // -ln(0.01) / ln^2 2 = 4.60517 / 0.480453 = 9.58506
  EXPECT_NEAR(StandardBitsPerKeyForFpr(0.01), 9.58506, 1e-4);
}

TEST(BloomMath, ClassicBlockedFormulaMatchesThePublishedTable) {
  // 512-bit blocks, the k that minimises the classic formula: the widely
  // quoted figures for a cache-line-blocked Bloom filter, to three
  // significant digits (recomputed independently in Python from the sum in
  // bloom_math.h; they agree to within 0.25 %).
  struct Row {
    double bits;
    int k;
    double fpr;
  };
  for (const Row& row : {Row{6, 4, 0.0575}, Row{8, 5, 0.0231}, Row{10, 7, 0.00957}, Row{12, 8, 0.00407},
                         Row{16, 10, 0.000825}, Row{20, 11, 0.000191}}) {
    EXPECT_NEAR(BlockedFprClassic(row.bits, row.k), row.fpr, row.fpr * 0.003) << row.bits;
  }
}

TEST(BloomMath, ExactBlockedFormulaByHand) {
  // Reference values from an independent evaluation of the same sums with
  // Python's exact integers for C(t,s) and S(k,t) (tools: math.comb and the
  // Stirling recurrence), 512-bit blocks.
  struct Row {
    double bits;
    int k;
    double fpr;
  };
  for (const Row& row : {Row{6, 4, 0.05774238}, Row{8, 5, 0.02326338}, Row{10, 7, 0.009686049}, Row{10, 6, 0.009664748},
                         Row{12, 8, 0.004134917}, Row{16, 10, 0.0008461198}, Row{20, 11, 0.0001978318}}) {
    EXPECT_NEAR(BlockedFpr(row.bits, row.k), row.fpr, row.fpr * 1e-6) << row.bits << " " << row.k;
  }
  // Tiny case by hand: B = 2, one key of one probe per block on average
  // (c = 2): i ~ Pois(1); a block with i keys has each of its 2 bits set
  // with probability 1 - (1/2)^i, so FPR = E[1 - 2^-i] = 1 - e^-(1/2).
  EXPECT_NEAR(BlockedFpr(2, 1, 2), 1 - std::exp(-0.5), 1e-12);
}

TEST(BloomMath, ProbesMinimiseTheExactBlockedRate) {
  struct Row {
    double bits;
    int k;
  };
  for (const Row& row : {Row{6, 4}, Row{8, 5}, Row{10, 6}, Row{12, 8}, Row{16, 9}, Row{20, 11}}) {
    EXPECT_EQ(OptimalBlockedProbes(row.bits), row.k) << row.bits;
    EXPECT_LT(BlockedFpr(row.bits, row.k), BlockedFpr(row.bits, row.k - 1));
    EXPECT_LT(BlockedFpr(row.bits, row.k), BlockedFpr(row.bits, row.k + 1));
  }
}

// The k minimising BlockedFpr(c, k) as the library has always searched
// for it, the reference of the filters written so far: downhill from
// 0.6 c + 0.5, first down and then up, moving only to a strictly lower
// rate (so a tie of two k at a step's edge keeps the one it started at).
int DownhillBlockedProbes(double c) {
  int best = std::clamp(static_cast<int>(0.6 * c + 0.5), kMinProbes, kMaxProbes);
  double best_fpr = BlockedFpr(c, best);
  for (int step : {-1, +1}) {
    for (int k = best + step; k >= kMinProbes && k <= kMaxProbes; k += step) {
      const double f = BlockedFpr(c, k);
      if (f >= best_fpr) break;
      best = k;
      best_fpr = f;
    }
  }
  return best;
}

// OptimalBlockedProbes answers from the steps of k* over c below 128: at
// random c, and on both sides of every step (where the answer first grows
// past each k, found by bisection over the doubles, and the double below
// it), it must answer as the search does. At a step's edge the two rates
// tie to rounding and the search's answer may flicker for a few doubles,
// so a k can be passed more than once; the walk must still reach
// kMaxProbes.
TEST(BloomMath, ProbesAreTheSearchsAtEveryBitsPerKey) {
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> log_c(0, std::log(160.0));
  for (int i = 0; i < 3000; ++i) {
    const double c = std::exp(log_c(rng));
    ASSERT_EQ(OptimalBlockedProbes(c), DownhillBlockedProbes(c)) << c;
  }
  int edges = 0;
  bool reached_max = false;
  for (double c = 1.0; c < 128.0 && edges < 100; ++edges) {
    const int k = OptimalBlockedProbes(c);
    if (k == kMaxProbes) {
      reached_max = true;
      break;
    }
    double below = c, at = 128.0;
    while (std::nextafter(below, 256.0) < at) {
      const double mid = below + (at - below) / 2;
      (OptimalBlockedProbes(mid) > k ? at : below) = mid;
    }
    ASSERT_EQ(OptimalBlockedProbes(at), DownhillBlockedProbes(at)) << at;
    ASSERT_EQ(OptimalBlockedProbes(below), DownhillBlockedProbes(below)) << below;
    c = at;
  }
  EXPECT_TRUE(reached_max);
  EXPECT_GE(edges, kMaxProbes - kMinProbes);
}

TEST(BloomMath, ClassicIsALowerBoundOnTheExactRate) {
  for (double c : {4.0, 10.0, 20.0}) {
    for (int k = 1; k <= 12; ++k) EXPECT_LE(BlockedFprClassic(c, k), BlockedFpr(c, k) * (1 + 1e-12));
  }
  EXPECT_NEAR(BlockedFprClassic(10, 1), BlockedFpr(10, 1), 1e-12);  // one probe: no variance term
}

TEST(BloomMath, BlockedIsWorseThanStandardAndConvergesForHugeBlocks) {
  EXPECT_GT(BlockedFpr(10, 7), StandardFpr(10, 7));
  // With 2^20-bit blocks the Poisson spread is negligible.
  EXPECT_NEAR(BlockedFprClassic(10, 7, 1 << 20), StandardFpr(10, 7), StandardFpr(10, 7) * 0.01);
  // One key per block, one probe: a block holding i keys has at most i bits
  // set, so with c = 512 the rate is E[1 - (511/512)^i], i ~ Pois(1).
  EXPECT_NEAR(BlockedFpr(512, 1), 1 - std::exp(-1.0 / 512), 1e-9);
}

TEST(BloomMath, BitsPerKeyForATargetRate) {
  const double c = BlockedBitsPerKeyForFpr(0.009664748);  // exact rate at 10 bits/key, k = 6
  EXPECT_NEAR(c, 10.0, 0.01);
  EXPECT_LE(BlockedFpr(c, OptimalBlockedProbes(c)), 0.009664748);
  EXPECT_EQ(BlockedBitsPerKeyForFpr(0.9), kMinBitsPerKey);
  EXPECT_EQ(BlockedBitsPerKeyForFpr(1e-30), kMaxBitsPerKey);
  EXPECT_GT(BlockedBitsPerKeyForFpr(0.01), StandardBitsPerKeyForFpr(0.01));
}

TEST(BloomMath, SwamidassBaldiByHand) {
  // m = 1000, k = 1, X = 632: n = -1000 ln(0.368) = 999.67
  EXPECT_NEAR(EstimateKeyCount(632, 1000, 1), 999.67, 0.01);
  // k = 2 halves it.
  EXPECT_NEAR(EstimateKeyCount(632, 1000, 2), 499.83, 0.01);
  EXPECT_EQ(EstimateKeyCount(0, 1000, 3), 0.0);
  EXPECT_TRUE(std::isinf(EstimateKeyCount(1000, 1000, 3)));
  // n(A) = n(B) = 999.67, n(A u B) = -1000 ln(1 - 0.8) = 1609.44
  EXPECT_NEAR(EstimateIntersectionSize(632, 632, 800, 1000, 1), 2 * 999.67 - 1609.44, 0.05);
}

// A = [0, 60000), B = [30000, 90000): |A u B| = 90000, |A n B| = 30000.
class SetOps : public ::testing::Test {
 protected:
  void SetUp() override {
    FilterBuilder a({.bits_per_key = 10, .seed = 5}), b({.bits_per_key = 10, .seed = 5});
    for (int i = 0; i < 60000; ++i) a.AddKey(std::to_string(i));
    for (int i = 30000; i < 90000; ++i) b.AddKey(std::to_string(i));
    a_bytes_ = a.Finish();
    b_bytes_ = b.Finish();
    ASSERT_TRUE(FilterReader::Parse(a_bytes_, &a_).ok());
    ASSERT_TRUE(FilterReader::Parse(b_bytes_, &b_).ok());
  }
  std::string a_bytes_, b_bytes_;
  FilterReader a_, b_;
};

TEST_F(SetOps, UnionContainsBothSetsAndIsTheOrOfTheBlocks) {
  const auto bytes = UnionFilters(a_, b_);
  ASSERT_TRUE(bytes.has_value());
  FilterReader u;
  ASSERT_TRUE(FilterReader::Parse(*bytes, &u).ok());
  for (int i = 0; i < 90000; ++i) ASSERT_TRUE(u.MayContain(std::to_string(i))) << i;
  for (size_t i = 0; i < u.blocks().size(); ++i) {
    ASSERT_EQ(u.blocks()[i], static_cast<char>(a_.blocks()[i] | b_.blocks()[i]));
  }
  // The OR of filters built with the same size is the filter of the union.
  std::vector<uint64_t> hashes;
  for (int i = 0; i < 90000; ++i) hashes.push_back(KeyHash(std::to_string(i), 5));
  // Same number of blocks as A and B: add the union's hashes to a builder
  // sized for 60000 keys by lowering bits/key to keep 60000 * 10 bits.
  FilterBuilder same_size({.bits_per_key = 60000.0 * 10 / 90000, .num_probes = a_.num_probes(), .seed = 5});
  for (uint64_t h : hashes) same_size.AddHash(h);
  const std::string rebuilt = same_size.Finish();
  FilterReader r;
  ASSERT_TRUE(FilterReader::Parse(rebuilt, &r).ok());
  ASSERT_EQ(r.num_blocks(), u.num_blocks());
  EXPECT_EQ(r.blocks(), u.blocks());
}

TEST_F(SetOps, IntersectionContainsTheCommonKeys) {
  const auto bytes = IntersectFilters(a_, b_);
  ASSERT_TRUE(bytes.has_value());
  FilterReader x;
  ASSERT_TRUE(FilterReader::Parse(*bytes, &x).ok());
  for (int i = 30000; i < 60000; ++i) ASSERT_TRUE(x.MayContain(std::to_string(i))) << i;
  // Keys of only one side are mostly rejected.
  int only_one_side = 0;
  for (int i = 0; i < 30000; ++i) only_one_side += x.MayContain(std::to_string(i));
  EXPECT_LT(only_one_side, 30000 / 5);
}

TEST_F(SetOps, EstimatesAreCloseToTheTrueSizes) {
  EXPECT_NEAR(EstimateKeyCount(a_), 60000, 60000 * 0.03);
  EXPECT_NEAR(*EstimateUnionSize(a_, b_), 90000, 90000 * 0.03);
  EXPECT_NEAR(*EstimateIntersectionSize(a_, b_), 30000, 30000 * 0.10);
}

TEST_F(SetOps, DifferentParametersAreRefused) {
  FilterBuilder other_seed({.bits_per_key = 10, .seed = 6});
  for (int i = 0; i < 60000; ++i) other_seed.AddKey(std::to_string(i));
  const std::string bytes = other_seed.Finish();
  FilterReader c;
  ASSERT_TRUE(FilterReader::Parse(bytes, &c).ok());
  ASSERT_EQ(c.num_blocks(), a_.num_blocks());
  EXPECT_FALSE(UnionFilters(a_, c).has_value());
  EXPECT_FALSE(IntersectFilters(a_, c).has_value());
  EXPECT_FALSE(EstimateUnionSize(a_, c).has_value());
  EXPECT_FALSE(EstimateIntersectionSize(a_, c).has_value());
}

}  // namespace
}  // namespace linebloom
