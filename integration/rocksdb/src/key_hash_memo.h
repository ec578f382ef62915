// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// Hash once per Get. A point lookup of a key that is in no SST asks one
// filter per level (and per L0 file) for the same key, one after another on
// the same thread; each FilterBitsReader::MayMatch is handed only the key, so
// each would hash it again. The memo keeps, per thread, the last key hashed
// (a copy of its bytes, its length and the seed) and its hash, and answers a
// repeat with a compare instead of a hash.
//
// Correctness: the hash is a function of (bytes, seed) alone, and a repeat is
// recognised only when the length, the seed and every byte are equal, so the
// memo returns exactly KeyHash(key, seed). Whatever the bytes are -- a whole
// key, a prefix (a prefix is a different, shorter byte string), a key reused
// from the same buffer with new contents -- they are compared, never the
// pointer. Each thread has its own memo (thread_local), so nothing is shared
// and nothing needs a lock; a reader shared by threads sees each thread's
// own. Keys longer than kMaxBytes are hashed every time (not copied).
//
// Cost, in instructions: a repeat costs the thread-local lookup and
// ceil(len / 8) word compares; a new key costs that compare (failing, mostly
// at the first word) plus a copy of ceil(len / 8) words, on top of the hash.
// XXH3 of a short key is itself only a few dozen instructions, so the memo
// pays only because a Get repeats the key at every level (one new key, then
// levels - 1 repeats); bench/micro/query_cost.sh --op get5 counts it.

#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "linebloom/key_hash.h"

namespace linebloom::rocksdb_plugin {

// The last key a thread hashed, and its hash. Each thread has its own
// (bits_readers.cc holds it, thread_local).
struct LastKeyHash {
  static constexpr size_t kMaxBytes = 64;
  size_t size = kMaxBytes + 1;  // matches no key: the memo starts empty
  uint32_t seed = 0;
  uint64_t hash = 0;
  char bytes[kMaxBytes] = {};
};

// a[0, n) == b[0, n), n <= LastKeyHash::kMaxBytes, in 8-byte words: for
// n >= 8 the last word is read at n - 8, overlapping the one before it, so no
// byte outside either key is read. Plain form: std::memcmp(a, b, n) == 0 (a
// library call that costs about as much as hashing a 16-byte key).
inline bool SameKeyBytes(const char* a, const char* b, size_t n) {
  auto word = [](const char* p) {
    uint64_t w;
    std::memcpy(&w, p, sizeof w);
    return w;
  };
  if (n < 8) {
    for (size_t i = 0; i < n; ++i) {
      if (a[i] != b[i]) return false;
    }
    return true;
  }
  for (size_t i = 0; i + 8 < n; i += 8) {
    if (word(a + i) != word(b + i)) return false;
  }
  return word(a + n - 8) == word(b + n - 8);
}

// Hashes `key` and makes it the key `memo` holds. Out of line: the repeat
// path of MemoizedKeyHash then needs no registers saved.
__attribute__((noinline)) inline uint64_t HashAndRemember(LastKeyHash& memo, std::string_view key,
                                                          uint32_t seed) {
  const uint64_t hash = KeyHash(key, seed);
  if (key.size() <= LastKeyHash::kMaxBytes) {
    memo.size = key.size();
    memo.seed = seed;
    memo.hash = hash;
    std::memcpy(memo.bytes, key.data(), key.size());
  }
  return hash;
}

// KeyHash(key, seed), from `memo` when `key` repeats the key it holds;
// otherwise hashes and remembers `key` (if it is at most kMaxBytes long: a
// longer one never matches memo.size).
inline uint64_t MemoizedKeyHash(LastKeyHash& memo, std::string_view key, uint32_t seed) {
  if (memo.size == key.size() && memo.seed == seed && SameKeyBytes(memo.bytes, key.data(), key.size())) {
    return memo.hash;
  }
  return HashAndRemember(memo, key, seed);
}

}  // namespace linebloom::rocksdb_plugin
