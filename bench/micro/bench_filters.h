// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// The filters linebloom-bench compares, behind one small value-type shape so
// each benchmark is a template over the filter (no extra virtual call per
// key beyond the one RocksDB itself makes):
//   Build(keys) ; MayMatch(key) ; MayMatchBatch(keys, answers) ; SizeBytes()

#pragma once

#include <algorithm>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "linebloom/filter_builder.h"
#include "linebloom/filter_reader.h"

namespace linebloom::bench {

// linebloom through its own C++ API: what a custom engine links. The
// filter is queried where FinishAligned puts it (64-byte aligned), or, with
// `line_offset` > 0, from a copy that many bytes past a 64-byte boundary in
// the same kind of memory, so that every block straddles two cache lines
// as in a block read into a 16-byte aligned buffer.
class CoreFilter {
 public:
  explicit CoreFilter(double bits_per_key, size_t line_offset = 0)
      : bits_per_key_(bits_per_key), line_offset_(line_offset) {}

  void Build(std::span<const std::string_view> keys) {
    FilterBuilder builder({.bits_per_key = bits_per_key_});
    builder.Reserve(keys.size());
    for (std::string_view k : keys) builder.AddKey(k);
    bytes_ = builder.FinishAligned();
    std::string_view filter = bytes_.bytes();
    if (line_offset_ > 0) {
      AlignedFilter moved(filter.size() + line_offset_);
      char* start = moved.mutable_bytes().data() + line_offset_;
      std::copy(filter.begin(), filter.end(), start);
      bytes_ = std::move(moved);
      filter = std::string_view(start, filter.size());
    }
    const ParseResult r = FilterReader::Parse(filter, &reader_);
    if (!r.ok()) throw std::runtime_error(r.message());
    size_bytes_ = filter.size();
  }
  bool MayMatch(std::string_view key) const { return reader_.MayContain(key); }
  void MayMatchBatch(std::span<const std::string_view> keys, std::span<bool> answers) const {
    reader_.MayContainBatch(keys, answers);
  }
  size_t SizeBytes() const { return size_bytes_; }

 private:
  double bits_per_key_;
  size_t line_offset_;
  size_t size_bytes_ = 0;
  AlignedFilter bytes_;
  FilterReader reader_;
};

}  // namespace linebloom::bench
