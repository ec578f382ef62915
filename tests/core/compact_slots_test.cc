// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// The packed slots the compact builder sorts a bucket's keys by
// (compact_counting_sort.h: SlotsOf, four keys at a time with AVX2),
// against their definition, LayerPlacement::Of, on every kernel: layer 0
// with and without a mixed filter's sections, later layers (their hashes
// avalanched), line counts up to 2^32 - 1, buckets that start past line 0,
// and counts that are not a multiple of four.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "compact_counting_sort.h"
#include "linebloom/kernel.h"

namespace linebloom {
namespace {

namespace c = internal::compact;

// The placements of a layer of `lines` lines: unmixed layer 0, a later
// layer, and a mixed layer 0 with a low section of a third of the lines
// taking keys whose low 32 bits are below about 0.4 * 2^32.
std::vector<c::LayerPlacement> PlacementsOf(uint32_t lines) {
  std::vector<c::LayerPlacement> all = {{{}, 0, lines}, {{}, 1, lines}, {{}, 3, lines}};
  if (lines >= 3) {
    const uint32_t low_lines = lines / 3;
    all.push_back({{uint32_t{1717986918}, low_lines, lines - low_lines}, 0, lines});
  }
  return all;
}

TEST(CompactSlotsTest, SlotsMatchTheirDefinitionOnEveryKernel) {
  const Kernel initial = ActiveKernel();
  std::mt19937_64 rng(11);
  for (Kernel kernel : {Kernel::kPortable, Kernel::kAvx2, Kernel::kAvx512}) {
    if (!ForceKernel(kernel)) {
      GTEST_LOG_(INFO) << KernelName(kernel) << " not supported here: skipped";
      continue;
    }
    for (uint32_t lines : {1u, 2u, 3u, 28u, 1000u, 1u << 23, 4000000000u, UINT32_MAX}) {
      for (const c::LayerPlacement& where : PlacementsOf(lines)) {
        for (size_t n : {0, 1, 3, 4, 5, 8, 255, 256, 1001}) {
          // Hashes anywhere, or (narrow) within 2^-12 of the range, so that
          // an unmixed layer's keys fall within 2^-12 of its lines: a
          // bucket of a large layer.
          const bool narrow = n % 2 == 1;
          const uint64_t base = rng();
          std::vector<uint64_t> hashes(n);
          for (auto& h : hashes) h = narrow ? base + (rng() >> 12) : rng();
          if (n > 2 && !narrow) hashes[1] = 0, hashes[2] = ~uint64_t{0};
          // The bucket starts at the smallest line. Where the lines spread
          // wider than PackSlot's 24 bits (which the builder's buckets never
          // do) both forms wrap alike: the comparison is exact anyway.
          uint32_t first = UINT32_MAX;
          for (uint64_t h : hashes) first = std::min(first, where.Of(h).line);
          std::vector<uint32_t> slots(hashes.size() + 1, 0xDEADBEEF);
          c::SlotsOf(where, first, hashes, slots.data());
          for (size_t i = 0; i < hashes.size(); ++i) {
            const c::Slot slot = where.Of(hashes[i]);
            ASSERT_EQ(slots[i], c::PackSlot(slot.line - first, slot.order))
                << KernelName(kernel) << " lines " << lines << " layer " << where.layer << " mixed "
                << (where.sections.low_threshold != 0) << " n " << n << " i " << i;
          }
          ASSERT_EQ(slots[hashes.size()], 0xDEADBEEF) << "written past the last slot";
        }
      }
    }
  }
  ForceKernel(initial);
}

}  // namespace
}  // namespace linebloom
