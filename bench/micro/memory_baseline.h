// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// The physical limit a filter query cannot beat: random 64-byte reads from a
// buffer as large as the filter.
//   independent: the addresses are known up front, so the CPU overlaps many
//                misses (memory-level parallelism) -- the throughput limit;
//   dependent:   each address is read from the previous line (a random
//                cycle through every line) -- the latency limit.
// The buffer is allocated exactly as linebloom allocates a filter
// (AlignedFilter: 64-byte aligned, and 2 MiB aligned with a huge-page hint
// from 2 MiB up), so the limit is measured on the same kind of pages.

#pragma once

#include <cstdint>
#include <memory>
#include <random>
#include <vector>

#include "linebloom/filter_builder.h"

namespace linebloom::bench {

class MemoryBaseline {
 public:
  explicit MemoryBaseline(size_t bytes) : lines_(std::max<size_t>(bytes / 64, 2)), storage_(lines_ * 64) {
    // Sattolo's algorithm: a uniformly random single cycle over all lines,
    // so the dependent walk visits every line before repeating.
    std::vector<uint64_t> next(lines_);
    for (size_t i = 0; i < lines_; ++i) next[i] = i;
    std::mt19937_64 rng(7);
    for (size_t i = lines_ - 1; i > 0; --i) std::swap(next[i], next[rng() % i]);
    auto* words = reinterpret_cast<uint64_t*>(storage_.mutable_bytes().data());
    for (size_t i = 0; i < lines_; ++i) words[i * 8] = next[i];
    random_lines_.resize(1 << 20);
    for (auto& l : random_lines_) l = rng() % lines_;
  }

  // One independent read per call; `i` walks a precomputed random sequence.
  uint64_t ReadIndependent(size_t i) const { return words()[random_lines_[i & (random_lines_.size() - 1)] * 8]; }
  // One dependent read: returns the next line to read.
  uint64_t ReadDependent(uint64_t line) const { return words()[line * 8]; }

 private:
  const uint64_t* words() const { return reinterpret_cast<const uint64_t*>(storage_.bytes().data()); }
  size_t lines_;
  AlignedFilter storage_;
  std::vector<uint64_t> random_lines_;
};

}  // namespace linebloom::bench
