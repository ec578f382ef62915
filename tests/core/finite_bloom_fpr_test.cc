// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// FiniteBloomFpr against independent computations: every probe outcome of
// a tiny filter enumerated, and the split filter's binomial mixture summed
// term by term.

#include "linebloom/finite_bloom_fpr.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <vector>

namespace linebloom {
namespace {

// FPR_std(m, n, k) by enumerating all m^(k n) equally likely probe
// sequences: the mean over them of (bits set / m)^k.
double EnumeratedStandard(int m, int n, int k) {
  const int probes = n * k;
  uint64_t outcomes = 1;
  for (int t = 0; t < probes; ++t) outcomes *= static_cast<uint64_t>(m);
  double sum = 0;
  for (uint64_t o = 0; o < outcomes; ++o) {
    uint64_t set = 0;
    for (uint64_t rest = o, t = 0; t < static_cast<uint64_t>(probes); ++t, rest /= static_cast<uint64_t>(m)) {
      set |= uint64_t{1} << (rest % static_cast<uint64_t>(m));
    }
    sum += std::pow(static_cast<double>(std::popcount(set)) / m, k);
  }
  return sum / static_cast<double>(outcomes);
}

TEST(FiniteBloomFpr, StandardMatchesEveryProbeSequenceEnumerated) {
  FiniteBloomFpr model;
  for (int m : {1, 2, 3, 5, 8}) {
    for (int k : {1, 2, 3}) {
      // At most 5^8 sequences each.
      for (int n = 0; n <= 4 && std::pow(m, n * k) <= std::pow(5, 8); ++n) {
        SCOPED_TRACE(testing::Message() << "m=" << m << " n=" << n << " k=" << k);
        // The tolerance is the enumeration's rounding over its 5^8 terms.
        EXPECT_NEAR(model.Standard(m, n, k), EnumeratedStandard(m, n, k), 1e-10);
      }
    }
  }
}

TEST(FiniteBloomFpr, EdgeCases) {
  FiniteBloomFpr model;
  EXPECT_EQ(model.Standard(64, 0, 3), 0.0);  // no key: nothing matches
  EXPECT_EQ(model.Standard(0, 5, 3), 1.0);   // no bits: everything may match
  EXPECT_EQ(model.Split(0, {{4, 64}}, 3), 0.0);
  EXPECT_EQ(model.Split(10, {}, 3), 1.0);
  EXPECT_EQ(model.SplitBySize(10, {}, 3), 1.0);
}

// Jensen: the textbook (1 - (1 - 1/m)^(k n))^k, the k-th power of the mean
// share of bits set, is a lower bound, and close for a large filter.
TEST(FiniteBloomFpr, StandardIsAboveTheTextbookFormulaAndNearItForLargeFilters) {
  FiniteBloomFpr model;
  for (uint64_t m : {64, 512, 4096}) {
    const uint64_t n = m / 10;
    const int k = 7;
    const double textbook = std::pow(1 - std::pow(1 - 1.0 / static_cast<double>(m), k * static_cast<double>(n)), k);
    const double exact = model.Standard(m, n, k);
    EXPECT_GT(exact, textbook) << m;
    if (m == 4096) {
      EXPECT_NEAR(exact / textbook, 1.0, 0.02);
    }
  }
}

// Split against its definition with the binomial weights summed over every
// count (exp(lgamma) is fine in a single-threaded test).
TEST(FiniteBloomFpr, SplitIsTheBinomialMixtureOfItsParts) {
  FiniteBloomFpr model, reference;
  const uint64_t keys = 200;
  const std::vector<FiniteBloomFpr::PartGroup> groups = {{3, 512}, {2, 256}};
  const int k = 4;
  auto mixture = [&](double p, uint64_t bits) {
    double sum = 0;
    const double n = static_cast<double>(keys);
    for (uint64_t i = 0; i <= keys; ++i) {
      const double x = static_cast<double>(i);
      const double log_pmf =
          std::lgamma(n + 1) - std::lgamma(x + 1) - std::lgamma(n - x + 1) + x * std::log(p) + (n - x) * std::log1p(-p);
      sum += std::exp(log_pmf) * reference.Standard(bits, i, k);
    }
    return sum;
  };
  const double uniform = (3 * mixture(0.2, 512) + 2 * mixture(0.2, 256)) / 5;
  EXPECT_NEAR(model.Split(keys, groups, k), uniform, 1e-12);
  const double by_size =
      3 * (512.0 / 2048) * mixture(512.0 / 2048, 512) + 2 * (256.0 / 2048) * mixture(256.0 / 2048, 256);
  EXPECT_NEAR(model.SplitBySize(keys, groups, k), by_size, 1e-12);
  // One part is the standard filter.
  EXPECT_DOUBLE_EQ(model.Split(keys, {{1, 1024}}, k), model.Standard(1024, keys, k));
}

// The chains are kept between calls: a chain extended to more keys, asking
// for fewer keys after more, or another filter in between, answers as a
// fresh model does.
TEST(FiniteBloomFpr, AnswersDoNotDependOnTheOrderOfQuestions) {
  FiniteBloomFpr warm;
  warm.Standard(300, 20, 5);
  const double big = warm.Standard(300, 90, 5);  // the kept chain extended
  const double other = warm.Standard(200, 10, 3);
  const double small = warm.Standard(300, 20, 5);
  EXPECT_EQ(small, FiniteBloomFpr().Standard(300, 20, 5));
  EXPECT_EQ(other, FiniteBloomFpr().Standard(200, 10, 3));
  EXPECT_EQ(big, FiniteBloomFpr().Standard(300, 90, 5));
}

}  // namespace
}  // namespace linebloom
