// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// The contents of a data block (before compression):
//
//   entry 0 .. entry n-1 | offset 0 .. offset n-1 (u32 each) | n (u32)
//   entry = varint key size | varint value size | key | value
//
// The offset array lets a lookup binary-search the block. Parse checks the
// whole structure once (every entry inside the block, exactly adjacent,
// keys strictly increasing), after which accessors decode without checks.
// Internal header.

#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace linebloom::sstable::internal {

class DataBlockBuilder {
 public:
  void Add(std::string_view key, std::string_view value);
  // Size of the contents Finish would return.
  size_t EstimatedSize() const { return buffer_.size() + 4 * offsets_.size() + 4; }
  size_t num_entries() const { return offsets_.size(); }
  bool empty() const { return offsets_.empty(); }
  // Appends the offset array and count; valid until Reset.
  std::string_view Finish();
  void Reset();

 private:
  std::string buffer_;
  std::vector<uint32_t> offsets_;
};

class DataBlock {
 public:
  // Validates `contents` (which must outlive the block). On failure returns
  // false and sets *why.
  static bool Parse(std::string_view contents, DataBlock* block, const char** why);

  size_t size() const { return count_; }
  std::string_view key(size_t i) const;
  std::string_view value(size_t i) const;
  // The first entry with key >= target, or size().
  size_t LowerBound(std::string_view target) const;

 private:
  void Decode(size_t i, std::string_view* key, std::string_view* value) const;

  std::string_view contents_;
  const char* offsets_ = nullptr;
  size_t count_ = 0;
};

}  // namespace linebloom::sstable::internal
