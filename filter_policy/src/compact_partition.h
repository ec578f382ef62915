// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// Groups hashes by bucket in place, for building a compact filter a bucket
// of lines at a time (compact_build.cc) with no second copy of the hashes.
// Internal header.
//
// An American flag sort: a counting pass gives each bucket its range, then
// each slot of bucket b in turn is filled by following a cycle: the hash
// found there goes to the next free slot of its bucket, the hash found
// there to the next free slot of its own, and so on until one of bucket b
// comes back. Every hash moves at most once, straight to its final slot,
// and the next free slots of the buckets are the only streams written.
// Each step waits for the load of the hash it displaces, so the streams
// should stay in the first cache level (a few dozen buckets) and are
// fetched ahead.

#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "linebloom/compact_hashes.h"

namespace linebloom::internal::compact {

// Permutes hashes[from, from + n) so that bucket_of(h) (< buckets) never
// decreases. `*starts` gets buckets + 1 entries: bucket b is [starts[b],
// starts[b + 1]) (indices into `hashes`).
// The next free slots are freed on return, before the buckets are solved.
template <typename BucketOf>
void PartitionInPlace(CompactHashes& hashes, size_t from, size_t n, size_t buckets, const BucketOf& bucket_of,
                      std::vector<size_t>* starts) {
  starts->assign(buckets + 1, 0);
  size_t* start = starts->data();
  start[0] = from;
  hashes.ForEachSpan(from, n, [&](std::span<uint64_t> span) {
    for (uint64_t h : span) ++start[bucket_of(h) + 1];
  });
  for (size_t b = 0; b < buckets; ++b) start[b + 1] += start[b];
  // Each bucket's next free slot, as an index and a pointer: the pointer
  // keeps the page table off the chain of dependent loads.
  struct Cursor {
    size_t index;
    uint64_t* at;
  };
  constexpr uintptr_t kAheadBytes = 128;
  const size_t limit = from + n;
  std::vector<Cursor> next(buckets);
  for (size_t b = 0; b < buckets; ++b) next[b] = {start[b], start[b] < limit ? &hashes[start[b]] : nullptr};
  const auto take = [&](Cursor& c) -> uint64_t& {
    // The chain waits on each load: fetch a bucket's slots ahead of it (an
    // address past the page is only a hint, never dereferenced).
    __builtin_prefetch(reinterpret_cast<const void*>(reinterpret_cast<uintptr_t>(c.at) + kAheadBytes), 1);
    uint64_t& slot = *c.at++;
    if ((++c.index & CompactHashes::kChunkMask) == 0) [[unlikely]] {
      c.at = c.index < limit ? &hashes[c.index] : nullptr;
    }
    return slot;
  };
  for (size_t b = 0; b < buckets; ++b) {
    const size_t end = start[b + 1];
    Cursor& mine = next[b];
    while (mine.index < end) {
      uint64_t h = *mine.at;
      size_t to = bucket_of(h);
      while (to != b) {
        std::swap(h, take(next[to]));
        to = bucket_of(h);
      }
      take(mine) = h;
    }
  }
}

}  // namespace linebloom::internal::compact
