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
// should stay in the first cache level (a few dozen buckets), are fetched
// ahead, and two cycles run interleaved.

#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "linebloom/compact_hashes.h"

namespace linebloom::internal::compact {

// Where each bucket of hashes[from, from + n) starts once they are grouped:
// `*starts` gets buckets + 1 entries, bucket b is [starts[b], starts[b + 1]).
template <typename BucketOf>
void BucketStarts(CompactHashes& hashes, size_t from, size_t n, size_t buckets, const BucketOf& bucket_of,
                  std::vector<size_t>* starts) {
  starts->assign(buckets + 1, 0);
  size_t* start = starts->data();
  start[0] = from;
  hashes.ForEachSpan(from, n, [&](std::span<uint64_t> span) {
    for (uint64_t h : span) ++start[bucket_of(h) + 1];
  });
  for (size_t b = 0; b < buckets; ++b) start[b + 1] += start[b];
}

// Permutes hashes[from, from + n) so that bucket_of(h) (< buckets) never
// decreases. `*starts` gets buckets + 1 entries: bucket b is [starts[b],
// starts[b + 1]) (indices into `hashes`).
// The next free slots are freed on return, before the buckets are solved.
template <typename BucketOf>
void PartitionInPlace(CompactHashes& hashes, size_t from, size_t n, size_t buckets, const BucketOf& bucket_of,
                      std::vector<size_t>* starts) {
  BucketStarts(hashes, from, n, buckets, bucket_of, starts);
  const size_t* start = starts->data();
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
  // Two cycles run at once, interleaved, so that each one's chain of
  // dependent loads overlaps the other's. A cycle starts by taking up the
  // hash in a bucket's next free slot, which leaves a hole there, and ends
  // when a hash it carries belongs to a bucket with a hole (its own or the
  // other cycle's): the hash fills the hole. A bucket's hole is always at
  // its next free slot, so a bucket with a hole is known by its number.
  //   simple form, one cycle at a time:
  //     for each bucket b, while b has free slots: h = hash in b's next free
  //     slot; while bucket_of(h) != b: swap h with the hash in the next free
  //     slot of bucket_of(h); put h in b's next free slot.
  const auto finished = [&](size_t b) { return next[b].index >= start[b + 1]; };
  constexpr size_t kNone = ~size_t{0};
  size_t hole[2] = {kNone, kNone};
  struct Cycle {
    bool running = false;
    uint64_t hash = 0;
  } cycles[2];
  const auto step = [&](Cycle& c) {
    const size_t to = bucket_of(c.hash);
    if (to == hole[0] || to == hole[1]) [[unlikely]] {
      take(next[to]) = c.hash;
      hole[to == hole[0] ? 0 : 1] = kNone;
      c.running = false;
    } else {
      std::swap(c.hash, take(next[to]));
    }
  };
  // The first bucket below which every bucket is finished; a cycle starts at
  // the first unfinished bucket from there (or, for the second cycle, from
  // the last bucket down) without a hole.
  size_t low = 0;
  const auto start_cycle = [&](Cycle& c, bool from_top) {
    while (low < buckets && finished(low)) ++low;
    size_t b = from_top ? buckets - 1 : low;
    while (b >= low && b < buckets && (finished(b) || b == hole[0] || b == hole[1])) from_top ? --b : ++b;
    if (b < low || b >= buckets) return;
    hole[hole[0] == kNone ? 0 : 1] = b;
    c.hash = *next[b].at;
    c.running = true;
  };
  for (;;) {
    if (!cycles[0].running) start_cycle(cycles[0], false);
    if (!cycles[1].running) start_cycle(cycles[1], true);
    if (!cycles[0].running && !cycles[1].running) break;
    while (cycles[0].running && cycles[1].running) {
      step(cycles[0]);
      step(cycles[1]);
    }
    if (cycles[0].running) step(cycles[0]);
    if (cycles[1].running) step(cycles[1]);
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
