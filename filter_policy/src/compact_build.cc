// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.

#include "compact_build.h"

#include <algorithm>
#include <vector>

#include "compact_layout.h"
#include "compact_line_solver.h"
#include "linebloom/foundation/coding.h"
#include "trailer.h"

namespace linebloom::internal::compact {
namespace {

// Solves the lines of one layer into out[at, at + 64 lines) and collects
// the hashes the lines bump.
void BuildLayer(std::span<const uint64_t> hashes, int layer, uint32_t lines, int r, unsigned char* out,
                std::vector<uint64_t>* bumped) {
  // Group the keys by line (counting sort), with their codes and orders.
  std::vector<uint32_t> start(static_cast<size_t>(lines) + 1, 0);
  for (uint64_t h : hashes) ++start[SlotOf(LayerHash(h, layer), lines).line + 1];
  for (uint32_t i = 0; i < lines; ++i) start[i + 1] += start[i];
  std::vector<LineKey> keys(hashes.size());
  {
    std::vector<uint32_t> next(start.begin(), start.end() - 1);
    for (uint64_t h : hashes) {
      Slot slot = SlotOf(LayerHash(h, layer), lines);
      keys[next[slot.line]++] = {h, CodeOf(h), slot.order};
    }
  }
  LineSolver solver;
  for (uint32_t line = 0; line < lines; ++line) {
    auto first = keys.begin() + start[line], last = keys.begin() + start[line + 1];
    std::sort(first, last, [](const LineKey& a, const LineKey& b) { return a.order < b.order; });
    std::span<const LineKey> line_keys(keys.data() + start[line], static_cast<size_t>(last - first));
    LineOutcome outcome = solver.SolveLine(line_keys, r, /*allow_extra=*/true, out + size_t{64} * line);
    for (size_t i = outcome.stored; i < line_keys.size(); ++i) bumped->push_back(line_keys[i].hash);
  }
}

}  // namespace

bool BuildCompactFilter(std::span<const uint64_t> hashes, const CompactShape& shape, uint32_t seed, int max_layers,
                        std::string* out) {
  const size_t begin = out->size();
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
    out->resize(at + size_t{64} * lines);
    bumped.clear();
    BuildLayer(keys, layer, lines, shape.fingerprint_bits, reinterpret_cast<unsigned char*>(out->data() + at), &bumped);
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
