// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// The compact builder's vector paths (compact_sweep.h, compact_pick.h, the
// AVX-512 back substitution) against the portable ones: every kernel the
// CPU supports writes the same bytes, and every key is found. Kernels the
// CPU lacks are skipped.

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "compact_back_substitution.h"
#include "linebloom/compact_filter.h"
#include "linebloom/kernel.h"

namespace linebloom {
namespace {

class CompactBuildTest : public ::testing::Test {
 protected:
  void TearDown() override { ForceKernel(initial_); }
  Kernel initial_ = ActiveKernel();
};

std::vector<uint64_t> Hashes(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<uint64_t> hashes(n);
  for (auto& h : hashes) h = rng();
  // Repeats that are not adjacent are kept by the builder: lines then hold
  // dependent rows that agree.
  for (size_t i = 7; i < n; i += 11) hashes[i] = hashes[i / 2];
  return hashes;
}

std::string Build(const std::vector<uint64_t>& hashes, double bits_per_key, uint32_t seed) {
  CompactFilterBuilder builder({.bits_per_key = bits_per_key, .seed = seed});
  for (uint64_t h : hashes) builder.AddHash(h);
  return builder.Finish();
}

TEST_F(CompactBuildTest, EveryKernelWritesTheSameBytes) {
  const size_t sizes[] = {0, 1, 70, 1000, 40000};
  const double bits[] = {5.5, 7.75, 9, 11.5, 16, 30};
  for (size_t n : sizes) {
    for (double b : bits) {
      const auto hashes = Hashes(n, n * 31 + static_cast<uint64_t>(b * 4));
      ASSERT_TRUE(ForceKernel(Kernel::kPortable));
      const std::string portable = Build(hashes, b, 7);
      CompactFilterReader reader;
      // (A filter of no keys is written with r = 0, which Parse rejects.)
      if (n > 0) {
        ASSERT_TRUE(CompactFilterReader::Parse(portable, &reader).ok());
        for (uint64_t h : hashes) ASSERT_TRUE(reader.MayContainHash(h)) << n << " keys, " << b << " bits/key";
      }
      for (Kernel k : {Kernel::kAvx2, Kernel::kAvx512}) {
        if (!ForceKernel(k)) {
          GTEST_LOG_(INFO) << KernelName(k) << " not supported here: skipped";
          continue;
        }
        EXPECT_EQ(Build(hashes, b, 7), portable) << KernelName(k) << ", " << n << " keys, " << b << " bits/key";
      }
    }
  }
}

// Random echelon systems (pivot p has its lowest bit at p) of every width.
TEST_F(CompactBuildTest, BackSubstitutionMatchesPortable) {
  namespace c = internal::compact;
  if (!ForceKernel(Kernel::kAvx512)) GTEST_SKIP() << "no AVX-512 here";
  std::mt19937_64 rng(42);
  for (int planes = c::kMinFingerprintBits; planes <= c::kMaxFingerprintBits + 1; ++planes) {
    const int columns = c::ColumnsFor(planes);
    for (int trial = 0; trial < 20; ++trial) {
      c::Bits128 rows[128];
      uint32_t fps[128];
      c::Bits128 filled;
      for (int p = 0; p < columns; ++p) {
        if (rng() % 8 == 0) continue;
        c::Bits128 above = c::Bits128{rng(), rng()} & c::LowMask(columns);
        above = above & c::Bits128{p >= 63 ? 0 : ~uint64_t{0} << (p + 1), p >= 64 ? ~uint64_t{0} << (p - 63) : ~0ull};
        rows[p] = above;
        (p < 64 ? rows[p].lo : rows[p].hi) |= uint64_t{1} << (p & 63);
        (p < 64 ? filled.lo : filled.hi) |= uint64_t{1} << (p & 63);
        fps[p] = static_cast<uint32_t>(rng() >> (64 - planes));
      }
      const c::PivotSystem system{rows, fps, filled, columns, planes};
      const c::PlaneSet fast = c::BackSubstitute(system);
      const c::PlaneSet portable = c::BackSubstitutePortable(system);
      for (int b = 0; b < planes; ++b) ASSERT_EQ(fast.planes[b], portable.planes[b]) << planes << " planes, " << b;
    }
  }
}

}  // namespace
}  // namespace linebloom
