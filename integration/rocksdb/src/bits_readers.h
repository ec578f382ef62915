// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// The FilterBitsReaders GetFilterBitsReader hands to RocksDB: one for a
// parsed linebloom filter, one for a parsed compact filter, one for a filter
// with no keys, and one for bytes that are not a usable filter.

#pragma once

#include <string_view>

#include "linebloom/compact_filter.h"
#include "linebloom/filter_reader.h"
#include "linebloom/rocksdb/filter_bits.h"

namespace linebloom::rocksdb_plugin {

// A reader of a parsed, non-empty filter, for RocksDB to own. It is bound to
// the probe kernel active when it is made (linebloom/kernel.h), so a query
// is RocksDB's virtual call and nothing else: hashing and probing are
// compiled into the override; for a filter of seed 0 (every filter the
// plugin writes) it hashes with the seed as a constant, so the key's hash
// does not wait for the reader's fields. RocksDB keeps the filter bytes
// alive (in the block cache or the table reader) for as long as it keeps
// the reader.
//
// MultiGet (MayMatch on num_keys keys) hashes each key and prefetches its
// block before probing any, so the cache misses of a batch overlap instead
// of queueing; any num_keys works (RocksDB passes at most 32) and nothing is
// allocated.
::rocksdb::FilterBitsReader* NewLinebloomBitsReader(const FilterReader& reader);

// A reader of a parsed compact filter with at least one layer
// (linebloom/compact_filter.h), for RocksDB to own; RocksDB keeps the bytes
// alive as above. Like the Bloom readers it is bound to the answer form the
// kernel allows when it is made, and the query is compiled into the
// override. A batch hashes its keys (32 at a time, nothing allocated) and
// prefetches every first-layer line -- both cache lines of it where the
// buffer leaves lines across two -- before the first answer. `bytes` are
// the filter's (the reader's source): their whole huge pages are collapsed
// as the Bloom reader's are.
::rocksdb::FilterBitsReader* NewCompactBitsReader(const CompactFilterReader& reader, std::string_view bytes);

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
