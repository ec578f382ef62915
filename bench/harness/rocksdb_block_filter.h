// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// RocksDB's built-in Bloom filter (NewBloomFilterPolicy, format_version 5:
// the cache-local "FastLocalBloom") as a micro-SSTable block filter, so that
// the harness drives it through exactly the table code linebloom goes
// through. Built on the FilterBitsBuilder/Reader declaration of
// integration/rocksdb (linebloom::rocksdb_api); this adapter lives here, not
// in sstable/, which never includes a RocksDB header.

#pragma once

#include <memory>
#include <string_view>

#include "linebloom/sstable/block_filter.h"

namespace linebloom::harness {

// The name recorded in tables built with it.
inline constexpr std::string_view kRocksdbBloomPolicyName = "rocksdb.builtin.bloom.fv5";

std::shared_ptr<const sstable::BlockFilterPolicy> NewRocksdbBloomPolicy(double bits_per_key);

// The shape of a FastLocalBloom filter, from its 5-byte trailer
// (0xFF, 0x00, num_probes, 0x00, 0x00 after the 64-byte cache lines).
struct RocksdbBloomShape {
  size_t num_lines = 0;
  int num_probes = 0;
};
bool ParseRocksdbBloom(std::string_view bytes, RocksdbBloomShape* shape);

}  // namespace linebloom::harness
