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

#include <algorithm>
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

// As PartitionInPlace, through `scratch` (n hashes and n bytes, grown as
// needed): a counting pass that notes each hash's bucket, a scatter into
// the scratch, a copy back. For up to 256 buckets. Every step is a stream,
// with no chain of dependent loads, so where n hashes are few enough for
// the scratch to be no burden (a small layer) this is the faster one.
template <typename BucketOf>
void PartitionThroughScratch(CompactHashes& hashes, size_t from, size_t n, size_t buckets, const BucketOf& bucket_of,
                             std::vector<size_t>* starts, std::vector<uint64_t>* scratch,
                             std::vector<uint8_t>* bucket_ids) {
  starts->assign(buckets + 1, 0);
  size_t* start = starts->data();
  if (scratch->size() < n) *scratch = std::vector<uint64_t>(n);
  if (bucket_ids->size() < n) *bucket_ids = std::vector<uint8_t>(n);
  uint8_t* id = bucket_ids->data();
  hashes.ForEachSpan(from, n, [&](std::span<uint64_t> span) {
    for (uint64_t h : span) {
      const size_t b = bucket_of(h);
      *id++ = static_cast<uint8_t>(b);
      ++start[b + 1];
    }
  });
  for (size_t b = 0; b < buckets; ++b) start[b + 1] += start[b];
  // start[b] counts from 0 here; the scatter moves them to the ends of the
  // buckets, and the copy back shifts them by `from`.
  uint64_t* out = scratch->data();
  id = bucket_ids->data();
  hashes.ForEachSpan(from, n, [&](std::span<uint64_t> span) {
    for (uint64_t h : span) out[start[*id++]++] = h;
  });
  for (size_t b = buckets; b > 0; --b) start[b] = start[b - 1] + from;
  start[0] = from;
  const uint64_t* in = scratch->data();
  hashes.ForEachSpan(from, n, [&](std::span<uint64_t> span) {
    std::copy(in, in + span.size(), span.begin());
    in += span.size();
  });
}

}  // namespace linebloom::internal::compact
