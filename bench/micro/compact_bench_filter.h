// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// linebloom's compact filter through its C++ API, in the shape of
// bench_filters.h (Build, MayMatch, MayMatchBatch, SizeBytes), so any
// benchmark over that shape takes it as a row. The finished bytes are
// copied to 64-byte-aligned memory (AlignedFilter), so every line of the
// filter is one cache line, as the format means it to be read.

#pragma once

#include <span>
#include <stdexcept>
#include <string>
#include <string_view>

#include "linebloom/compact_filter.h"
#include "linebloom/filter_memory.h"

namespace linebloom::bench {

class CompactCoreFilter {
 public:
  explicit CompactCoreFilter(double bits_per_key) : bits_per_key_(bits_per_key) {}

  void Build(std::span<const std::string_view> keys) {
    reader_ = CompactFilterReader();
    bytes_ = AlignedFilter();
    std::string finished;
    {
      CompactFilterBuilder builder({.bits_per_key = bits_per_key_});
      for (std::string_view k : keys) builder.AddKey(k);
      finished = builder.Finish();
      // A Bloom filter in compact clothing would measure the wrong kind.
      if (!builder.fallback_reason().empty())
        throw std::runtime_error("compact build fell back to Bloom: " + builder.fallback_reason());
    }
    bytes_ = AlignedFilter::Copy(finished);
    const ParseResult r = CompactFilterReader::Parse(bytes_.bytes(), &reader_);
    if (!r.ok()) throw std::runtime_error(r.message());
  }
  bool MayMatch(std::string_view key) const { return reader_.MayContain(key); }
  void MayMatchBatch(std::span<const std::string_view> keys, std::span<bool> answers) const {
    reader_.MayContainBatch(keys, answers);
  }
  size_t SizeBytes() const { return bytes_.bytes().size(); }

 private:
  double bits_per_key_;
  AlignedFilter bytes_;
  CompactFilterReader reader_;
};

}  // namespace linebloom::bench
