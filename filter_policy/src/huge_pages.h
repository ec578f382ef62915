// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// Transparent huge pages for large filters. A query or an insert touches one
// random 64-byte block; with 4 KiB pages a filter of more than a few MiB
// also costs a TLB miss (and a page walk) on most of them -- a 16 MiB filter
// spans 4096 pages, more than a second-level TLB holds -- while 2 MiB pages
// cover it with 8 entries. madvise(MADV_HUGEPAGE) asks the kernel for huge
// pages on the 2 MiB-aligned part of a range; it must come before the first
// touch, is only a hint, and is ignored where it does not apply (file
// mappings, kernels without THP, THP "never").
//
// Internal header.

#pragma once

#include <cstddef>
#include <cstdint>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace linebloom::internal {

inline constexpr size_t kHugePageBytes = size_t{2} << 20;

// Whether large filters can expect huge pages: Linux with transparent huge
// pages in "always" or "madvise" mode, unless the environment sets
// LINEBLOOM_HUGE_PAGES=0 (then no hints are given either). Read once.
bool HugePagesEnabled();

// The whole 2 MiB pages inside [data, data + size): [begin, end), empty
// when end <= begin.
struct HugePageRange {
  uintptr_t begin, end;
};
inline HugePageRange WholeHugePages(const void* data, size_t size) {
  const auto start = reinterpret_cast<uintptr_t>(data);
  return {(start + kHugePageBytes - 1) & ~(kHugePageBytes - 1), (start + size) & ~(kHugePageBytes - 1)};
}

// Hints huge pages for the whole 2 MiB pages inside [data, data + size).
inline void AdviseHugePages(void* data, size_t size) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  if (!HugePagesEnabled()) return;
  const HugePageRange pages = WholeHugePages(data, size);
  if (pages.end > pages.begin) madvise(reinterpret_cast<void*>(pages.begin), pages.end - pages.begin, MADV_HUGEPAGE);
#else
  (void)data;
  (void)size;
#endif
}

// Backs the whole 2 MiB pages inside [data, data + size), memory already
// written (a filter read into a buffer someone else allocated, such as
// RocksDB's block), with huge pages now: madvise(MADV_COLLAPSE), Linux 6.1
// and later, copies each into a huge page in place; the bytes and the
// addresses do not change. Best effort, skipped where AdviseHugePages is
// (HugePagesEnabled): on an error (an older kernel, no huge page free, a
// mapping that cannot hold one) the range stays as it was. Returns whether
// the kernel collapsed every such page (false also when there is none).
bool CollapseHugePages(const void* data, size_t size);

}  // namespace linebloom::internal
