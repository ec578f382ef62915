// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.

#include "bits_readers.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "key_hash_memo.h"
#include "linebloom/key_hash.h"

namespace linebloom::rocksdb_plugin {

namespace {
std::string_view View(const ::rocksdb::Slice& s) { return {s.data(), s.size()}; }

// This thread's memo (key_hash_memo.h). constinit: constant-initialised, so
// reading it needs no per-access initialisation check; initial-exec: one load
// from the thread pointer, also in the preloadable shared object (its 88
// bytes fit in the static TLS space glibc keeps for objects loaded later).
// Keys of at most this many bytes skip the memo (MayMatch).
constexpr size_t kMemoMinBytes = 16;

constinit thread_local LastKeyHash last_key_hash __attribute__((tls_model("initial-exec")));
}  // namespace

// A key longer than 16 bytes takes its hash from this thread's memo when
// the filter asked before this one was asked the same key (the levels of
// one Get). Up to 16 bytes XXH3 is a single mix, no more work than the
// memo's compare, so those keys are hashed every time. Without the memo:
//   return reader_.MayContain(View(key));
bool LinebloomBitsReader::MayMatch(const ::rocksdb::Slice& key) {
  if (key.size() <= kMemoMinBytes) return reader_.MayContain(View(key));
  return reader_.MayContainHash(MemoizedKeyHash(last_key_hash, View(key), reader_.seed()));
}

void LinebloomBitsReader::MayMatch(int num_keys, ::rocksdb::Slice** keys,
                                   bool* may_match) {
  // 32 is MultiGet's batch limit, so RocksDB's calls take one pass. The
  // reader hashes each key and prefetches its block in the same step.
  constexpr size_t kChunk = 32;
  std::string_view views[kChunk];
  const size_t total = num_keys > 0 ? static_cast<size_t>(num_keys) : 0;
  for (size_t start = 0; start < total; start += kChunk) {
    const size_t n = std::min(kChunk, total - start);
    for (size_t i = 0; i < n; ++i) views[i] = View(*keys[start + i]);
    reader_.MayContainBatch(std::span<const std::string_view>(views, n),
                            std::span<bool>(may_match + start, n));
  }
}

}  // namespace linebloom::rocksdb_plugin
