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

#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "linebloom/compact_hashes.h"

namespace linebloom::internal::compact {

// Permutes hashes[0, n) so that bucket_of(h) (< buckets) never decreases.
// `*starts` gets buckets + 1 entries: bucket b is [starts[b], starts[b + 1]).
// `*next` is scratch.
template <typename BucketOf>
void PartitionInPlace(CompactHashes& hashes, size_t n, size_t buckets, const BucketOf& bucket_of,
                      std::vector<size_t>* starts, std::vector<size_t>* next) {
  starts->assign(buckets + 1, 0);
  size_t* start = starts->data();
  hashes.ForEachSpan(0, n, [&](std::span<uint64_t> span) {
    for (uint64_t h : span) ++start[bucket_of(h) + 1];
  });
  for (size_t b = 0; b < buckets; ++b) start[b + 1] += start[b];
  next->assign(start, start + buckets);
  size_t* free = next->data();
  for (size_t b = 0; b < buckets; ++b) {
    const size_t end = start[b + 1];
    while (free[b] < end) {
      uint64_t h = hashes[free[b]];
      size_t to = bucket_of(h);
      while (to != b) {
        std::swap(h, hashes[free[to]++]);
        to = bucket_of(h);
      }
      hashes[free[b]++] = h;
    }
  }
}

}  // namespace linebloom::internal::compact
