// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// The compact filter under threads, as an LSM engine uses it: readers query
// one shared compact filter (single and batch) while other threads build
// compact filters of their own at different bits per key (each build sizes
// itself with the model: its per-thread memo and shape search), price tree
// levels with both kinds (the allocator's shared grids), and one switches
// the kernel. Every answer is checked against one computed before the
// threads start; under TSan (tests/sanitize.sh) a race is reported itself.

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "linebloom/compact_filter.h"
#include "linebloom/kernel.h"
#include "linebloom/level_allocator.h"

#include "support/golden_keys.h"

namespace linebloom {
namespace {

TEST(CompactConcurrency, ReadersWhileOthersBuildPriceAndSwitchKernels) {
  const std::vector<uint64_t> keys = golden::RandomHashes(1, 5'000);
  CompactFilterBuilder builder({.bits_per_key = 7.75});
  for (uint64_t h : keys) builder.AddHash(h);
  const std::string bytes = builder.Finish();
  CompactFilterReader shared;
  ASSERT_TRUE(CompactFilterReader::Parse(bytes, &shared).ok());
  const std::vector<uint64_t> absent = golden::RandomHashes(2, 2'000);
  std::vector<char> expected(absent.size());
  for (size_t i = 0; i < absent.size(); ++i) expected[i] = shared.MayContainHash(absent[i]);

  std::atomic<int> wrong{0}, missed{0}, bad_builds{0}, bad_allocations{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 2; ++t) {
    threads.emplace_back([&] {
      std::vector<char> out(32);
      for (int round = 0; round < 3; ++round) {
        for (uint64_t h : keys) missed += !shared.MayContainHash(h);
        for (size_t i = 0; i + 32 <= absent.size(); i += 32) {
          std::span<bool> answers(reinterpret_cast<bool*>(out.data()), 32);
          shared.MayContainHashBatch(std::span<const uint64_t>(absent).subspan(i, 32), answers);
          for (size_t j = 0; j < 32; ++j) wrong += answers[j] != static_cast<bool>(expected[i + j]);
        }
      }
    });
  }
  for (int t = 0; t < 2; ++t) {
    threads.emplace_back([&, t] {
      for (double bits : {6.0 + t, 9.0 + t, 12.5 + t}) {
        const std::vector<uint64_t> own = golden::RandomHashes(10 + t, 3'000);
        CompactFilterBuilder b({.bits_per_key = bits});
        for (uint64_t h : own) b.AddHash(h);
        const std::string f = b.Finish();
        CompactFilterReader r;
        if (!CompactFilterReader::Parse(f, &r).ok()) ++bad_builds;
        for (uint64_t h : own) bad_builds += !r.MayContainHash(h);
      }
    });
  }
  threads.emplace_back([&] {
    const std::vector<uint64_t> entries = LeveledEntries(1'000'000, 10, 4);
    const std::vector<FilterKind> kinds = {FilterKind::kBloom, FilterKind::kBloom, FilterKind::kBloom,
                                           FilterKind::kCompact};
    const LevelAllocation a = AllocateBitsPerRun(entries, {}, kinds, 8.0);
    if (a.kinds != kinds || !(a.expected_fpr_sum > 0)) ++bad_allocations;
  });
  threads.emplace_back([&] {
    const Kernel before = ActiveKernel();
    for (int i = 0; i < 50; ++i) {
      ForceKernel(Kernel::kPortable);
      ForceKernel(before);
    }
  });
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_EQ(missed.load(), 0);
  EXPECT_EQ(bad_builds.load(), 0);
  EXPECT_EQ(bad_allocations.load(), 0);
}

}  // namespace
}  // namespace linebloom
