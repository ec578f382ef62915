// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// Live and peak heap bytes of the whole process, for a benchmark's "peak
// build memory". Linking alloc_tracker.cc into an executable replaces the
// global operator new and delete (every form), which RocksDB's library uses
// as well, and interposes posix_memalign, aligned_alloc and free, which
// linebloom's filter memory (AllocateFilterMemory) and RocksDB's aligned
// allocations use. Bytes are counted as malloc_usable_size reports them,
// so a block counts what it really holds, slack included. Memory from plain
// malloc/calloc/realloc is not counted (neither library builds a filter in
// it). Under a sanitizer, which owns the C allocator, only operator new
// and delete are counted.

#pragma once

#include <cstddef>

namespace linebloom::bench {

// Bytes counted and not yet freed.
size_t LiveHeapBytes();
// The most LiveHeapBytes has been since the last ResetPeakHeapBytes.
size_t PeakHeapBytes();
// Starts a new peak at the current live bytes.
void ResetPeakHeapBytes();

// The peak of live bytes during a scope, above those live at its start.
class PeakHeapScope {
 public:
  PeakHeapScope() : start_(LiveHeapBytes()) { ResetPeakHeapBytes(); }
  size_t PeakAboveStart() const {
    const size_t peak = PeakHeapBytes();
    return peak > start_ ? peak - start_ : 0;
  }

 private:
  size_t start_;
};

}  // namespace linebloom::bench
