// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.

#include "bits_readers.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace linebloom::rocksdb_plugin {

namespace {
std::string_view View(const ::rocksdb::Slice& s) { return {s.data(), s.size()}; }
}  // namespace

bool LinebloomBitsReader::MayMatch(const ::rocksdb::Slice& key) { return reader_.MayContain(View(key)); }

void LinebloomBitsReader::MayMatch(int num_keys, ::rocksdb::Slice** keys, bool* may_match) {
  // 32 is MultiGet's batch limit, so RocksDB's calls take one pass. The
  // reader hashes each key and prefetches its block in the same step.
  constexpr size_t kChunk = 32;
  std::string_view views[kChunk];
  const size_t total = num_keys > 0 ? static_cast<size_t>(num_keys) : 0;
  for (size_t start = 0; start < total; start += kChunk) {
    const size_t n = std::min(kChunk, total - start);
    for (size_t i = 0; i < n; ++i) views[i] = View(*keys[start + i]);
    reader_.MayContainBatch(std::span<const std::string_view>(views, n), std::span<bool>(may_match + start, n));
  }
}

}  // namespace linebloom::rocksdb_plugin
