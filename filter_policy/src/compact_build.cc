// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// A layer is built a group of consecutive lines at a time, so that the
// build needs far less memory than the hashes it reads: the keys of a
// group (an eighth of the keys, or 2^13 if that is more) are gathered by one pass
// over the layer's hashes, already grouped by line through the per-line
// counts of a first pass; each line then sorts its keys by order (a
// counting sort over the 127 orders) and is solved.

#include "compact_build.h"

#include <algorithm>
#include <vector>

#include "compact_layout.h"
#include "compact_line_solver.h"
#include "compact_pick.h"
#include "linebloom/foundation/coding.h"
#include "trailer.h"

namespace linebloom::internal::compact {
namespace {

constexpr size_t kMinGroupKeys = size_t{1} << 13;
constexpr size_t kGroupShare = 8;
constexpr size_t kPickBatch = 256;
// Keys a layer is expected to bump, for reserving the filter's bytes once:
// a shape bumps at most 4.5 % of its keys (linebloom/compact_math.h).
constexpr double kReservedBumpShare = 0.06;

// Memory the layers reuse.
struct Scratch {
  std::vector<uint32_t> counts;  // keys per line of the layer
  std::vector<uint32_t> next;    // next free slot of each line of a group
  std::vector<uint64_t> group;   // the keys of a group, by line
  std::vector<uint64_t> line_keys;
  std::vector<uint8_t> line_orders, key_orders;
  LineSolver solver;
};

class LayerBuilder {
 public:
  LayerBuilder(std::span<const uint64_t> hashes, int layer, uint32_t lines, int r, Scratch* scratch)
      : hashes_(hashes), layer_(layer), lines_(lines), r_(r), s_(*scratch) {}

  // Solves the lines into out[0, 64 lines) and appends the bumped hashes.
  void Build(size_t group_keys, unsigned char* out, std::vector<uint64_t>* bumped) {
    s_.counts.assign(lines_, 0);
    for (uint64_t h : hashes_) ++s_.counts[SlotOfKey(h).line];
    for (uint32_t first = 0; first < lines_;) {
      const uint32_t end = GroupEnd(first, group_keys);
      Gather(first, end);
      size_t at = 0;
      for (uint32_t line = first; line < end; ++line) {
        std::span<const uint64_t> keys(s_.group.data() + at, s_.counts[line]);
        SolveLine(keys, out + size_t{kLineBytes} * line, bumped);
        at += s_.counts[line];
      }
      first = end;
    }
  }

 private:
  Slot SlotOfKey(uint64_t h) const { return SlotOf(LayerHash(h, layer_), lines_); }

  // The end of the group from line `first`: lines up to `group_keys` keys
  // in all, and at least one.
  uint32_t GroupEnd(uint32_t first, size_t group_keys) const {
    size_t keys = s_.counts[first];
    uint32_t end = first + 1;
    while (end < lines_ && keys + s_.counts[end] <= group_keys) keys += s_.counts[end++];
    return end;
  }

  // Gathers the keys of lines [first, end) into s_.group, line after line.
  void Gather(uint32_t first, uint32_t end) {
    const uint32_t width = end - first;
    s_.next.resize(width);
    uint32_t total = 0;
    for (uint32_t i = 0; i < width; ++i) {
      s_.next[i] = total;
      total += s_.counts[first + i];
    }
    if (s_.group.size() < total) {
      // Freed before it grows: its keys are not needed any more, and a
      // copy would hold both.
      std::vector<uint64_t>().swap(s_.group);
      s_.group.resize(total);
    }
    uint64_t* group = s_.group.data();
    uint32_t* next = s_.next.data();
    // The keys of the group are picked without a branch per key (a pass
    // skips most keys, in no predictable pattern), then placed by line.
    uint64_t picked[kPickBatch + 8];
    for (size_t from = 0; from < hashes_.size(); from += kPickBatch) {
      const size_t count = std::min(kPickBatch, hashes_.size() - from);
      const size_t n = Pick(hashes_.data() + from, count, first, end, picked);
      for (size_t j = 0; j < n; ++j) group[next[SlotOfKey(picked[j]).line - first]++] = picked[j];
    }
  }

  // The hashes of lines [first, end) among hashes[0..count), into `out`.
  size_t Pick(const uint64_t* hashes, size_t count, uint32_t first, uint32_t end, uint64_t* out) const {
    if (layer_ == 0) {
      const uint64_t low = FirstHashOfLine(first, lines_);
      const uint64_t high = end < lines_ ? FirstHashOfLine(end, lines_) - 1 : ~uint64_t{0};
      return PickRange(hashes, count, low, high - low, out);
    }
    size_t n = 0;
    for (size_t j = 0; j < count; ++j) {
      out[n] = hashes[j];
      n += SlotOfKey(hashes[j]).line - first < end - first;
    }
    return n;
  }

  // Sorts a line's keys by order and solves them.
  void SolveLine(std::span<const uint64_t> keys, unsigned char* line, std::vector<uint64_t>* bumped) {
    const size_t k = keys.size();
    if (s_.line_keys.size() < k) {
      s_.line_keys.resize(k);
      s_.line_orders.resize(k);
      s_.key_orders.resize(k);
    }
    uint32_t start[kOrders + 1] = {};
    for (size_t i = 0; i < k; ++i) {
      const uint32_t order = SlotOfKey(keys[i]).order;
      s_.key_orders[i] = static_cast<uint8_t>(order);
      ++start[order + 1];
    }
    for (int o = 0; o < kOrders; ++o) start[o + 1] += start[o];
    for (size_t i = 0; i < k; ++i) {
      const uint32_t at = start[s_.key_orders[i]]++;
      s_.line_keys[at] = keys[i];
      s_.line_orders[at] = s_.key_orders[i];
    }
    std::span<const uint64_t> sorted(s_.line_keys.data(), k);
    const LineOutcome outcome = s_.solver.Solve(sorted, s_.line_orders.data(), r_, /*allow_extra=*/true, line);
    bumped->insert(bumped->end(), sorted.begin() + static_cast<ptrdiff_t>(outcome.stored), sorted.end());
  }

  std::span<const uint64_t> hashes_;
  int layer_;
  uint32_t lines_;
  int r_;
  Scratch& s_;
};

// The bytes of the lines of every layer, if the layers bump about as the
// model says: the first layer's, and those of the keys it bumps and so on.
size_t ReservedLineBytes(size_t num_keys, double keys_per_line) {
  size_t lines = CompactFirstLayerLines(num_keys, keys_per_line);
  const auto bumped = static_cast<size_t>(kReservedBumpShare * static_cast<double>(num_keys));
  lines += CompactFirstLayerLines(bumped, keys_per_line) + kMaxLayers;
  return size_t{kLineBytes} * lines;
}

}  // namespace

bool BuildCompactFilter(std::span<const uint64_t> hashes, const CompactShape& shape, uint32_t seed, int max_layers,
                        std::string* out) {
  const size_t begin = out->size();
  if (!hashes.empty()) {
    out->reserve(begin + ReservedLineBytes(hashes.size(), shape.keys_per_line) + 4 * kMaxLayers + kFilterTrailerBytes);
  }
  const size_t group_keys = std::max(kMinGroupKeys, hashes.size() / kGroupShare);
  Scratch scratch;
  scratch.group.resize(std::min(group_keys, hashes.size()));
  std::vector<uint32_t> layer_lines;
  std::vector<uint64_t> layer_keys, bumped;
  std::span<const uint64_t> keys = hashes;
  for (int layer = 0; !keys.empty(); ++layer) {
    if (layer == max_layers) {
      out->resize(begin);
      return false;
    }
    const uint32_t lines = static_cast<uint32_t>(CompactFirstLayerLines(keys.size(), shape.keys_per_line));
    const size_t at = out->size();
    out->resize(at + size_t{kLineBytes} * lines);
    bumped.clear();
    bumped.reserve(static_cast<size_t>(kReservedBumpShare * static_cast<double>(keys.size())) + kLineBytes);
    LayerBuilder(keys, layer, lines, shape.fingerprint_bits, &scratch)
        .Build(group_keys, reinterpret_cast<unsigned char*>(out->data() + at), &bumped);
    layer_lines.push_back(lines);
    layer_keys.swap(bumped);
    keys = layer_keys;
  }
  for (uint32_t lines : layer_lines) PutFixed32(out, lines);
  const size_t body = out->size() - begin;
  out->resize(out->size() + kFilterTrailerBytes);
  Trailer t;
  t.seed = seed;
  t.num_probes = static_cast<uint8_t>(shape.fingerprint_bits);
  t.hash_scheme = kHashSchemeCompact;
  t.lead_bytes = static_cast<uint8_t>(layer_lines.size());
  t.version = kFormatVersionCompact;
  EncodeTrailer(t, reinterpret_cast<unsigned char*>(out->data() + begin), body);
  return true;
}

}  // namespace linebloom::internal::compact
