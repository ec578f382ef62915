// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// A layer is built a bucket of consecutive lines at a time, in the memory
// of the hashes themselves: the layer's hashes are grouped by bucket in
// place (compact_partition.h); a bucket's hashes are sorted by line and,
// within a line, by order (one counting sort over (line, order)) into a
// scratch of the bucket's size, and its lines are solved. Its range of the
// hashes is then free, and the hashes go back as the layers need them: the
// bumped ones of the layer so far to the front, the stored ones behind. So
// the layer's bumped hashes end as a prefix, the next layer's input, and
// the hashes stay whole (a Bloom fallback, or a check of the filter, reads
// them after the build). A bucket holds 2 to 256 lines, as many as keep the
// buckets at most about kMaxBuckets, so that the partition writes a number
// of streams that stays in cache and the scratch stays small.
//
// The line written depends only on the set of keys stored in it
// (compact_line_solver.h), so the order the hashes come in does not change
// the filter's bytes.

#include "compact_build.h"

#include <algorithm>
#include <bit>
#include <span>
#include <vector>

#include "compact_layout.h"
#include "compact_line_solver.h"
#include "compact_partition.h"
#include "linebloom/foundation/coding.h"
#include "trailer.h"

namespace linebloom::internal::compact {
namespace {

constexpr size_t kMaxBuckets = 2048;
constexpr int kMinBucketShift = 1;
constexpr int kMaxBucketShift = 8;
// Slots of the (line, order) counting sort: a line's orders are < 128.
constexpr int kOrderSlots = 128;
// Keys a layer is expected to bump, for reserving the filter's bytes once:
// a shape bumps at most 4.5 % of its keys (linebloom/compact_math.h).
constexpr double kReservedBumpShare = 0.06;

// Memory the layers reuse, sized by the largest bucket.
struct Scratch {
  std::vector<size_t> starts, next;  // of each bucket
  std::vector<uint32_t> slot_start;  // of each (line, order) of a bucket
  std::vector<uint16_t> slot_of;     // each key's (line, order), in hash order
  std::vector<uint64_t> keys;        // the bucket's keys by line, then order
  std::vector<uint8_t> orders;       // theirs
  LineSolver solver;
};

// log2 of the lines per bucket for a layer of `lines` lines.
int BucketShift(uint32_t lines) {
  const size_t per_bucket = (lines + kMaxBuckets - 1) / kMaxBuckets;
  return std::clamp(static_cast<int>(std::bit_width(per_bucket - 1)), kMinBucketShift, kMaxBucketShift);
}

class LayerBuilder {
 public:
  LayerBuilder(CompactHashes& hashes, size_t count, int layer, uint32_t lines, int r, Scratch* scratch)
      : hashes_(hashes), count_(count), layer_(layer), lines_(lines), r_(r), shift_(BucketShift(lines)), s_(*scratch) {}

  // Solves the lines into out[0, 64 lines). Returns how many keys were
  // bumped: hashes[0, that) are they, hashes[that, count) the stored ones.
  size_t Build(unsigned char* out) {
    const size_t buckets = ((lines_ - 1) >> shift_) + 1;
    PartitionInPlace(
        hashes_, count_, buckets, [this](uint64_t h) { return SlotOfKey(h).line >> shift_; }, &s_.starts, &s_.next);
    FitScratch(buckets);
    for (size_t b = 0; b < buckets; ++b) {
      const uint32_t first = static_cast<uint32_t>(b << shift_);
      const uint32_t end = std::min(lines_, first + (uint32_t{1} << shift_));
      SortBucket(s_.starts[b], s_.starts[b + 1], first, end - first);
      SolveBucket(s_.starts[b], s_.starts[b + 1], first, end - first, out);
    }
    return bumped_;
  }

 private:
  Slot SlotOfKey(uint64_t h) const { return SlotOf(LayerHash(h, layer_), lines_); }

  // Sizes the scratch for the largest bucket, exactly: it is most of the
  // build's memory beyond the hashes and the filter for small filters.
  void FitScratch(size_t buckets) {
    size_t most = 0;
    for (size_t b = 0; b < buckets; ++b) most = std::max(most, s_.starts[b + 1] - s_.starts[b]);
    if (s_.keys.size() >= most) return;
    s_.keys = std::vector<uint64_t>(most);
    s_.orders = std::vector<uint8_t>(most);
    s_.slot_of = std::vector<uint16_t>(most);
    s_.slot_start.reserve((size_t{1} << shift_) * kOrderSlots + 1);
  }

  // Counting sort of hashes[from, to), of lines [first, first + lines),
  // by (line, order) into s_.keys and s_.orders; s_.slot_start[l *
  // kOrderSlots] is then where line first + l starts (l <= lines).
  void SortBucket(size_t from, size_t to, uint32_t first, uint32_t lines) {
    const size_t k = to - from;
    const size_t slots = size_t{lines} * kOrderSlots;
    s_.slot_start.assign(slots + 1, 0);
    uint32_t* start = s_.slot_start.data();
    uint16_t* slot_of = s_.slot_of.data();
    hashes_.ForEachSpan(from, k, [&](std::span<uint64_t> span) {
      for (uint64_t h : span) {
        const Slot slot = SlotOfKey(h);
        const uint16_t at = static_cast<uint16_t>((slot.line - first) * kOrderSlots + slot.order);
        *slot_of++ = at;
        ++start[at + 1];
      }
    });
    for (size_t i = 0; i < slots; ++i) start[i + 1] += start[i];
    slot_of = s_.slot_of.data();
    uint64_t* keys = s_.keys.data();
    uint8_t* orders = s_.orders.data();
    std::vector<uint32_t>& next = s_.slot_start;
    // Placed from the end of each slot backwards, so that slot_start keeps
    // each slot's start afterwards.
    for (size_t i = 0; i < slots; ++i) start[i] = start[i + 1];
    size_t i = 0;
    hashes_.ForEachSpan(from, k, [&](std::span<uint64_t> span) {
      for (uint64_t h : span) {
        const uint16_t at = slot_of[i++];
        const uint32_t to_slot = --next[at];
        keys[to_slot] = h;
        orders[to_slot] = static_cast<uint8_t>(at % kOrderSlots);
      }
    });
  }

  // Solves lines [first, first + lines) from the sorted keys and puts the
  // bucket's hashes back (file comment): hashes[from, to) is free, and
  // hashes[bumped_, from) holds stored keys of earlier buckets, which make
  // room at the back for the bumped keys that come to the front.
  void SolveBucket(size_t from, size_t to, uint32_t first, uint32_t lines, unsigned char* out) {
    size_t back = to;
    for (uint32_t l = 0; l < lines; ++l) {
      const size_t begin = s_.slot_start[size_t{l} * kOrderSlots];
      const size_t end = s_.slot_start[size_t{l + 1} * kOrderSlots];
      std::span<const uint64_t> keys(s_.keys.data() + begin, end - begin);
      unsigned char* line = out + size_t{kLineBytes} * (first + l);
      const LineOutcome outcome = s_.solver.Solve(keys, s_.orders.data() + begin, r_, /*allow_extra=*/true, line);
      for (size_t i = 0; i < outcome.stored; ++i) hashes_[--back] = keys[i];
      for (size_t i = outcome.stored; i < keys.size(); ++i) {
        if (bumped_ < from) hashes_[--back] = hashes_[bumped_];
        hashes_[bumped_++] = keys[i];
      }
    }
  }

  CompactHashes& hashes_;
  size_t count_;
  int layer_;
  uint32_t lines_;
  int r_;
  int shift_;
  Scratch& s_;
  size_t bumped_ = 0;
};

// The bytes of the lines of every layer, if the layers bump about as the
// model says: the first layer's, and those of the keys it bumps and so on.
size_t ReservedLineBytes(size_t num_keys, double keys_per_line) {
  size_t lines = CompactFirstLayerLines(num_keys, keys_per_line);
  const auto bumped = static_cast<size_t>(kReservedBumpShare * static_cast<double>(num_keys));
  lines += CompactFirstLayerLines(bumped, keys_per_line) + kMaxLayers;
  return size_t{kLineBytes} * lines;
}

void WriteTableAndTrailer(const std::vector<uint32_t>& layer_lines, const CompactShape& shape, uint32_t seed,
                          size_t begin, FilterSink* out) {
  size_t at = out->size();
  char* data = out->Resize(at + 4 * layer_lines.size() + kFilterTrailerBytes);
  for (uint32_t lines : layer_lines) {
    EncodeFixed32(data + at, lines);
    at += 4;
  }
  Trailer t;
  t.seed = seed;
  t.num_probes = static_cast<uint8_t>(shape.fingerprint_bits);
  t.hash_scheme = kHashSchemeCompact;
  t.lead_bytes = static_cast<uint8_t>(layer_lines.size());
  t.version = kFormatVersionCompact;
  EncodeTrailer(t, reinterpret_cast<unsigned char*>(data + begin), at - begin);
}

}  // namespace

bool BuildCompactFilter(CompactHashes& hashes, const CompactShape& shape, uint32_t seed, int max_layers,
                        FilterSink* out) {
  const size_t begin = out->size();
  if (!hashes.empty()) {
    out->Reserve(begin + ReservedLineBytes(hashes.size(), shape.keys_per_line) + 4 * kMaxLayers + kFilterTrailerBytes);
  }
  Scratch scratch;
  std::vector<uint32_t> layer_lines;
  for (size_t keys = hashes.size(); keys > 0;) {
    if (static_cast<int>(layer_lines.size()) == max_layers) {
      out->Resize(begin);
      return false;
    }
    const uint32_t lines = static_cast<uint32_t>(CompactFirstLayerLines(keys, shape.keys_per_line));
    const size_t at = out->size();
    char* data = out->Resize(at + size_t{kLineBytes} * lines);
    keys = LayerBuilder(hashes, keys, static_cast<int>(layer_lines.size()), lines, shape.fingerprint_bits, &scratch)
               .Build(reinterpret_cast<unsigned char*>(data + at));
    layer_lines.push_back(lines);
  }
  WriteTableAndTrailer(layer_lines, shape, seed, begin, out);
  return true;
}

}  // namespace linebloom::internal::compact
