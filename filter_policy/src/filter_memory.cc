// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.

#include "linebloom/filter_memory.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>

#include "huge_pages.h"
#include "linebloom/filter_format.h"

namespace linebloom {

void* AllocateFilterMemory(size_t size) {
  const size_t alignment = size >= internal::kHugePageBytes ? internal::kHugePageBytes : kFilterBlockBytes;
  void* memory = nullptr;
  // posix_memalign, not aligned_alloc: the size need not be rounded up to
  // the alignment, so a filter just over 2 MiB does not reserve 4.
  if (posix_memalign(&memory, alignment, std::max<size_t>(size, 1)) != 0) throw std::bad_alloc();
  // Only the whole huge pages inside the filter are hinted: a partly used
  // last one would cost a full 2 MiB of memory.
  internal::AdviseHugePages(memory, size);
  return memory;
}

void FreeFilterMemory(void* memory) { std::free(memory); }

AlignedFilter::AlignedFilter(size_t size) : data_(static_cast<char*>(AllocateFilterMemory(size))), size_(size) {}

AlignedFilter AlignedFilter::Copy(std::string_view bytes) {
  AlignedFilter filter(bytes.size());
  std::memcpy(filter.data_.get(), bytes.data(), bytes.size());
  return filter;
}

}  // namespace linebloom
