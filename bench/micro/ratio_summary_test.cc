// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.

#include "ratio_summary.h"

#include <gtest/gtest.h>

#include <vector>

namespace linebloom::bench {
namespace {

TEST(Median, OddEvenAndEmpty) {
  EXPECT_EQ(Median({3, 1, 2}), 2);
  EXPECT_EQ(Median({4, 1, 3, 2}), 2.5);
  EXPECT_EQ(Median({}), 0);
}

TEST(SummarizeRatios, PairsEachRepetitionBeforeTheMedian) {
  // The filter is 2x slower in every repetition while the machine's speed
  // drifts 10x between them: each ratio is 2, whatever the drift.
  const std::vector<double> ns = {20, 200, 2000};
  const std::vector<double> ref = {10, 100, 1000};
  const RatioSummary s = SummarizeRatios(ns, ref);
  EXPECT_EQ(s.count, 3u);
  EXPECT_DOUBLE_EQ(s.median, 2);
  EXPECT_DOUBLE_EQ(s.min, 2);
  EXPECT_DOUBLE_EQ(s.max, 2);
}

TEST(SummarizeRatios, MedianMinMax) {
  const std::vector<double> ns = {9, 10, 12, 30};
  const std::vector<double> ref = {10, 10, 10, 10};
  const RatioSummary s = SummarizeRatios(ns, ref);
  EXPECT_DOUBLE_EQ(s.median, 1.1);
  EXPECT_DOUBLE_EQ(s.min, 0.9);
  EXPECT_DOUBLE_EQ(s.max, 3.0);
}

TEST(SummarizeRatios, SkipsMissingReferenceAndRejectsMismatch) {
  const std::vector<double> ns = {5, 6};
  const std::vector<double> ref = {0, 3};
  const RatioSummary s = SummarizeRatios(ns, ref);
  EXPECT_EQ(s.count, 1u);
  EXPECT_DOUBLE_EQ(s.median, 2);
  EXPECT_EQ(SummarizeRatios(std::vector<double>{}, std::vector<double>{}).count, 0u);
  EXPECT_THROW(SummarizeRatios(ns, std::vector<double>{1}), std::invalid_argument);
}

}  // namespace
}  // namespace linebloom::bench
