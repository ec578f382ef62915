// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// How many negative queries of a compact filter read a second line,
// measured: a query reads its first-layer line, and a second one only if
// its order there is at or above the line's bump threshold (FORMAT.md 1b).
// The public reader does not say which layer answered, so the count comes
// from the independent reference reader (tests/support/reference_compact.h),
// which the golden tests hold to the same answers as the library's.
//
// For the settings the sizing functions choose at 1 % and 0.1 % (and one
// between them), the measured share over eight builds must be within 4
// standard deviations (of the builds' mean) of the model's
// second_line_share (EstimateCompact) and below 5 %: at least 95 % of
// negative queries read one line.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "linebloom/compact_filter.h"
#include "linebloom/compact_math.h"
#include "linebloom/filter_options.h"
#include "support/golden_keys.h"
#include "support/reference_compact.h"

namespace linebloom {
namespace {

namespace ref = reference::compact;

struct Measured {
  double share = 0;
  double model = 0;
  double sd = 0;
};

// The share over `filters` builds of `num_keys` keys each, `queries`
// absent queries per build. Its sd is the spread of the builds' shares
// over the root of their number: a build's lines have loads of their own,
// which moves its share by more than the queries' sampling does.
Measured SecondLineShare(double bits_per_key, size_t num_keys, size_t filters, size_t queries) {
  std::vector<double> shares;
  for (size_t f = 0; f < filters; ++f) {
    const uint64_t seed = static_cast<uint64_t>(bits_per_key * 1000) + 100 * f;
    CompactFilterBuilder builder(FilterOptions{.bits_per_key = bits_per_key});
    for (uint64_t h : golden::RandomHashes(seed, num_keys)) builder.AddHash(h);
    const std::string bytes = builder.Finish();
    EXPECT_TRUE(builder.fallback_reason().empty()) << builder.fallback_reason();
    ref::Filter filter;
    EXPECT_EQ(ref::Parse(bytes, true, &filter), 0);
    // Absent hashes: another stream; a stored hash among them is one in 2^44.
    size_t second = 0;
    for (uint64_t h : golden::RandomHashes(7 + seed, queries)) second += ref::AnsweringLayer(filter, h) > 0;
    shares.push_back(static_cast<double>(second) / static_cast<double>(queries));
  }
  Measured m;
  for (double share : shares) m.share += share / static_cast<double>(filters);
  double variance = 0;
  for (double share : shares) variance += (share - m.share) * (share - m.share) / static_cast<double>(filters - 1);
  m.sd = std::sqrt(variance / static_cast<double>(filters));
  m.model = EstimateCompact(CompactShapeFor(bits_per_key, num_keys), num_keys).second_line_share;
  return m;
}

TEST(CompactSecondLine, AtLeast95PercentOfNegativeQueriesReadOneLineAsModeled) {
  constexpr size_t kKeys = 200'000;
  constexpr size_t kFilters = 8;
  constexpr size_t kQueries = 250'000;
  for (double bits : {CompactBitsPerKeyFor(0.01, kKeys), 9.5, CompactBitsPerKeyFor(0.001, kKeys)}) {
    const Measured m = SecondLineShare(bits, kKeys, kFilters, kQueries);
    std::printf("%.2f bits/key: second line read by %.3f %% +- %.3f of negative queries (model %.3f %%)\n", bits,
                100 * m.share, 100 * m.sd, 100 * m.model);
    EXPECT_LT(m.share, 0.05) << bits;
    EXPECT_NEAR(m.share, m.model, 4 * m.sd) << bits;
  }
}

}  // namespace
}  // namespace linebloom
