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
// ahead, and two cycles run interleaved. PartitionByPages groups without
// that chain, given a scratch of two pages of hashes per bucket.

#pragma once

#include <algorithm>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <cstring>
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

// A PartitionByPages scratch: buffer b is slots [b kPage, b kPage + fill[b])
// (a slot holds a hash, in its bytes: the scratch may be unaligned), and
// the written page of b moved out of its way is slots [(buckets + b) kPage,
// (buckets + b + 1) kPage).
class PageScratch {
 public:
  static constexpr size_t kPage = CompactHashes::kChunkHashes;
  PageScratch(unsigned char* bytes, size_t buckets)
      : bytes_(bytes), buckets_(buckets), fill_(buckets, 0), moved_(buckets, 0) {}

  // Appends `h` to buffer b; true once the buffer is full (a page).
  bool Add(size_t b, uint64_t h) {
    std::memcpy(Slot(b * kPage + fill_[b]), &h, sizeof(h));
    return ++fill_[b] == kPage;
  }
  // Moves buffer b's full page to `page`.
  void Flush(size_t b, uint64_t* page) {
    std::memcpy(page, Slot(b * kPage), kPage * sizeof(uint64_t));
    fill_[b] = 0;
  }
  size_t fill(size_t b) const { return fill_[b]; }
  // Keeps `page`, b's written page moved out of its way.
  void KeepMoved(size_t b, const uint64_t* page) {
    std::memcpy(Slot((buckets_ + b) * kPage), page, kPage * sizeof(uint64_t));
    moved_[b] = kPage;
  }
  // Hash i of b's loose ones: the moved page's (if any), then the buffer's.
  uint64_t Loose(size_t b, size_t i) const {
    const size_t moved = moved_[b];
    uint64_t h;
    std::memcpy(&h, i < moved ? Slot((buckets_ + b) * kPage + i) : Slot(b * kPage + (i - moved)), sizeof(h));
    return h;
  }

 private:
  unsigned char* Slot(size_t i) const { return bytes_ + i * sizeof(uint64_t); }

  unsigned char* bytes_;
  size_t buckets_;
  std::vector<uint32_t> fill_;
  std::vector<uint32_t> moved_;  // hashes of b's moved page kept: 0 or kPage
};

// Scratch bytes PartitionByPages needs: two pages per bucket.
inline constexpr size_t PartitionByPagesBytes(size_t buckets) {
  return 2 * buckets * PageScratch::kPage * sizeof(uint64_t);
}

// The second step of PartitionByPages: pages [first_page, first_page +
// page_bucket.size()) hold bucket page_bucket[p] each, the range's other
// full pages are free, and the rest of each bucket is in `scratch`. Moves
// the written pages to their bucket's place by exchanging entries of the
// page table, and fills the pages where buckets meet from the scratch.
inline void PlacePages(CompactHashes& hashes, size_t from, size_t n, const std::vector<uint32_t>& page_bucket,
                       PageScratch& scratch, size_t buckets, std::vector<size_t>* starts) {
  constexpr size_t kPage = PageScratch::kPage;
  const size_t first_page = from / kPage;
  const size_t full_pages = n / kPage;
  const size_t written = page_bucket.size();
  std::vector<size_t> first_of(buckets + 1, 0);  // written pages by bucket: a counting sort
  for (uint32_t b : page_bucket) ++first_of[b + 1];
  starts->assign(buckets + 1, from);
  size_t* start = starts->data();
  for (size_t b = 0; b < buckets; ++b) {
    start[b + 1] = start[b] + first_of[b + 1] * kPage + scratch.fill(b);
    first_of[b + 1] += first_of[b];
  }
  std::vector<uint64_t*> by_bucket(written);
  {
    std::vector<size_t> at(first_of.begin(), first_of.end() - 1);
    for (size_t p = 0; p < written; ++p) by_bucket[at[page_bucket[p]]++] = hashes.page(first_page + p);
  }
  // Pages read and not written are free, and so is each bucket's written
  // page beyond those it fills whole (at most one: its hashes are fewer
  // than a page more than the pages it fills), once kept in the scratch.
  std::vector<uint64_t*> free_pages;
  for (size_t p = written; p < full_pages; ++p) free_pages.push_back(hashes.page(first_page + p));
  const auto page_ceil = [](size_t i) { return (i + kPage - 1) / kPage; };
  for (size_t b = 0; b < buckets; ++b) {
    const size_t inner = std::max(start[b + 1] / kPage, page_ceil(start[b])) - page_ceil(start[b]);
    if (first_of[b + 1] - first_of[b] > inner) {
      uint64_t* extra = by_bucket[first_of[b] + inner];
      scratch.KeepMoved(b, extra);
      free_pages.push_back(extra);
    }
    for (size_t q = 0; q < inner; ++q) hashes.page(page_ceil(start[b]) + q) = by_bucket[first_of[b] + q];
  }
  // The pages where buckets meet (a bucket starts inside them) take the
  // free pages, as many; the partial last page stays.
  size_t next_free = 0;
  size_t last_met = ~size_t{0};
  for (size_t b = 1; b < buckets; ++b) {
    const size_t p = start[b] / kPage;
    if (start[b] % kPage != 0 && p != last_met && p < first_page + full_pages) {
      hashes.page(p) = free_pages[next_free++];
      last_met = p;
    }
  }
  assert(next_free == free_pages.size());
  for (size_t b = 0; b < buckets; ++b) {
    const size_t head_end = std::min(start[b + 1], page_ceil(start[b]) * kPage);
    size_t i = 0;
    for (size_t at = start[b]; at < head_end; ++at) hashes[at] = scratch.Loose(b, i++);
    for (size_t at = std::max(head_end, start[b + 1] / kPage * kPage); at < start[b + 1]; ++at) {
      hashes[at] = scratch.Loose(b, i++);
    }
  }
}

// As PartitionInPlace, for `from` on a page boundary (a multiple of
// CompactHashes::kChunkHashes), with PartitionByPagesBytes(buckets) bytes of
// `scratch` (any alignment). No chain of dependent loads: the hashes are
// read once, in order, each appended to its bucket's page of the scratch,
// and a full page of the scratch is copied over the next page of the range
// already read (there always is one: the pages written hold fewer hashes
// than were read). Then every page written holds one bucket, and the rest
// of each bucket (less than a page) is in the scratch; PlacePages puts
// them in order.
//   simple form: stable_partition by bucket_of into a second copy.
template <typename BucketOf>
void PartitionByPages(CompactHashes& hashes, size_t from, size_t n, size_t buckets, const BucketOf& bucket_of,
                      std::vector<size_t>* starts, unsigned char* scratch_bytes) {
  constexpr size_t kPage = PageScratch::kPage;
  const size_t first_page = from / kPage;
  const size_t full_pages = n / kPage;
  PageScratch scratch(scratch_bytes, buckets);
  std::vector<uint32_t> page_bucket;
  page_bucket.reserve(full_pages);
  const auto add = [&](uint64_t h) {
    const size_t b = bucket_of(h);
    if (scratch.Add(b, h)) [[unlikely]] {
      scratch.Flush(b, hashes.page(first_page + page_bucket.size()));
      page_bucket.push_back(static_cast<uint32_t>(b));
    }
  };
  for (size_t p = 0; p < full_pages; ++p) {
    const uint64_t* in = hashes.page(first_page + p);
    for (size_t j = 0; j < kPage; ++j) add(in[j]);
  }
  // The partial last page's hashes of the range; those after it stay.
  for (size_t j = 0; j < n % kPage; ++j) add(hashes.page(first_page + full_pages)[j]);
  PlacePages(hashes, from, n, page_bucket, scratch, buckets, starts);
}

}  // namespace linebloom::internal::compact
