// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.

#include "alloc_tracker.h"

#include <gtest/gtest.h>

#include <malloc.h>

#include <cstdlib>
#include <memory>
#include <new>
#include <vector>

namespace linebloom::bench {
namespace {

TEST(AllocTracker, CountsOperatorNewUntilDelete) {
  const size_t before = LiveHeapBytes();
  auto* block = new char[1 << 20];
  EXPECT_EQ(LiveHeapBytes() - before, malloc_usable_size(block));
  EXPECT_GE(LiveHeapBytes() - before, size_t{1} << 20);
  delete[] block;
  EXPECT_EQ(LiveHeapBytes(), before);
}

TEST(AllocTracker, PeakScopeSeesTheHighestPoint) {
  const PeakHeapScope scope;
  {
    std::vector<char> a(3 << 20);
    std::vector<char> b(1 << 20);
  }
  std::vector<char> c(1 << 20);
  // a and b were live together: 4 MiB, more than c alone.
  EXPECT_GE(scope.PeakAboveStart(), size_t{4} << 20);
  EXPECT_LT(scope.PeakAboveStart(), size_t{5} << 20);
}

TEST(AllocTracker, CountsAlignedNew) {
  const size_t before = LiveHeapBytes();
  struct alignas(256) Wide {
    char bytes[4096];
  };
  auto wide = std::make_unique<Wide>();
  EXPECT_EQ(reinterpret_cast<uintptr_t>(wide.get()) % 256, 0u);
  EXPECT_GE(LiveHeapBytes() - before, sizeof(Wide));
  wide.reset();
  EXPECT_EQ(LiveHeapBytes(), before);
}

#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
TEST(AllocTracker, CountsPosixMemalignUntilFree) {
  const size_t before = LiveHeapBytes();
  void* p = nullptr;
  ASSERT_EQ(posix_memalign(&p, 64, 1 << 20), 0);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 64, 0u);
  EXPECT_GE(LiveHeapBytes() - before, size_t{1} << 20);
  void* q = aligned_alloc(4096, 8192);
  ASSERT_NE(q, nullptr);
  EXPECT_GE(LiveHeapBytes() - before, (size_t{1} << 20) + 8192);
  std::free(p);
  std::free(q);
  EXPECT_EQ(LiveHeapBytes(), before);
  // Plain malloc is neither counted nor uncounted.
  void* m = std::malloc(1 << 20);
  EXPECT_EQ(LiveHeapBytes(), before);
  std::free(m);
  EXPECT_EQ(LiveHeapBytes(), before);
}
#endif

}  // namespace
}  // namespace linebloom::bench
