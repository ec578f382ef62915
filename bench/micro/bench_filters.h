// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// The filters linebloom-bench compares, behind one small value-type shape so
// each benchmark is a template over the filter (no extra virtual call per
// key beyond the one RocksDB itself makes):
//   Build(keys) ; MayMatch(key) ; MayMatchBatch(keys, answers) ; SizeBytes()

#pragma once

#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "linebloom/filter_builder.h"
#include "linebloom/filter_reader.h"

namespace linebloom::bench {

// linebloom through its own C++ API: what a custom engine links.
class CoreFilter {
 public:
  explicit CoreFilter(double bits_per_key) : bits_per_key_(bits_per_key) {}

  void Build(std::span<const std::string_view> keys) {
    FilterBuilder builder({.bits_per_key = bits_per_key_});
    builder.Reserve(keys.size());
    for (std::string_view k : keys) builder.AddKey(k);
    bytes_ = builder.FinishAligned();
    const ParseResult r = FilterReader::Parse(bytes_.bytes(), &reader_);
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
  FilterReader reader_;
};

}  // namespace linebloom::bench
