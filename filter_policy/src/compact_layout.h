// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// Where a key goes in a compact filter, and what it must read there (byte
// layout in docs/FORMAT.md, section "Compact filter"). Shared by the
// builder, the line solver and the reader. Internal header.
//
// A compact filter stores, for every key, an R-bit fingerprint f(x) that a
// query can recompute from the key and from one 64-byte line: the line holds
// R "planes" z_0..z_{R-1} of C bits each, and the query takes
//     bit b of the answer = parity(s(x) AND z_b),
// where s(x) is a C-bit row derived from the key's hash. The builder solves
// the linear system s(x) . Z = f(x) over GF(2) for the keys of each line
// (compact_line_solver.h). A stored key thus always answers f(x); any other
// key answers a value that is uniform over the 2^R fingerprints (it is a
// linear function of the stored keys' independent random fingerprints), so
// it matches with probability 2^-R: the false-positive rate of a line is
// exactly 2^-R, whatever its load.
//
// A line has 504 bits of planes (bytes 0..62) and one metadata byte (63),
// m. A line with m < 128 has R = r planes, the filter's r, and m is t, the
// bump threshold: a key whose order o(x) in 0..126 is below t is answered
// by this line; the others were "bumped" to the next layer (a smaller
// filter of the same kind, after the lines of this one). A line with
// m >= 128 answers every key (o(x) < m) and has R = r + e planes, e >= 1:
// e = 1 in format versions 3 and 4 (m = 255); from version 5 on e =
// min(1 + (~m & 3), E(r)), E(r) = MaxExtraPlanes(r), and a builder writes
// m = 256 - e, so that a line of one extra plane is version 3's.
// With C = floor(504 / R) columns, n keys fit a line when their n rows are
// independent, or dependent only where their fingerprints agree; a line
// whose keys do not fit bumps those of the highest orders. A line with few
// keys gets extra planes, as many as its keys leave room for, so the keys
// the Poisson spread of the load leaves short are spent on a lower
// false-positive rate instead of wasted: with R planes a line holds about
// C - 1 keys, and its rate is 2^-R.

#pragma once

#include <bit>
#include <cstdint>
#include <cstring>

namespace linebloom::internal::compact {

static_assert(std::endian::native == std::endian::little, "the line layout is read with little-endian loads");

inline constexpr int kLineBytes = 64;
inline constexpr int kPlaneBits = 504;  // bytes 0..62
inline constexpr int kMetaByte = 63;
// Orders are 0..126, so t = 127 answers every key from the line.
inline constexpr int kOrders = 127;
inline constexpr int kAllStored = kOrders;
// r, the filter's fingerprint bits; a line has r to r + E(r). At r = 5 a
// plane has 100 columns, so a row and a fingerprint fit one 128-bit
// equation.
inline constexpr int kMinFingerprintBits = 5;
inline constexpr int kMaxFingerprintBits = 27;
inline constexpr int kMaxLayers = 8;
// The most planes a line has above r (format version 5 on), and the
// metadata byte of a line with e of them.
inline constexpr int kMaxExtraPlanes = 4;
inline constexpr uint8_t ExtraPlanesMeta(int e) { return static_cast<uint8_t>(256 - e); }
// E(r): a line's planes stay within the groups of eight planes the AVX-512
// answer takes for lines of r + 1 planes ((r + 1 + 7) / 8 groups, as in
// versions 3 and 4), so extra planes cost a query nothing: 8 ceil((r + 1)
// / 8) - r, at most kMaxExtraPlanes (r = 7: 1; r = 8..12: 4; r = 13: 3).
constexpr int MaxExtraPlanes(int r) {
  const int room = 8 * ((r + 1 + 7) / 8) - r;
  return room < kMaxExtraPlanes ? room : kMaxExtraPlanes;
}
inline constexpr int kMaxPlanes = kMaxFingerprintBits + kMaxExtraPlanes;
static_assert(kMaxPlanes <= 32, "a line's answer is a 32-bit word");

// Columns of a line with R planes.
constexpr int ColumnsFor(int planes) { return kPlaneBits / planes; }

// A 128-bit vector of GF(2): a key's row (bits 0..C-1), or an equation
// (row, then the fingerprint in bits C..C+R-1).
struct Bits128 {
  uint64_t lo = 0;
  uint64_t hi = 0;
  bool operator==(const Bits128&) const = default;
};
inline Bits128 operator^(Bits128 a, Bits128 b) { return {a.lo ^ b.lo, a.hi ^ b.hi}; }
inline Bits128 operator&(Bits128 a, Bits128 b) { return {a.lo & b.lo, a.hi & b.hi}; }
__attribute__((always_inline)) inline bool Parity(Bits128 a) { return (std::popcount(a.lo ^ a.hi) & 1) != 0; }
inline bool IsZero(Bits128 a) { return (a.lo | a.hi) == 0; }
// The lowest `n` bits set (0 <= n <= 128).
constexpr Bits128 LowMask(int n) {
  if (n >= 128) return {~uint64_t{0}, ~uint64_t{0}};
  if (n >= 64) return {~uint64_t{0}, n == 64 ? 0 : ~uint64_t{0} >> (128 - n)};
  return {n == 0 ? 0 : ~uint64_t{0} >> (64 - n), 0};
}

// What a key's 64-bit hash h gives in every layer: its row source and its
// fingerprint source. The rows of a line's keys must behave as independent
// uniform vectors (the line's capacity rests on it), so each word is a full
// avalanche mix (two multiply-xorshift rounds) of h: a single multiply
// would leave each low bit a linear function of h's low bits.
struct KeyCode {
  uint64_t row_lo;
  uint64_t rest;  // row bits 64.. in its low bits, the fingerprint in its top bits
};
inline constexpr uint64_t kAvalancheMultiplier = 0xD6E8FEB86659FD93u;
inline constexpr uint64_t kCodeSeed = 0x9E3779B97F4A7C15u;
inline uint64_t Avalanche(uint64_t x) {
  x ^= x >> 32;
  x *= kAvalancheMultiplier;
  x ^= x >> 32;
  x *= kAvalancheMultiplier;
  return x ^ (x >> 32);
}
inline KeyCode CodeOf(uint64_t h) {
  uint64_t a = Avalanche(h ^ kCodeSeed);
  return {a, Avalanche(a)};
}

// The key's row in a line of C columns. Never zero: a zero row would make
// the key match exactly when its fingerprint is zero, a rate of its own.
inline Bits128 RowOf(const KeyCode& code, Bits128 column_mask) {
  Bits128 row = Bits128{code.row_lo, code.rest} & column_mask;
  row.lo |= static_cast<uint64_t>(IsZero(row));
  return row;
}
inline Bits128 RowOf(const KeyCode& code, int columns) { return RowOf(code, LowMask(columns)); }

// The key's R-bit fingerprint: the top R bits of `rest`. Rows of C > 64
// columns (R <= 7) take C - 64 <= 36 of `rest`'s low bits and R <= 7 of its
// top bits; rows of C <= 64 take none of `rest`, whose top R <= 31 bits
// are then the fingerprint. So the two never share a bit.
inline uint32_t FingerprintOf(const KeyCode& code, int planes) {
  return static_cast<uint32_t>(code.rest >> (64 - planes));
}

// The hash a key is placed by in `layer`: h itself in layer 0, and a full
// avalanche of h plus a per-layer constant in the next ones. Keys a line
// bumps share their line's range of the layer hash; a remix that kept
// their neighbourhood (h_i = h_1 + const) would put them together again in
// every later layer, and the layers would shrink slowly and run out.
inline constexpr uint64_t kLayerHashStep = 0xD1B54A32D192ED03u;
inline uint64_t LayerHash(uint64_t h, int layer) {
  if (layer == 0) return h;
  return Avalanche(h + static_cast<uint64_t>(layer) * kLayerHashStep);
}

// A key's line among `num_lines` (fastrange on the 64-bit layer hash), and
// its order 0..126 within the line: the top bits of the fraction fastrange
// drops, so the orders of a line's keys are uniform and independent of
// their rows.
struct Slot {
  uint32_t line;
  uint32_t order;
};
inline Slot SlotOf(uint64_t layer_hash, uint32_t num_lines) {
  unsigned __int128 m = static_cast<unsigned __int128>(layer_hash) * num_lines;
  uint64_t fraction = static_cast<uint64_t>(m);
  return {static_cast<uint32_t>(m >> 64), static_cast<uint32_t>(((fraction >> 32) * kOrders) >> 32)};
}

// The first layer of a mixed filter (format version 7) is two sections:
// its first `low_lines` lines have r - 1 planes (and up to E(r - 1) extra),
// the rest r; a key whose hash's low 32 bits are below `low_threshold`
// goes to the first section, at its fastrange line there, any other to the
// second. A filter that is not mixed is all second section: threshold 0,
// low_lines 0. The section bit is independent of the line and the order
// within a section, which fastrange takes from the hash's high bits.
struct Sections {
  uint32_t low_threshold = 0;
  uint32_t low_lines = 0;
  uint32_t high_lines = 0;
};
inline bool InLowSection(uint64_t h, const Sections& s) { return static_cast<uint32_t>(h) < s.low_threshold; }
// By masks, not the branch compilers make of the conditionals: the
// sections of a mixed filter's keys are random.
//   simple form: low = InLowSection(h, s); slot = SlotOf(h, low ?
//   low_lines : high_lines); slot.line += low ? 0 : low_lines
inline Slot FirstLayerSlotOf(uint64_t h, const Sections& s) {
  const uint32_t low = 0u - static_cast<uint32_t>(InLowSection(h, s));
  Slot slot = SlotOf(h, s.high_lines ^ ((s.high_lines ^ s.low_lines) & low));
  slot.line += s.low_lines & ~low;
  return slot;
}

// Plane b of a line with `columns` columns: bits [b C, b C + C) of bytes
// 0..62, read as one 16-byte load at a byte offset of at most 48 (so the
// load never leaves the line) and a shift of the rest.
__attribute__((always_inline)) inline Bits128 LoadPlane(const unsigned char* line, int bit_offset) {
  int byte = bit_offset >> 3;
  if (byte > 48) byte = 48;
  unsigned shift = static_cast<unsigned>(bit_offset - 8 * byte);
  unsigned __int128 v;
  std::memcpy(&v, line + byte, sizeof(v));
  v >>= shift;
  return {static_cast<uint64_t>(v), static_cast<uint64_t>(v >> 64)};
}

}  // namespace linebloom::internal::compact
