// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// docs/FORMAT.md, section 1b (the compact filter, format versions 3 to 8), written
// out a second time as plain code: the trailer and the layer table, the
// reader's checks in their order, and the query -- h_i, line, order, row(C),
// fp(R) and each plane's parity, one bit at a time. It shares nothing with
// filter_policy/ (only libxxhash and the Bloom model's key hash, which the
// format says is the same), so a test comparing CompactFilterReader with it
// (compact_golden_test, compact_corruption_test, fuzz_compact_filter)
// checks the library against the written format, not against itself.
//
// Written for clarity, not speed.

#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include "support/reference_filter.h"

namespace linebloom::reference::compact {

inline constexpr size_t kLineBytes = 64;
inline constexpr size_t kTrailerBytes = 16;
inline constexpr int kMaxLayers = 8;
inline constexpr int kVersion = 3;
inline constexpr int kVersionWithLead = 4;
inline constexpr int kVersionPlanes = 5;  // lines of up to E(r) extra planes
inline constexpr int kVersionPlanesWithLead = 6;
inline constexpr int kVersionMixed = 7;  // 5 with layer 0 in two sections
inline constexpr int kVersionMixedWithLead = 8;
inline constexpr size_t kMaxLead = 63;
inline constexpr int kHashScheme = 2;

// The fields of a filter that passed the reader's checks.
struct Filter {
  const unsigned char* bytes = nullptr;  // layer 0, line 0 (after the lead)
  size_t lead = 0;                       // L
  uint32_t seed = 0;
  int r = 0;                         // fingerprint bits
  bool many_planes = false;          // version 5 to 8
  std::vector<uint32_t> lines;       // L_i, one per layer
  std::vector<uint64_t> first_line;  // index of layer i's first line in the filter
  // Versions 7 and 8: layer 0's first low_lines lines have r - 1 planes; a
  // hash whose low 32 bits are below low_threshold goes to one of them.
  uint32_t low_lines = 0;
  uint32_t low_threshold = 0;
};

// The reader's checks of FORMAT.md's table, in order. Returns 0 if `bytes`
// pass (and fills *out), else the 1-based row of the first failing check:
// 1 too short, 2 magic, 3 version, 4 hash scheme, 5 r, 6 M > 8,
// 7 size < 16 + 4M (+ 8 in versions 7 and 8), 8 a layer of 0 lines,
// 12 the sections (versions 7 and 8), 9 size, 10 lead, 11 checksum.
inline int Parse(std::string_view bytes, bool verify_checksum, Filter* out) {
  const size_t size = bytes.size();
  if (size < kTrailerBytes) return 1;
  const auto* all = reinterpret_cast<const unsigned char*>(bytes.data());
  const unsigned char* t = all + size - kTrailerBytes;
  if (t[8] != 'L' || t[9] != 'B' || t[10] != 'L' || t[11] != 'M') return 2;
  const int version = t[7];
  if (version < kVersion || version > kVersionMixedWithLead) return 3;
  const bool mixed = version == kVersionMixed || version == kVersionMixedWithLead;
  if (t[5] != kHashScheme) return 4;
  if (t[4] < 5 || t[4] > 27) return 5;
  const size_t m = t[6];
  if (m > kMaxLayers) return 6;
  const size_t sections = mixed ? 8 : 0;
  if (size < kTrailerBytes + 4 * m + sections) return 7;
  const unsigned char* table = t - 4 * m;
  Filter f;
  uint64_t total_lines = 0;
  for (size_t i = 0; i < m; ++i) {
    const uint32_t lines = Le32(table + 4 * i);
    if (lines == 0) return 8;
    f.first_line.push_back(total_lines);
    f.lines.push_back(lines);
    total_lines += lines;
  }
  if (mixed) {
    f.low_lines = Le32(table - 8);
    f.low_threshold = Le32(table - 4);
    if (m == 0 || t[4] < 6 || f.low_threshold == 0 || f.low_lines == 0 || f.low_lines >= f.lines[0]) return 12;
  }
  // At most 8 * (2^32 - 1) lines: 64 times that fits in 64 bits. What is
  // before the lines is the lead: none in versions 3, 5 and 7, 0..63 bytes
  // in 4, 6 and 8.
  const uint64_t after_lead = kLineBytes * total_lines + sections + 4 * m + kTrailerBytes;
  if (uint64_t{size} < after_lead) return 9;
  const uint64_t lead = uint64_t{size} - after_lead;
  if (version % 2 == 1 && lead != 0) return 9;
  if (lead > kMaxLead) return 10;
  if (verify_checksum && Le32(t + 12) != static_cast<uint32_t>(XXH3_64bits(all, size - 4))) return 11;
  f.lead = static_cast<size_t>(lead);
  f.bytes = all + lead;
  f.seed = Le32(t);
  f.r = t[4];
  f.many_planes = version >= kVersionPlanes;
  *out = std::move(f);
  return 0;
}

// x ^= x >> 32; x *= K; x ^= x >> 32; x *= K; x ^= x >> 32 (mod 2^64).
inline uint64_t Mix(uint64_t x) {
  constexpr uint64_t kMul = 0xD6E8FEB86659FD93u;
  x ^= x >> 32;
  x *= kMul;
  x ^= x >> 32;
  x *= kMul;
  x ^= x >> 32;
  return x;
}

// h_0 = h; h_i = mix(h + i * 0xD1B54A32D192ED03).
inline uint64_t LayerHash(uint64_t h, int layer) {
  if (layer == 0) return h;
  return Mix(h + static_cast<uint64_t>(layer) * 0xD1B54A32D192ED03u);
}

// Where h_i lands in a layer of `lines` lines.
struct Place {
  uint64_t line;
  int order;  // 0..126
};

inline Place PlaceIn(uint64_t layer_hash, uint32_t lines) {
  const unsigned __int128 product = static_cast<unsigned __int128>(layer_hash) * lines;
  const uint64_t low = static_cast<uint64_t>(product);
  return {static_cast<uint64_t>(product >> 64), static_cast<int>(((low >> 32) * 127) >> 32)};
}

// A key's row and fingerprint: bit j of (rest << 64 | a) for j < C.
struct Code {
  uint64_t a;
  uint64_t rest;
};

inline Code CodeOf(uint64_t h) {
  const uint64_t a = Mix(h ^ 0x9E3779B97F4A7C15u);
  return {a, Mix(a)};
}

inline bool Bit(const unsigned char* line, size_t i) { return (line[i / 8] >> (i % 8)) & 1; }

inline bool RowBit(const Code& code, int j) { return j < 64 ? (code.a >> j) & 1 : (code.rest >> (j - 64)) & 1; }

// row(C) as the list of its set columns; {0} when (rest << 64 | a) mod 2^C
// is 0.
inline std::vector<int> RowColumns(const Code& code, int columns) {
  std::vector<int> set;
  for (int j = 0; j < columns; ++j) {
    if (RowBit(code, j)) set.push_back(j);
  }
  if (set.empty()) set.push_back(0);
  return set;
}

inline const unsigned char* LineAt(const Filter& f, int layer, uint64_t line) {
  return f.bytes + (f.first_line[layer] + line) * kLineBytes;
}

// Where h lands in layer i: in layer 0 of a mixed filter, among the low
// lines if h mod 2^32 < low_threshold, else among the others, after them.
inline Place PlaceInLayer(const Filter& f, uint64_t h, int layer) {
  if (layer > 0 || f.low_threshold == 0) return PlaceIn(LayerHash(h, layer), f.lines[layer]);
  if ((h & 0xFFFFFFFFu) < f.low_threshold) return PlaceIn(h, f.low_lines);
  Place p = PlaceIn(h, f.lines[0] - f.low_lines);
  p.line += f.low_lines;
  return p;
}

// The layer whose line answers hash h: the first in which the line's byte
// 63, m, is 128 or more (a line of extra planes holds every key) or order <
// m (m is the bump threshold t). num_layers if every layer bumps h.
inline int AnsweringLayer(const Filter& f, uint64_t h) {
  const int num_layers = static_cast<int>(f.lines.size());
  for (int i = 0; i < num_layers; ++i) {
    const Place p = PlaceInLayer(f, h, i);
    const int m = LineAt(f, i, p.line)[63];
    if (m >= 128 || p.order < m) return i;
  }
  return num_layers;
}

// The planes R of a line of base r' (r, or r - 1 for the low lines of a
// mixed filter's layer 0): r' if its byte 63, m, is below 128; else r' + 1
// in versions 3 and 4, and r' + min(4 - (m mod 4), E(r')) from 5 on, where
// E(r') = min(4, 8 ceil((r' + 1) / 8) - r').
inline int PlanesOf(const unsigned char* line, const Filter& f) {
  const int base = static_cast<uint64_t>(line - f.bytes) / kLineBytes < f.low_lines ? f.r - 1 : f.r;
  const int m = line[63];
  if (m < 128) return base;
  if (!f.many_planes) return base + 1;
  int groups = 0;
  while (8 * groups < base + 1) ++groups;
  int most = 8 * groups - base;
  if (most > 4) most = 4;
  const int code = 4 - m % 4;
  return base + (code < most ? code : most);
}

// Whether a line's R parities, parity(plane b AND row(C)), equal fp(R);
// R = PlanesOf(line), C = floor(504 / R).
inline bool LineMatches(const unsigned char* line, const Filter& f, const Code& code) {
  const int planes = PlanesOf(line, f);
  const int columns = 504 / planes;
  const std::vector<int> row = RowColumns(code, columns);
  const uint64_t fp = code.rest >> (64 - planes);
  for (int b = 0; b < planes; ++b) {
    int parity = 0;
    for (int j : row) parity ^= Bit(line, static_cast<size_t>(b) * columns + j);
    if (parity != static_cast<int>((fp >> b) & 1)) return false;
  }
  return true;
}

// The layer that answers hash h (num_layers if every layer bumped it) and
// the answer.
struct Answer {
  int layer;
  bool may_contain;
};

inline Answer Query(const Filter& f, uint64_t h) {
  const int layer = AnsweringLayer(f, h);
  const int num_layers = static_cast<int>(f.lines.size());
  // 0 layers: "no"; bumped out of the last layer: "may contain".
  if (layer == num_layers) return {layer, num_layers > 0};
  const Place p = PlaceInLayer(f, h, layer);
  return {layer, LineMatches(LineAt(f, layer, p.line), f, CodeOf(h))};
}

inline bool MayContainHash(const Filter& f, uint64_t h) { return Query(f, h).may_contain; }

inline bool MayContain(const Filter& f, std::string_view key) { return MayContainHash(f, Hash(key, f.seed)); }

}  // namespace linebloom::reference::compact
