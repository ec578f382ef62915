// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// CollapseHugePages (huge_pages.h) acts on memory the caller does not own:
// RocksDB's block, possibly a read-only file mapping. Whatever the kernel
// does, the bytes and their addresses must stay as they were; where it
// reports success, the range must really be in huge pages.

#include "huge_pages.h"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace linebloom::internal {
namespace {

// An anonymous mapping in 4 KiB pages (MADV_NOHUGEPAGE until filled, as a
// heap buffer written before any hint), filled with a pattern.
struct Mapping {
  explicit Mapping(size_t bytes) : size(bytes) {
    void* p = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    EXPECT_NE(p, MAP_FAILED);
    data = static_cast<unsigned char*>(p);
    madvise(data, size, MADV_NOHUGEPAGE);
    for (size_t i = 0; i < size; ++i) data[i] = static_cast<unsigned char>(i * 131 + (i >> 12));
    madvise(data, size, MADV_HUGEPAGE);  // the hint alone collapses nothing now
  }
  ~Mapping() { munmap(data, size); }
  bool Intact() const {
    for (size_t i = 0; i < size; ++i) {
      if (data[i] != static_cast<unsigned char>(i * 131 + (i >> 12))) return false;
    }
    return true;
  }
  unsigned char* data = nullptr;
  size_t size;
};

// kB of AnonHugePages in the mapping that holds `address` (/proc/self/smaps).
long AnonHugeKb(const void* address) {
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool inside = false;
  const auto at = reinterpret_cast<uintptr_t>(address);
  while (std::getline(smaps, line)) {
    uintptr_t lo = 0, hi = 0;
    if (std::sscanf(line.c_str(), "%lx-%lx ", &lo, &hi) == 2 && line.find(':') > line.find(' ')) {
      inside = lo <= at && at < hi;
      continue;
    }
    long kb = 0;
    if (inside && std::sscanf(line.c_str(), "AnonHugePages: %ld kB", &kb) == 1) return kb;
  }
  return -1;
}

TEST(HugePages, CollapseKeepsTheBytesAndReportsTheTruth) {
  Mapping m(8 * kHugePageBytes);
  // An unaligned range, as a filter in a heap block: 6 whole huge pages inside.
  const bool collapsed = CollapseHugePages(m.data + 100, m.size - 200);
  EXPECT_TRUE(m.Intact());
  if (collapsed) {
    EXPECT_GE(AnonHugeKb(m.data + kHugePageBytes), 6 * static_cast<long>(kHugePageBytes >> 10));
  } else {
    std::printf("MADV_COLLAPSE not available here (kernel, THP mode or LINEBLOOM_HUGE_PAGES=0)\n");
  }
}

TEST(HugePages, NoWholeHugePageIsNoCall) {
  Mapping m(2 * kHugePageBytes);
  // Less than one huge page after rounding the start up and the end down.
  EXPECT_FALSE(CollapseHugePages(m.data + 1, kHugePageBytes));
  EXPECT_FALSE(CollapseHugePages(m.data, 0));
  EXPECT_TRUE(m.Intact());
}

TEST(HugePages, ReadOnlyFileMappingStaysReadable) {
  char path[] = "/tmp/linebloom_huge_pages_XXXXXX";
  const int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  unlink(path);
  const size_t size = 4 * kHugePageBytes;
  std::vector<unsigned char> bytes(size);
  for (size_t i = 0; i < size; ++i) bytes[i] = static_cast<unsigned char>(i * 7);
  ASSERT_EQ(write(fd, bytes.data(), size), static_cast<ssize_t>(size));
  void* p = mmap(nullptr, size, PROT_READ, MAP_SHARED, fd, 0);
  ASSERT_NE(p, MAP_FAILED);
  CollapseHugePages(p, size);  // may or may not collapse: either way harmless
  EXPECT_EQ(0, std::memcmp(p, bytes.data(), size));
  munmap(p, size);
  close(fd);
}

}  // namespace
}  // namespace linebloom::internal
