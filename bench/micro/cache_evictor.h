// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// Writes one word per cache line of a buffer: with more bytes than the last
// cache level holds, what runs next starts from cold caches (its code, its
// data), as a filter build or the planner's per-file work inside a
// compaction follows the compaction's own reads and writes.

#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace linebloom::bench {

class CacheEvictor {
 public:
  explicit CacheEvictor(double mb) : words_(static_cast<size_t>(mb * (1 << 20)) / sizeof(uint64_t)) {}
  void Run() {
    for (size_t i = 0; i < words_.size(); i += 64 / sizeof(uint64_t)) words_[i] += 1;
  }

 private:
  std::vector<uint64_t> words_;
};

}  // namespace linebloom::bench
