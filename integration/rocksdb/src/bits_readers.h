// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// The FilterBitsReaders GetFilterBitsReader hands to RocksDB: one for a
// parsed linebloom filter, one for a filter with no keys, and one for bytes
// that are not a usable filter.

#pragma once

#include "linebloom/filter_reader.h"
#include "linebloom/rocksdb/filter_bits.h"

namespace linebloom::rocksdb_plugin {

// Queries a parsed filter. RocksDB keeps the filter bytes alive (in the block
// cache or the table reader) for as long as it keeps this reader.
class LinebloomBitsReader final : public ::rocksdb::FilterBitsReader {
 public:
  explicit LinebloomBitsReader(const FilterReader& reader) : reader_(reader) {}

  bool MayMatch(const ::rocksdb::Slice& key) override;

  // MultiGet: hashes the keys into a stack array and lets the core reader
  // prefetch every key's block before probing any, so the cache misses of a
  // batch overlap instead of queueing. Any num_keys works (RocksDB passes at
  // most 32); nothing is allocated.
  void MayMatch(int num_keys, ::rocksdb::Slice** keys, bool* may_match) override;

 private:
  FilterReader reader_;
};

// A filter built from zero keys: every answer is "no", without hashing.
class EmptyFilterBitsReader final : public ::rocksdb::FilterBitsReader {
 public:
  bool MayMatch(const ::rocksdb::Slice&) override { return false; }
  void MayMatch(int num_keys, ::rocksdb::Slice**, bool* may_match) override {
    for (int i = 0; i < num_keys; ++i) may_match[i] = false;
  }
};

// Bytes that did not parse: every answer is "may match", so a damaged or
// unknown filter costs reads but never loses a key.
class AlwaysMayMatchBitsReader final : public ::rocksdb::FilterBitsReader {
 public:
  bool MayMatch(const ::rocksdb::Slice&) override { return true; }
  void MayMatch(int num_keys, ::rocksdb::Slice**, bool* may_match) override {
    for (int i = 0; i < num_keys; ++i) may_match[i] = true;
  }
};

}  // namespace linebloom::rocksdb_plugin
