// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// Every probe kernel the CPU supports gives the same filter bytes and the
// same answer for every key, at every k; the forced-portable path is always
// tested. Kernels the CPU lacks are reported as skipped, not passed.

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "linebloom/filter_builder.h"
#include "linebloom/filter_options.h"
#include "linebloom/filter_reader.h"
#include "linebloom/kernel.h"
#include "../fuzz/reference_filter.h"

namespace linebloom {
namespace {

// Restores the start-up kernel when a test ends.
class KernelTest : public ::testing::Test {
 protected:
  void TearDown() override { ForceKernel(initial_); }
  Kernel initial_ = ActiveKernel();
};

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

TEST_F(KernelTest, Avx2AgreesWithPortableAtEveryK) {
  if (!KernelSupported(Kernel::kAvx2)) GTEST_SKIP() << "CPU has no AVX2";
  for (int k = kMinProbes; k <= kMaxProbes; ++k) {
    for (double bits : {2.0, 10.0, 40.0}) {  // near-full to near-empty blocks
      ASSERT_TRUE(ForceKernel(Kernel::kPortable));
      const Answers portable = BuildAndQuery(k, bits, 3);
      ASSERT_TRUE(ForceKernel(Kernel::kAvx2));
      const Answers avx2 = BuildAndQuery(k, bits, 3);
      ASSERT_EQ(portable.bytes, avx2.bytes) << "k " << k;
      ASSERT_EQ(portable.single, avx2.single) << "k " << k << " bits " << bits;
      ASSERT_EQ(portable.batch, avx2.batch) << "k " << k << " bits " << bits;
      ASSERT_EQ(avx2.single, avx2.batch) << "k " << k;
    }
  }
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
  for (Kernel kernel : {Kernel::kPortable, Kernel::kAvx2}) {
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
  for (Kernel kernel : {Kernel::kPortable, Kernel::kAvx2}) {
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
  if (KernelSupported(Kernel::kAvx2)) GTEST_SKIP() << "CPU has AVX2";
  EXPECT_FALSE(ForceKernel(Kernel::kAvx2));
  EXPECT_EQ(ActiveKernel(), initial_);
}

}  // namespace
}  // namespace linebloom
