// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// The allocator's pairwise refinement ends where no re-split of the budget
// between two runs lowers their weighted rates (checked here by trying
// every split on the grid, without the allocator's shortcuts), and the
// rates it reports are the models' own at the bits it chose, however often
// the same bits are asked.

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "linebloom/bloom_math.h"
#include "linebloom/compact_math.h"
#include "linebloom/level_allocator.h"

namespace linebloom {
namespace {

constexpr size_t kModelKeys = size_t{1} << 16;  // the keys the compact grid is priced at

double Rate(FilterKind kind, double bits) {
  if (bits <= 0) return 1.0;
  return kind == FilterKind::kCompact ? CompactFpr(bits, kModelKeys) : BlockedFpr(bits, OptimalBlockedProbes(bits));
}

// A kind's grid: 1/8 bit apart from its smallest bits per key.
std::vector<double> GridBits(FilterKind kind) {
  const bool compact = kind == FilterKind::kCompact;
  const double first = compact ? kMinCompactBitsPerKey : 1.0;
  const double last = compact ? kMaxCompactBitsPerKey : kMaxLevelBitsPerKey;
  std::vector<double> bits;
  for (int i = 0; first + i / 8.0 <= last; ++i) bits.push_back(first + i / 8.0);
  return bits;
}

// Whether some split of runs i and j's bits (i at any grid point or none, j
// at the most it can then afford) is cheaper than `a`'s by more than `slack`.
bool SomeSplitIsCheaper(const std::vector<uint64_t>& n, const std::vector<double>& w,
                        const std::vector<FilterKind>& kinds, double budget, const LevelAllocation& a, size_t i,
                        size_t j) {
  double others = 0;
  for (size_t r = 0; r < n.size(); ++r) {
    if (r != i && r != j) others += a.bits_per_key[r] * static_cast<double>(n[r]);
  }
  const double current = w[i] * a.expected_fpr[i] + w[j] * a.expected_fpr[j];
  std::vector<double> bits_i = GridBits(kinds[i]), bits_j = GridBits(kinds[j]);
  bits_i.insert(bits_i.begin(), 0.0);
  for (double bi : bits_i) {
    const double left = budget - others - bi * static_cast<double>(n[i]);
    if (left < 0) break;
    double bj = 0;
    for (double b : bits_j) {
      if (b * static_cast<double>(n[j]) <= left) bj = b;
    }
    if (w[i] * Rate(kinds[i], bi) + w[j] * Rate(kinds[j], bj) < current * (1 - 1e-9)) return true;
  }
  return false;
}

void ExpectPairwiseOptimal(const std::vector<uint64_t>& n, const std::vector<double>& w,
                           const std::vector<FilterKind>& kinds, double average) {
  const LevelAllocation a = AllocateBitsPerRun(n, w, kinds, average);
  const LevelAllocation uniform = UniformAllocation(n, w, kinds, average);
  if (a.expected_weighted_fpr_sum == uniform.expected_weighted_fpr_sum) return;  // the uniform won
  double total = 0;
  for (uint64_t x : n) total += static_cast<double>(x);
  for (size_t i = 0; i < n.size(); ++i) {
    for (size_t j = 0; j < n.size(); ++j) {
      if (i == j) continue;
      EXPECT_FALSE(SomeSplitIsCheaper(n, w, kinds, average * total, a, i, j)) << "runs " << i << ", " << j;
    }
  }
}

TEST(AllocatorRefinement, NoPairOfBloomRunsCanBeResplitCheaper) {
  std::mt19937_64 rng(5);
  for (int trial = 0; trial < 12; ++trial) {
    const size_t runs = 3 + rng() % 4;
    std::vector<uint64_t> n(runs);
    std::vector<double> w(runs);
    double scale = 100;
    for (size_t j = 0; j < runs; ++j) {
      n[j] = static_cast<uint64_t>(scale * (1 + static_cast<double>(rng() % 100) / 10));
      w[j] = 0.05 + static_cast<double>(rng() % 96) / 100;
      scale *= 3 + static_cast<double>(rng() % 8);
    }
    ExpectPairwiseOptimal(n, w, std::vector<FilterKind>(runs, FilterKind::kBloom),
                          4 + static_cast<double>(rng() % 120) / 10);
  }
}

TEST(AllocatorRefinement, NoPairCanBeResplitCheaperWithACompactLastRun) {
  const std::vector<FilterKind> kinds = {FilterKind::kBloom, FilterKind::kBloom, FilterKind::kBloom,
                                         FilterKind::kCompact};
  ExpectPairwiseOptimal({2000, 9000, 120000, 1200000}, {1, 0.8, 0.6, 0.9}, kinds, 9.5);
  ExpectPairwiseOptimal({500, 5000, 50000, 500000}, {0.3, 1, 1, 0.4}, kinds, 7);
}

TEST(AllocatorRefinement, ReportedRatesAreTheModelsAtTheChosenBits) {
  const std::vector<FilterKind> kinds = {FilterKind::kBloom, FilterKind::kCompact};
  const std::vector<uint64_t> n = {1000, 10000};
  // More distinct averages than any memo of recent answers holds, twice.
  for (int round = 0; round < 2; ++round) {
    for (double average : {6.0, 7.3, 8.125, 9.01, 9.5, 10.0, 10.7, 11.2, 12.9, 14.33}) {
      for (const LevelAllocation& a :
           {AllocateBitsPerRun(n, {}, kinds, average), UniformAllocation(n, {}, kinds, average)}) {
        for (size_t j = 0; j < n.size(); ++j) {
          EXPECT_EQ(a.expected_fpr[j], Rate(kinds[j], a.bits_per_key[j])) << "average " << average << " run " << j;
        }
      }
    }
  }
}

}  // namespace
}  // namespace linebloom
