// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// Every probe kernel the CPU supports gives the same filter bytes and the
// same answer for every key, at every k; the forced-portable path is always
// tested. Kernels the CPU lacks are reported as skipped, not passed.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "linebloom/filter_builder.h"
#include "linebloom/filter_options.h"
#include "linebloom/filter_reader.h"
#include "linebloom/kernel.h"
#include "support/reference_filter.h"

namespace linebloom {
namespace {

// Restores the start-up kernel when a test ends.
class KernelTest : public ::testing::Test {
 protected:
  void TearDown() override { ForceKernel(initial_); }
  Kernel initial_ = ActiveKernel();
};

constexpr Kernel kAllKernels[] = {Kernel::kPortable, Kernel::kAvx2, Kernel::kAvx512};

struct Answers {
  std::string bytes;
  std::vector<bool> single, batch;
};

Answers BuildAndQuery(int num_probes, double bits_per_key, uint32_t seed) {
  FilterBuilder builder({.bits_per_key = bits_per_key, .num_probes = num_probes, .seed = seed});
  std::mt19937_64 rng(seed * 1000 + num_probes);
  for (int i = 0; i < 3000; ++i) builder.AddHash(rng());
  Answers answers;
  answers.bytes = builder.Finish();
  FilterReader reader;
  EXPECT_TRUE(FilterReader::Parse(answers.bytes, &reader).ok());
  std::vector<uint64_t> queries(20000);
  for (auto& q : queries) q = rng();
  auto out = std::make_unique<bool[]>(queries.size());
  reader.MayContainHashBatch(queries, std::span<bool>(out.get(), queries.size()));
  for (size_t i = 0; i < queries.size(); ++i) {
    answers.single.push_back(reader.MayContainHash(queries[i]));
    answers.batch.push_back(out[i]);
  }
  return answers;
}

TEST_F(KernelTest, PortableIsAlwaysAvailable) {
  EXPECT_TRUE(KernelSupported(Kernel::kPortable));
  EXPECT_TRUE(ForceKernel(Kernel::kPortable));
  EXPECT_EQ(ActiveKernel(), Kernel::kPortable);
  EXPECT_STREQ(KernelName(Kernel::kPortable), "portable");
}

void ExpectAgreesWithPortableAtEveryK(Kernel kernel) {
  for (int k = kMinProbes; k <= kMaxProbes; ++k) {
    for (double bits : {2.0, 10.0, 40.0}) {  // near-full to near-empty blocks
      ASSERT_TRUE(ForceKernel(Kernel::kPortable));
      const Answers portable = BuildAndQuery(k, bits, 3);
      ASSERT_TRUE(ForceKernel(kernel));
      const Answers simd = BuildAndQuery(k, bits, 3);
      ASSERT_EQ(portable.bytes, simd.bytes) << "k " << k;
      ASSERT_EQ(portable.single, simd.single) << "k " << k << " bits " << bits;
      ASSERT_EQ(portable.batch, simd.batch) << "k " << k << " bits " << bits;
      ASSERT_EQ(simd.single, simd.batch) << "k " << k;
    }
  }
}

TEST_F(KernelTest, Avx2AgreesWithPortableAtEveryK) {
  if (!KernelSupported(Kernel::kAvx2)) GTEST_SKIP() << "CPU has no AVX2";
  ExpectAgreesWithPortableAtEveryK(Kernel::kAvx2);
}

TEST_F(KernelTest, Avx512AgreesWithPortableAtEveryK) {
  if (!KernelSupported(Kernel::kAvx512)) GTEST_SKIP() << "CPU has no AVX-512F";
  ExpectAgreesWithPortableAtEveryK(Kernel::kAvx512);
  EXPECT_STREQ(KernelName(Kernel::kAvx512), "avx512");
}

// The widest kernel the CPU has is the one chosen at start-up (unless
// LINEBLOOM_KERNEL forces another).
TEST_F(KernelTest, StartsOnTheWidestSupportedKernel) {
  if (std::getenv("LINEBLOOM_KERNEL") != nullptr) GTEST_SKIP() << "LINEBLOOM_KERNEL is set";
  const Kernel widest = KernelSupported(Kernel::kAvx512) ? Kernel::kAvx512
                        : KernelSupported(Kernel::kAvx2) ? Kernel::kAvx2
                                                         : Kernel::kPortable;
  EXPECT_EQ(initial_, widest) << KernelName(initial_);
}

// A filter above 1 MiB: built partitioned (the hashes sorted by block
// first) when huge pages are off -- CTest runs this binary once more with
// LINEBLOOM_HUGE_PAGES=0 -- and directly otherwise. Every kernel's build
// loop, in either order, must write exactly the bytes of the format's
// reference model.
TEST_F(KernelTest, LargeFilterMatchesTheReferenceOnEveryKernel) {
  std::vector<uint64_t> hashes(300000);
  std::mt19937_64 rng(7);
  for (auto& h : hashes) h = rng();
  std::sort(hashes.begin(), hashes.end());  // no adjacent repeats to drop
  hashes.erase(std::unique(hashes.begin(), hashes.end()), hashes.end());
  std::shuffle(hashes.begin(), hashes.end(), rng);
  for (Kernel kernel : kAllKernels) {
    if (!ForceKernel(kernel)) continue;
    for (int k : {1, 6, 9, 24}) {
      FilterBuilder builder({.bits_per_key = 40, .num_probes = k, .seed = 5});
      for (uint64_t h : hashes) builder.AddHash(h);
      const std::string bytes = builder.Finish();
      ASSERT_GT(bytes.size(), size_t{1} << 20) << "not large enough to be partitioned";
      const uint64_t num_blocks = (bytes.size() - reference::kTrailerBytes) / reference::kBlockBytes;
      ASSERT_EQ(bytes, reference::Build(hashes, num_blocks, k, 5)) << KernelName(kernel) << " k " << k;
    }
  }
}

TEST_F(KernelTest, EveryKernelFindsEveryKey) {
  for (Kernel kernel : kAllKernels) {
    if (!ForceKernel(kernel)) continue;
    FilterBuilder builder({.bits_per_key = 8});
    std::vector<std::string> keys;
    for (int i = 0; i < 10000; ++i) keys.push_back(std::string("key").append(std::to_string(i)));
    for (const auto& k : keys) builder.AddKey(k);
    const std::string bytes = builder.Finish();
    FilterReader reader;
    ASSERT_TRUE(FilterReader::Parse(bytes, &reader).ok());
    std::vector<std::string_view> views(keys.begin(), keys.end());
    auto out = std::make_unique<bool[]>(views.size());
    reader.MayContainBatch(views, std::span<bool>(out.get(), views.size()));
    for (size_t i = 0; i < keys.size(); ++i) {
      ASSERT_TRUE(reader.MayContain(keys[i])) << KernelName(kernel) << " " << keys[i];
      ASSERT_TRUE(out[i]) << KernelName(kernel) << " " << keys[i];
    }
  }
}

TEST_F(KernelTest, UnsupportedKernelIsRefused) {
  const Kernel missing = !KernelSupported(Kernel::kAvx2)     ? Kernel::kAvx2
                         : !KernelSupported(Kernel::kAvx512) ? Kernel::kAvx512
                                                             : Kernel::kPortable;
  if (missing == Kernel::kPortable) GTEST_SKIP() << "CPU has every kernel";
  EXPECT_FALSE(ForceKernel(missing));
  EXPECT_EQ(ActiveKernel(), initial_);
}

}  // namespace
}  // namespace linebloom
