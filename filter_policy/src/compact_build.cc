// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// A layer is built a bucket of consecutive lines at a time, in the memory
// of the hashes themselves: the layer's hashes are grouped by bucket in
// place (compact_partition.h); a bucket's hashes are sorted by line into
// runs of a fixed capacity per line (compact_counting_sort.h: a scratch of
// 1.7 to 2.4 times the bucket's keys, 9 bytes each), each line's by order,
// and its lines are solved. Its range of the
// hashes is then free, and the hashes go back as the layers need them: the
// bumped ones of the layer so far to the front, the stored ones behind. So
// the layer's bumped hashes end as a prefix, the next layer's input, and
// the hashes stay whole (a Bloom fallback, or a check of the filter, reads
// them after the build). A bucket holds a power of two of lines, as few as
// keep the buckets at most kMaxBuckets: the partition writes one stream per
// bucket, which stay in the first cache level, and a bucket has at most
// about 1/32 of the keys. A small layer, whose hashes fit the second cache
// level anyway, takes up to kMaxSmallBuckets buckets, for a smaller scratch.
// A layer of at most kOneBucketKeys keys is one bucket: it is not grouped
// at all, but sorted by line straight into the scratch. A large layer is
// grouped by whole pages of hashes (PartitionByPages), a stream of stores
// rather than the in-place grouping's chain of dependent loads, with a
// scratch of two pages per bucket that is the layer's own lines, reserved
// and not written yet (every line is written once its bucket is solved).
// They hold it where a bucket has at least 128 lines (a layer of about
// 4,100 lines or more): the peak memory stays that of the hashes, the
// filter and the scratch of one bucket.
//
// A mixed filter's layer 0 places each key in its section's lines
// (compact_layout.h, Sections), and its low lines get r - 1 planes; the
// next layers are of r. A line's bytes depend only on its keys and the
// sequence they are solved in (compact_line_solver.h): any sequence where
// every key fits, else by order and within an order by hash. So the order
// the hashes come in does not change the filter's bytes.

#include "compact_build.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <memory>
#include <span>
#include <vector>

#include "compact_counting_sort.h"
#include "compact_layout.h"
#include "compact_line_solver.h"
#include "compact_partition.h"
#include "linebloom/foundation/coding.h"
#include "trailer.h"

namespace linebloom::internal::compact {
namespace {

constexpr size_t kMaxBuckets = 64;
constexpr size_t kMaxSmallBuckets = 256;
constexpr size_t kSmallLayerKeys = size_t{1} << 15;
// Layers of at most this many keys are one bucket, whose scratch is then at
// most about 90 KiB (runs of 2.4 times the keys at the lowest load, 17 keys
// a line; 16 KiB more where it sorts by counting): grouping them first, in
// place, would cost them about a tenth of their build (its chain of
// dependent loads), and through a scratch another pass over their hashes.
constexpr size_t kOneBucketKeys = size_t{1} << 12;
static_assert(kOneBucketKeys <= kSmallLayerKeys);
// A bucket has at most 2^kMaxBucketShift lines, so that a line's place in
// it fits PackSlot's 24 bits: only a layer of over 2^29 lines (32 GiB)
// takes more than kMaxBuckets buckets for it.
constexpr int kMaxBucketShift = 23;
static_assert(kOneBucketKeys <= (size_t{1} << kMaxBucketShift));
constexpr size_t kSureFit = 8;
// Keys a layer is expected to bump, for reserving the filter's bytes once:
// a shape bumps at most 4.5 % of its keys (linebloom/compact_math.h).
constexpr double kReservedBumpShare = 0.06;

// An array that each use writes before it reads, grown without the
// writing of every element that a vector's growth does first.
template <typename T>
class ScratchArray {
 public:
  // Grows to `n` elements, exactly (a vector's own growth could double).
  void FitTo(size_t n) {
    if (size_ >= n) return;
    data_ = std::make_unique_for_overwrite<T[]>(n);
    size_ = n;
  }
  T* data() { return data_.get(); }
  T& operator[](size_t i) { return data_[i]; }

 private:
  std::unique_ptr<T[]> data_;
  size_t size_ = 0;
};

// Memory the layers reuse, sized by the bucket that needs the most.
struct Scratch {
  std::vector<size_t> starts;         // of each bucket
  ScratchArray<uint32_t> line_start;  // where each line of a bucket starts in keys
  ScratchArray<uint32_t> line_count;  // and its keys
  ScratchArray<uint64_t> keys;        // the bucket's keys by line
  ScratchArray<uint8_t> orders;       // theirs
  ScratchArray<uint64_t> line_keys;   // a line's keys by order
  ScratchArray<uint8_t> line_orders;  // theirs
  ScratchArray<uint32_t> slots;       // the bucket's keys' lines and orders (PackSlot)
  LineSolver solver;
};

// log2 of the lines per bucket of a layer (file comment).
int BucketShift(size_t keys, uint32_t lines) {
  if (keys <= kOneBucketKeys) return static_cast<int>(std::bit_width(lines - 1));
  const size_t buckets = keys <= kSmallLayerKeys ? kMaxSmallBuckets : kMaxBuckets;
  return std::min(static_cast<int>(std::bit_width((lines - 1) / buckets)), kMaxBucketShift);
}

class LayerBuilder {
 public:
  // `sections` splits layer 0 (compact_layout.h); any other layer has
  // none. Lines get up to `extra_planes` planes above their r, as r allows.
  LayerBuilder(CompactHashes& hashes, size_t count, int layer, const Sections& sections, int r, int extra_planes,
               Scratch* scratch)
      : hashes_(hashes),
        count_(count),
        layer_(layer),
        lines_(sections.low_lines + sections.high_lines),
        sections_(sections),
        r_(r),
        extra_planes_(extra_planes),
        shift_(BucketShift(count, lines_)),
        s_(*scratch) {}

  // Solves the lines into out[0, 64 lines). Returns how many keys were
  // bumped: hashes[0, that) are they, hashes[that, count) the stored ones.
  size_t Build(unsigned char* out) {
    const size_t buckets = ((lines_ - 1) >> shift_) + 1;
    const auto bucket_of = [this](uint64_t h) { return SlotOfKey(h).line >> shift_; };
    if (!Grouped()) {
      s_.starts = {0, count_};
    } else if (PartitionByPagesBytes(buckets) <= size_t{kLineBytes} * lines_) {
      // The layer's lines, not written yet, are the scratch (file comment).
      PartitionByPages(hashes_, 0, count_, buckets, bucket_of, &s_.starts, out);
    } else {
      PartitionInPlace(hashes_, 0, count_, buckets, bucket_of, &s_.starts);
    }
    // The scratch of the bucket that needs the most: its keys, or their
    // runs (SortBucket).
    size_t most = 0;
    for (size_t b = 0; b < buckets; ++b) {
      const size_t keys = s_.starts[b + 1] - s_.starts[b];
      const uint32_t lines = BucketLines(b);
      most = std::max(most, lines == 1 || !SortsInRuns(keys, lines) ? keys : size_t{RunCapacity(keys, lines)} * lines);
    }
    s_.keys.FitTo(most);
    s_.orders.FitTo(most);
    s_.line_start.FitTo((size_t{1} << shift_) + 1);
    s_.line_count.FitTo(size_t{1} << shift_);
    for (size_t b = 0; b < buckets; ++b) {
      const uint32_t first = static_cast<uint32_t>(b << shift_);
      const uint32_t lines = BucketLines(b);
      if (lines == 1) {
        CopyLine(s_.starts[b], s_.starts[b + 1]);
      } else {
        SortBucket(s_.starts[b], s_.starts[b + 1], first, lines);
      }
      SolveLines(s_.starts[b], s_.starts[b + 1], first, lines, out);
    }
    return bumped_;
  }

 private:
  // The lines of bucket b (the last may have fewer).
  uint32_t BucketLines(size_t b) const {
    const auto first = static_cast<uint32_t>(b << shift_);
    return std::min(lines_ - first, uint32_t{1} << shift_);
  }
  // Whether a bucket's keys are sorted into runs: their starts, l *
  // capacity, must fit line_start's 32 bits (a bucket of billions of keys
  // is sorted by counting).
  static bool SortsInRuns(size_t keys, uint32_t lines) {
    return size_t{RunCapacity(keys, lines)} * lines <= UINT32_MAX;
  }
  // Whether the layer is grouped by bucket (more than one bucket's keys).
  bool Grouped() const { return count_ > kOneBucketKeys; }

  LayerPlacement Placement() const { return {sections_, layer_, lines_}; }
  Slot SlotOfKey(uint64_t h) const { return Placement().Of(h); }

  // Sorts hashes[from, to), of lines [first, first + lines), by line into
  // s_.keys and s_.orders: line first + l's s_.line_count[l] keys start at
  // s_.line_start[l]. In one pass into runs of a fixed capacity per line
  // (RunCapacity); where a line has more keys than that, by a counting
  // sort.
  void SortBucket(size_t from, size_t to, uint32_t first, uint32_t lines) {
    const LayerPlacement where = Placement();
    uint32_t* start = s_.line_start.data();
    uint32_t* count = s_.line_count.data();
    const uint32_t capacity = RunCapacity(to - from, lines);
    bool fits = SortsInRuns(to - from, lines);
    uint64_t* keys = s_.keys.data();
    uint8_t* orders = s_.orders.data();
    std::fill_n(count, lines, 0);
    if (fits) {
      hashes_.ForEachSpan(from, to - from, [&](std::span<uint64_t> span) {
        fits = fits && PlaceInRuns(where, first, span, capacity, count, keys, orders);
      });
    }
    if (fits) {
      for (uint32_t l = 0; l < lines; ++l) start[l] = l * capacity;
      return;
    }
    // The counting pass keeps each key's slot, which the placing pass then
    // reads instead of computing it again. Keys are placed from the end of
    // each line backwards, so that start keeps each line's start after.
    std::fill_n(start, lines + 1, 0);
    s_.slots.FitTo(to - from);
    uint32_t* slots = s_.slots.data();
    hashes_.ForEachSpan(from, to - from, [&](std::span<uint64_t> span) {
      CountKeepingSlots(where, first, span, start, slots);
      slots += span.size();
    });
    for (uint32_t l = 0; l < lines; ++l) count[l] = start[l + 1];
    for (uint32_t l = 0; l < lines; ++l) start[l + 1] += start[l];
    for (uint32_t l = 0; l < lines; ++l) start[l] = start[l + 1];
    slots = s_.slots.data();
    hashes_.ForEachSpan(from, to - from, [&](std::span<uint64_t> span) {
      PlaceBySlots(span, slots, start, keys, orders);
      slots += span.size();
    });
  }

  // SortBucket of a bucket of one line (a small layer's buckets are), which
  // the grouping has sorted already: the keys and their orders, copied.
  void CopyLine(size_t from, size_t to) {
    uint64_t* keys = s_.keys.data();
    uint8_t* orders = s_.orders.data();
    hashes_.ForEachSpan(from, to - from, [&](std::span<uint64_t> span) {
      for (uint64_t h : span) {
        *keys++ = h;
        *orders++ = static_cast<uint8_t>(SlotOfKey(h).order);
      }
    });
    s_.line_start[0] = 0;
    s_.line_count[0] = static_cast<uint32_t>(to - from);
  }

  // The keys of a line sorted by order (a counting sort over the orders)
  // into s_.line_keys and s_.line_orders, and the keys of each order from
  // that of key `tie_from` on by hash: the sequence the line is solved in
  // where it bumps keys of that order or above (compact_line_solver.h).
  // Returns that order.
  int SortLine(const uint64_t* keys, const uint8_t* orders, size_t k, size_t tie_from) {
    if (k == 0) return 0;
    s_.line_keys.FitTo(k);
    s_.line_orders.FitTo(k);
    uint64_t* sorted = s_.line_keys.data();
    uint8_t* sorted_orders = s_.line_orders.data();
    SortByOrder(keys, orders, k, sorted, sorted_orders);
    // The keys of one order came in the order they were placed in: each
    // run of one order from the run of key tie_from on is sorted by
    // insertion.
    size_t from = std::min(tie_from, k - 1);
    while (from > 0 && sorted_orders[from - 1] == sorted_orders[from]) --from;
    for (size_t i = from + 1; i < k; ++i) {
      const uint64_t h = sorted[i];
      size_t j = i;
      for (; j > from && sorted_orders[j - 1] == sorted_orders[i] && sorted[j - 1] > h; --j) sorted[j] = sorted[j - 1];
      sorted[j] = h;
    }
    return sorted_orders[from];
  }

  // Solves lines [first, first + lines) from the sorted keys and puts the
  // bucket's hashes back (file comment): hashes[from, to) is free, and
  // hashes[bumped_, from) holds stored keys of earlier buckets, which make
  // room at the back for the bumped keys that come to the front.
  void SolveLines(size_t from, size_t to, uint32_t first, uint32_t lines, unsigned char* out) {
    size_t back = to;
    for (uint32_t l = 0; l < lines; ++l) {
      const size_t begin = s_.line_start[l];
      const size_t k = s_.line_count[l];
      unsigned char* line = out + size_t{kLineBytes} * (first + l);
      const int r = first + l < sections_.low_lines ? r_ - 1 : r_;
      const int extra_planes = std::min(extra_planes_, MaxExtraPlanes(r));
      const uint64_t* const given = s_.keys.data() + begin;
      const uint8_t* const given_orders = s_.orders.data() + begin;
      const uint64_t* keys = given;
      const uint8_t* orders = given_orders;
      // The order matters only where keys are bumped; a line that holds
      // every key writes the same bytes in any order. A line holds its
      // first C - kSureFit keys but with probability about 2^-kSureFit, so
      // their runs of one order are sorted by hash only if it does not.
      const size_t columns = static_cast<size_t>(ColumnsFor(r));
      const bool may_bump = k + kSureFit > columns;
      LineOutcome outcome;
      if (!may_bump) outcome = s_.solver.Solve({keys, k}, orders, r, extra_planes, line);
      if (may_bump || outcome.stored < k) {
        const int sorted_from = SortLine(given, given_orders, k, columns > kSureFit ? columns - kSureFit : 0);
        keys = s_.line_keys.data();
        orders = s_.line_orders.data();
        outcome = s_.solver.Solve({keys, k}, orders, r, extra_planes, line);
        if (outcome.stored < k && outcome.threshold < sorted_from) {
          SortLine(given, given_orders, k, 0);
          outcome = s_.solver.Solve({keys, k}, orders, r, extra_planes, line);
        }
      }
      // The stored keys' order in the hashes does not matter (file comment).
      back -= outcome.stored;
      const uint64_t* stored = keys;
      hashes_.ForEachSpan(back, outcome.stored, [&stored](std::span<uint64_t> span) {
        std::copy_n(stored, span.size(), span.data());
        stored += span.size();
      });
      for (size_t i = outcome.stored; i < k; ++i) {
        if (bumped_ < from) hashes_[--back] = hashes_[bumped_];
        hashes_[bumped_++] = keys[i];
      }
    }
  }

  CompactHashes& hashes_;
  size_t count_;
  int layer_;
  uint32_t lines_;
  Sections sections_;
  int r_;
  int extra_planes_;
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

// The sections of layer 0 (compact_layout.h) for `hashes`: a mixed
// shape's low share of the hash range (the threshold is share * 2^32), its
// keys counted, and each section's lines for its keys.
Sections FirstLayerSections(const CompactHashes& hashes, const CompactShape& shape) {
  Sections s;
  if (!(shape.low_share > 0) || shape.fingerprint_bits - 1 < kMinFingerprintBits) {
    s.high_lines = static_cast<uint32_t>(CompactFirstLayerLines(hashes.size(), shape.keys_per_line));
    return s;
  }
  const double threshold = std::ldexp(std::min(shape.low_share, 1.0), 32);
  s.low_threshold = static_cast<uint32_t>(std::clamp(std::round(threshold), 1.0, 4294967295.0));
  size_t low_keys = 0;
  hashes.ForEachSpan([&](std::span<const uint64_t> span) {
    for (uint64_t h : span) low_keys += InLowSection(h, s);
  });
  s.low_lines = static_cast<uint32_t>(CompactLowSectionLines(low_keys, shape.low_keys_per_line));
  s.high_lines = static_cast<uint32_t>(CompactFirstLayerLines(hashes.size() - low_keys, shape.keys_per_line));
  return s;
}

// The checksum covers the filter from `begin` on, its lead bytes included.
// A mixed filter's sections come before the layer table.
void WriteTableAndTrailer(const std::vector<uint32_t>& layer_lines, const Sections& sections, const CompactShape& shape,
                          uint32_t seed, size_t begin, size_t lead_bytes, FilterSink* out) {
  const bool mixed = sections.low_threshold != 0;
  size_t at = out->size();
  char* data = out->Resize(at + (mixed ? 8 : 0) + 4 * layer_lines.size() + kFilterTrailerBytes);
  if (mixed) {
    EncodeFixed32(data + at, sections.low_lines);
    EncodeFixed32(data + at + 4, sections.low_threshold);
    at += 8;
  }
  for (uint32_t lines : layer_lines) {
    EncodeFixed32(data + at, lines);
    at += 4;
  }
  Trailer t;
  t.seed = seed;
  t.num_probes = static_cast<uint8_t>(shape.fingerprint_bits);
  t.hash_scheme = kHashSchemeCompact;
  t.lead_bytes = static_cast<uint8_t>(layer_lines.size());  // byte 6: M
  // Lines of at most one extra plane are those of versions 3 and 4, which
  // older readers read; so is a filter of no lines.
  if (mixed) {
    t.version = lead_bytes > 0 ? kFormatVersionCompactMixedWithLead : kFormatVersionCompactMixed;
  } else if (shape.extra_planes > 1 && !layer_lines.empty()) {
    t.version = lead_bytes > 0 ? kFormatVersionCompactPlanesWithLead : kFormatVersionCompactPlanes;
  } else {
    t.version = lead_bytes > 0 ? kFormatVersionCompactWithLead : kFormatVersionCompact;
  }
  EncodeTrailer(t, reinterpret_cast<unsigned char*>(data + begin), at - begin);
}

}  // namespace

bool BuildCompactFilter(CompactHashes& hashes, const CompactShape& shape, uint32_t seed, int max_layers,
                        size_t lead_bytes, FilterSink* out) {
  const size_t begin = out->size();
  if (!hashes.empty()) {
    out->Reserve(begin + lead_bytes + ReservedLineBytes(hashes.size(), shape.keys_per_line) + 8 + 4 * kMaxLayers +
                 kFilterTrailerBytes);
  }
  const Sections sections = FirstLayerSections(hashes, shape);
  // A sink's new bytes need not be zero (a new[] buffer).
  std::memset(out->Resize(begin + lead_bytes) + begin, 0, lead_bytes);
  Scratch scratch;
  std::vector<uint32_t> layer_lines;
  for (size_t keys = hashes.size(); keys > 0;) {
    if (static_cast<int>(layer_lines.size()) == max_layers) {
      out->Resize(begin);
      return false;
    }
    // Later layers are of r planes at the (second section's) load.
    Sections layer_sections = sections;
    if (!layer_lines.empty()) {
      layer_sections = {0, 0, static_cast<uint32_t>(CompactFirstLayerLines(keys, shape.keys_per_line))};
    }
    const uint32_t lines = layer_sections.low_lines + layer_sections.high_lines;
    const size_t at = out->size();
    char* data = out->Resize(at + size_t{kLineBytes} * lines);
    keys = LayerBuilder(hashes, keys, static_cast<int>(layer_lines.size()), layer_sections, shape.fingerprint_bits,
                        std::max(shape.extra_planes, 0), &scratch)
               .Build(reinterpret_cast<unsigned char*>(data + at));
    layer_lines.push_back(lines);
  }
  WriteTableAndTrailer(layer_lines, sections, shape, seed, begin, lead_bytes, out);
  return true;
}

}  // namespace linebloom::internal::compact
