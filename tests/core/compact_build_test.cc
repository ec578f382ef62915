// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// The compact builder's vector paths (compact_sweep.h, the AVX-512 back
// substitution) against the portable ones: every kernel the CPU supports
// writes the same bytes, and every key is found. Kernels the CPU lacks are
// skipped. Also the in-place grouping of the hashes (compact_partition.h,
// compact_hashes.h): the bytes do not depend on the order keys come in,
// and a build keeps every hash.

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "compact_back_substitution.h"
#include "compact_gauss_jordan.h"
#include "compact_partition.h"
#include "compact_sweep.h"
#include "linebloom/compact_filter.h"
#include "linebloom/filter_builder.h"
#include "linebloom/kernel.h"

namespace linebloom {
namespace {

class CompactBuildTest : public ::testing::Test {
 protected:
  void TearDown() override {
    ForceKernel(initial_);
    internal::compact::EnableSolveReducedForTesting(true);
  }
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
        if (k != Kernel::kAvx512) continue;
        // The AVX-512 kernel of a CPU without the reduced solve.
        internal::compact::EnableSolveReducedForTesting(false);
        EXPECT_EQ(Build(hashes, b, 7), portable) << "blocked sweep, " << n << " keys, " << b << " bits/key";
        internal::compact::EnableSolveReducedForTesting(true);
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

// The sweep's definition, a column at a time: the lowest non-pivot equation
// with the column's bit becomes its pivot and is added to the others with
// it. Returns the first non-pivot equation left with a high word, or count.
size_t SweepByDefinition(std::vector<uint64_t>& lo, std::vector<uint64_t>& hi, size_t count, int columns,
                         std::vector<int>& pivot_of) {
  std::vector<bool> is_pivot(count, false);
  for (int p = 0; p < columns; ++p) {
    const auto has = [&](size_t e) { return ((p < 64 ? lo[e] >> p : hi[e] >> (p - 64)) & 1) != 0; };
    pivot_of[p] = -1;
    for (size_t e = 0; e < count && pivot_of[p] < 0; ++e) {
      if (!is_pivot[e] && has(e)) pivot_of[p] = static_cast<int>(e);
    }
    if (pivot_of[p] < 0) continue;
    const size_t i = static_cast<size_t>(pivot_of[p]);
    is_pivot[i] = true;
    for (size_t e = 0; e < count; ++e) {
      if (is_pivot[e] || !has(e)) continue;
      lo[e] ^= lo[i];
      hi[e] ^= hi[i];
    }
  }
  for (size_t e = 0; e < count; ++e) {
    if (!is_pivot[e] && hi[e] != 0) return e;
  }
  return count;
}

// Random systems of every size and width (columns and fingerprint bits of
// every plane count), with repeated rows (dependent equations, their
// fingerprints agreeing or not), rows confined to a few columns (free
// columns inside a block, or a group of eight), and the arrays past the
// padding not zero.
template <typename Check>
void ForEachSweepSystem(uint64_t seed, const Check& check) {
  namespace c = internal::compact;
  std::mt19937_64 rng(seed);
  for (int planes = c::kMinFingerprintBits; planes <= c::kMaxPlanes; ++planes) {
    const int columns = c::ColumnsFor(planes);
    for (size_t count : {size_t{1}, size_t{7}, size_t{40}, size_t{63}, size_t{64}, size_t{65},
                         static_cast<size_t>(columns + 3), c::kMaxSweepKeys}) {
      for (int trial = 0; trial < 20; ++trial) {
        const c::Bits128 mask = c::LowMask(trial % 3 == 0 ? std::min(columns, 24) : columns);
        alignas(64) uint64_t lo[c::kMaxSweepKeys];
        alignas(64) uint64_t hi[c::kMaxSweepKeys];
        for (size_t e = 0; e < c::kMaxSweepKeys; ++e) lo[e] = hi[e] = rng();
        for (size_t e = 0; e < (count + 7) / 8 * 8; ++e) {
          c::Bits128 row = c::Bits128{rng(), rng()} & mask;
          const uint64_t fp = rng() >> (64 - planes);
          if (e > 0 && rng() % 5 == 0) row = {lo[e / 2], columns > 64 ? hi[e / 2] & c::LowMask(columns - 64).lo : 0};
          lo[e] = e < count ? row.lo : 0;
          hi[e] = e >= count ? 0 : columns > 64 ? row.hi | fp << (columns - 64) : fp;
        }
        check(planes, columns, count, lo, hi);
      }
    }
  }
}

// The vector sweep leaves the same equations and pivots as the definition.
TEST_F(CompactBuildTest, SweepMatchesItsDefinition) {
  namespace c = internal::compact;
  if (!ForceKernel(Kernel::kAvx512) || !c::HasSweep()) GTEST_SKIP() << "no AVX-512 here";
  ForEachSweepSystem(77, [](int planes, int columns, size_t count, uint64_t* lo, uint64_t* hi) {
    std::vector<uint64_t> ref_lo(lo, lo + count), ref_hi(hi, hi + count);
    std::vector<int> ref_pivot_of(static_cast<size_t>(columns));
    const size_t expected = SweepByDefinition(ref_lo, ref_hi, count, columns, ref_pivot_of);
    int8_t pivot_of[128];
    ASSERT_EQ(c::SweepColumns(lo, hi, count, columns, pivot_of), expected) << planes << " " << count;
    for (int p = 0; p < columns; ++p) ASSERT_EQ(pivot_of[p], ref_pivot_of[p]) << planes << " " << count << " " << p;
    for (size_t e = 0; e < count; ++e) {
      ASSERT_EQ(lo[e], ref_lo[e]) << planes << " " << count << " " << e;
      ASSERT_EQ(hi[e], ref_hi[e]) << planes << " " << count << " " << e;
    }
  });
}

// A solve of the reduced form (SolveReduced, SolveGaussJordan).
using SolveFn = size_t (*)(const uint64_t*, const uint64_t*, size_t, int, int, int8_t*, internal::compact::PlaneSet*,
                           bool);

// Checks that `solve` finds the definition's pivots and first
// contradiction, the planes back substitution finds from the definition's
// pivots (all of them, where equations contradict too), and, asked only
// whether every equation fits, the same answer and the same planes where
// they all do; and that it leaves the equations as they were. Returns
// whether every equation fits.
bool ExpectSolveMatchesDefinition(SolveFn solve, int planes, int columns, size_t count, uint64_t* lo, uint64_t* hi) {
  namespace c = internal::compact;
  std::vector<uint64_t> ref_lo(lo, lo + count), ref_hi(hi, hi + count);
  std::vector<int> ref_pivot_of(static_cast<size_t>(columns));
  const size_t expected = SweepByDefinition(ref_lo, ref_hi, count, columns, ref_pivot_of);
  const std::vector<uint64_t> given_lo(lo, lo + count), given_hi(hi, hi + count);
  int8_t pivot_of[128];
  c::PlaneSet solution;
  EXPECT_EQ(solve(lo, hi, count, columns, planes, pivot_of, &solution, false), expected) << planes << " " << count;
  for (int p = 0; p < columns; ++p) EXPECT_EQ(pivot_of[p], ref_pivot_of[p]) << planes << " " << count << " " << p;
  EXPECT_EQ(std::vector<uint64_t>(lo, lo + count), given_lo);
  EXPECT_EQ(std::vector<uint64_t>(hi, hi + count), given_hi);
  c::Bits128 rows[128];
  uint32_t fps[128];
  c::Bits128 filled;
  const c::Bits128 row_mask = c::LowMask(columns);
  for (int p = 0; p < columns; ++p) {
    if (ref_pivot_of[p] < 0) continue;
    const size_t i = static_cast<size_t>(ref_pivot_of[p]);
    rows[p] = c::Bits128{ref_lo[i], columns > 64 ? ref_hi[i] : 0} & row_mask;
    fps[p] = static_cast<uint32_t>(columns > 64 ? ref_hi[i] >> (columns - 64) : ref_hi[i]);
    (p < 64 ? filled.lo : filled.hi) |= uint64_t{1} << (p & 63);
  }
  const c::PlaneSet expected_planes = c::BackSubstitutePortable(c::PivotSystem{rows, fps, filled, columns, planes});
  for (int b = 0; b < planes; ++b) {
    EXPECT_EQ(solution.planes[b], expected_planes.planes[b]) << planes << " " << count << " plane " << b;
  }
  c::PlaneSet fitted;
  EXPECT_EQ(solve(lo, hi, count, columns, planes, pivot_of, &fitted, true), expected) << planes << " " << count;
  for (int b = 0; expected == count && b < planes; ++b) {
    EXPECT_EQ(fitted.planes[b], expected_planes.planes[b]) << planes << " " << count << " plane " << b;
  }
  return expected == count;
}

// The reduced solve finds the definition's pivots and first contradiction,
// and the planes that back substitution finds from the definition's pivots
// (all of them, where equations contradict too); it leaves the equations
// as they were.
TEST_F(CompactBuildTest, SolveReducedMatchesTheSweepAndBackSubstitution) {
  namespace c = internal::compact;
  if (!ForceKernel(Kernel::kAvx512) || !c::HasSweep()) GTEST_SKIP() << "no AVX-512 here";
  if (!c::CanSolveReduced(1, c::ColumnsFor(8))) GTEST_SKIP() << "no AVX512_VBMI, AVX512_BITALG or GFNI here";
  size_t solved = 0, contradicted = 0;
  ForEachSweepSystem(79, [&](int planes, int columns, size_t count, uint64_t* lo, uint64_t* hi) {
    if (!c::CanSolveReduced(count, columns)) {
      ASSERT_TRUE((count > 64 && columns < 63) || columns > 84) << planes << " " << count;
      return;
    }
    ++(ExpectSolveMatchesDefinition(&c::SolveReduced, planes, columns, count, lo, hi) ? solved : contradicted);
    ASSERT_FALSE(::testing::Test::HasFailure()) << planes << " " << count;
  });
  EXPECT_GT(solved, 500u);  // 700 of these systems hold every equation
  EXPECT_GT(contradicted, 100u);
}

// The solve without AVX-512 (compact_gauss_jordan.h), in its portable and
// its AVX2 build, finds the definition's pivots and first contradiction and
// the planes back substitution finds from them, and leaves the equations
// as they were.
TEST_F(CompactBuildTest, GaussJordanMatchesTheSweepAndBackSubstitution) {
  namespace c = internal::compact;
  for (Kernel kernel : {Kernel::kPortable, Kernel::kAvx2}) {
    if (!ForceKernel(kernel)) {
      GTEST_LOG_(INFO) << KernelName(kernel) << " not supported here: skipped";
      continue;
    }
    size_t solved = 0, contradicted = 0;
    ForEachSweepSystem(81, [&](int planes, int columns, size_t count, uint64_t* lo, uint64_t* hi) {
      ++(ExpectSolveMatchesDefinition(&c::SolveGaussJordan, planes, columns, count, lo, hi) ? solved : contradicted);
      ASSERT_FALSE(::testing::Test::HasFailure()) << planes << " " << count;
    });
    EXPECT_GT(solved, 500u) << KernelName(kernel);  // 668 of these systems hold every equation
    EXPECT_GT(contradicted, 1000u) << KernelName(kernel);
  }
}

// The equations Gauss-Jordan is given, from each key's code, on every
// kernel (AVX2 makes four at a time), for every count up to the most (the
// groups of four and the rest), a zero row among them.
TEST_F(CompactBuildTest, GaussJordanEquationsMatchTheirDefinition) {
  namespace c = internal::compact;
  std::mt19937_64 rng(5);
  for (Kernel kernel : {Kernel::kPortable, Kernel::kAvx2}) {
    if (!ForceKernel(kernel)) {
      GTEST_LOG_(INFO) << KernelName(kernel) << " not supported here: skipped";
      continue;
    }
    for (int planes = c::kMinFingerprintBits; planes <= c::kMaxPlanes; ++planes) {
      const int columns = c::ColumnsFor(planes);
      for (size_t count = 1; count <= c::kMaxGaussJordanKeys; count += 1 + count / 16) {
        std::vector<uint64_t> hashes(count);
        for (auto& h : hashes) h = rng();
        // The hash whose code is zero: its row is zero, which RowOf makes 1.
        hashes[count / 2] = c::kCodeSeed;
        std::vector<uint64_t> lo(count + 1, ~uint64_t{0}), hi(count + 1, ~uint64_t{0});
        c::GaussJordanEquationsOf(hashes.data(), count, columns, planes, lo.data(), hi.data());
        for (size_t i = 0; i < count; ++i) {
          const c::KeyCode code = c::CodeOf(hashes[i]);
          const c::Bits128 row = c::RowOf(code, columns);
          const uint64_t fp = c::FingerprintOf(code, planes);
          ASSERT_EQ(lo[i], row.lo) << KernelName(kernel) << " " << planes << " " << count << " " << i;
          ASSERT_EQ(hi[i], columns > 64 ? row.hi | fp << (columns - 64) : fp)
              << KernelName(kernel) << " " << planes << " " << count << " " << i;
        }
        ASSERT_EQ(lo[count / 2], 1u) << planes;
        // Nothing past the last equation written.
        ASSERT_EQ(lo[count] & hi[count], ~uint64_t{0}) << KernelName(kernel) << " " << planes << " " << count;
      }
    }
  }
}

// The equations the sweep is given, eight keys at a time, against their
// definition from each key's code (a zero row among them); the padding up
// to a multiple of 8 zero.
TEST_F(CompactBuildTest, SweepEquationsMatchTheirDefinition) {
  namespace c = internal::compact;
  if (!ForceKernel(Kernel::kAvx512) || !c::HasSweep()) GTEST_SKIP() << "no AVX-512 here";
  std::mt19937_64 rng(78);
  for (int planes = c::kMinFingerprintBits; planes <= c::kMaxFingerprintBits + 1; ++planes) {
    const int columns = c::ColumnsFor(planes);
    for (size_t count = 1; count <= c::kMaxSweepKeys; count += 1 + count / 8) {
      std::vector<uint64_t> hashes(count);
      for (auto& h : hashes) h = rng();
      // The hash whose code is zero: its row is zero, which RowOf makes 1.
      hashes[count / 2] = c::kCodeSeed;
      alignas(64) uint64_t lo[c::kMaxSweepKeys];
      alignas(64) uint64_t hi[c::kMaxSweepKeys];
      std::fill_n(lo, c::kMaxSweepKeys, ~uint64_t{0});
      std::fill_n(hi, c::kMaxSweepKeys, ~uint64_t{0});
      c::SweepEquationsOf(hashes.data(), count, columns, planes, lo, hi);
      for (size_t i = 0; i < count; ++i) {
        const c::KeyCode code = c::CodeOf(hashes[i]);
        const c::Bits128 row = c::RowOf(code, columns);
        const uint64_t fp = c::FingerprintOf(code, planes);
        ASSERT_EQ(lo[i], row.lo) << planes << " " << count << " " << i;
        ASSERT_EQ(hi[i], columns > 64 ? row.hi | fp << (columns - 64) : fp) << planes << " " << count << " " << i;
      }
      for (size_t i = count; i < (count + 7) / 8 * 8; ++i) ASSERT_EQ(lo[i] | hi[i], 0u) << planes << " " << count;
    }
  }
}

std::vector<uint64_t> Sorted(const CompactHashes& hashes) {
  std::vector<uint64_t> all;
  hashes.ForEachSpan([&](std::span<const uint64_t> span) { all.insert(all.end(), span.begin(), span.end()); });
  std::sort(all.begin(), all.end());
  return all;
}

// Both groupings: in place, and by pages (a range from a page boundary;
// sizes around a page, buckets that fill no page, and skewed buckets, many
// of them empty).
TEST(CompactHashesTest, PartitionGroupsByBucketAndKeepsEveryHash) {
  enum class Way { kInPlace, kByPages };
  for (size_t n : {size_t{0}, size_t{1}, size_t{511}, size_t{512}, size_t{513}, size_t{1536}, size_t{40000}}) {
    for (size_t buckets : {size_t{1}, size_t{7}, size_t{256}, size_t{300}}) {
      for (bool skewed : {false, true}) {
        for (Way way : {Way::kInPlace, Way::kByPages}) {
          const std::vector<uint64_t> hashes = Hashes(n, n + buckets);
          CompactHashes store;
          for (uint64_t h : hashes) store.push_back(h);
          ASSERT_EQ(store.size(), n);
          // Skewed: half the hashes in bucket 0, the others in every third.
          const auto bucket_of = [buckets, skewed](uint64_t h) {
            if (!skewed) return static_cast<size_t>(h % buckets);
            return (h >> 63) != 0 ? 0 : static_cast<size_t>(h % buckets) / 3 * 3;
          };
          // A range after the first third (a page boundary for kByPages);
          // the hashes before it stay put.
          const size_t from =
              way == Way::kByPages ? n / 3 / CompactHashes::kChunkHashes * CompactHashes::kChunkHashes : n / 3;
          std::vector<size_t> starts;
          if (way == Way::kByPages) {
            // Unaligned, and filled with a pattern: a scratch byte read
            // before it is written would show as a lost or foreign hash.
            std::vector<unsigned char> bytes(internal::compact::PartitionByPagesBytes(buckets) + 1, 0xA5);
            internal::compact::PartitionByPages(store, from, n - from, buckets, bucket_of, &starts, bytes.data() + 1);
          } else {
            internal::compact::PartitionInPlace(store, from, n - from, buckets, bucket_of, &starts);
          }
          ASSERT_EQ(starts.size(), buckets + 1);
          EXPECT_EQ(starts[0], from);
          EXPECT_EQ(starts[buckets], n);
          for (size_t i = 0; i < from; ++i) ASSERT_EQ(store[i], hashes[i]);
          for (size_t b = 0; b < buckets; ++b) {
            for (size_t i = starts[b]; i < starts[b + 1]; ++i) ASSERT_EQ(bucket_of(store[i]), b) << n << " " << i;
          }
          std::vector<uint64_t> expected = hashes;
          std::sort(expected.begin(), expected.end());
          EXPECT_EQ(Sorted(store), expected);
        }
      }
    }
  }
}

// A line depends only on the set of its keys, so any order of the same keys
// gives the same bytes; the builder keeps every hash for a check after.
// 600,000 keys make a layer large enough to be grouped by pages.
TEST(CompactHashesTest, BytesDoNotDependOnOrderAndHashesAreKept) {
  for (size_t n : {size_t{1}, size_t{3000}, size_t{100000}, size_t{600000}}) {
    std::vector<uint64_t> hashes = Hashes(n, n);
    const std::string in_order = Build(hashes, 7.75, 3);
    std::shuffle(hashes.begin(), hashes.end(), std::mt19937_64(n));
    CompactFilterBuilder builder({.bits_per_key = 7.75, .seed = 3});
    builder.KeepFinishedHashes(true);
    for (uint64_t h : hashes) builder.AddHash(h);
    size_t size = 0;
    const std::unique_ptr<char[]> buffer = builder.FinishBuffer(&size);
    EXPECT_EQ(std::string(buffer.get(), size), in_order) << n << " keys";
    EXPECT_EQ(builder.NumKeys(), 0u);
    std::vector<uint64_t> kept;
    for (uint64_t h : hashes) {
      if (kept.empty() || kept.back() != h) kept.push_back(h);  // adjacent repeats are dropped
    }
    std::sort(kept.begin(), kept.end());
    EXPECT_EQ(Sorted(builder.finished_hashes()), kept);
    builder.ReleaseFinishedHashes();
    EXPECT_EQ(builder.finished_hashes().size(), 0u);
  }
}

// Lines far over their share of keys (hashes below 2^48 all fall in line 0
// of either section of layer 0): a bucket of such lines is sorted by the
// counting sort, not in runs of a fixed capacity. Every key still answers
// true, and the bytes do not depend on the order the keys came in.
TEST(CompactHashesTest, CrowdedLinesKeepEveryKey) {
  for (size_t n : {size_t{3000}, size_t{30000}}) {
    // No repeats: any order of the keys then keeps every one.
    std::mt19937_64 rng(n);
    std::vector<uint64_t> hashes(n);
    for (size_t i = 0; i < n; ++i) hashes[i] = i % 5 == 0 ? rng() >> 16 : rng();
    const std::string in_order = Build(hashes, 7.26, 5);
    CompactFilterReader reader;
    ASSERT_TRUE(CompactFilterReader::Parse(in_order, &reader).ok()) << n;
    for (uint64_t h : hashes) ASSERT_TRUE(reader.MayContainHash(h)) << n;
    std::shuffle(hashes.begin(), hashes.end(), std::mt19937_64(n));
    EXPECT_EQ(Build(hashes, 7.26, 5), in_order) << n << " keys";
  }
}

TEST(CompactHashesTest, MovedFromStoreIsEmptyAndUsable) {
  CompactHashes a;
  for (uint64_t h = 1; h <= 1000; ++h) a.push_back(h);
  CompactHashes b = std::move(a);
  EXPECT_EQ(b.size(), 1000u);
  EXPECT_EQ(a.size(), 0u);  // NOLINT(bugprone-use-after-move): the state is specified
  a.push_back(7);
  EXPECT_EQ(a.size(), 1u);
  EXPECT_EQ(a.back(), 7u);
  EXPECT_EQ(b.back(), 1000u);
  EXPECT_EQ(b[999], 1000u);
}

// A fallback (layers run out) reads the hashes after the layers moved them.
TEST(CompactHashesTest, FallbackSeesEveryHash) {
  const std::vector<uint64_t> hashes = Hashes(5000, 9);
  CompactFilterBuilder builder({.bits_per_key = 7.75});
  builder.TEST_SetMaxLayers(1);
  for (uint64_t h : hashes) builder.AddHash(h);
  const std::string filter = builder.Finish();
  ASSERT_NE(builder.fallback_reason(), "");
  FilterBuilder bloom({.bits_per_key = 7.75, .num_probes = 0});
  bloom.AddDistinctHashes(hashes);
  EXPECT_EQ(filter, bloom.Finish());
}

}  // namespace
}  // namespace linebloom
