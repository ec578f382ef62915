// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.

#include "compact_line_solver.h"

#include <cstring>

namespace linebloom::internal::compact {
namespace {

int LowestBit(Bits128 v) { return v.lo != 0 ? std::countr_zero(v.lo) : 64 + std::countr_zero(v.hi); }
bool TestBit(Bits128 v, int p) { return ((p < 64 ? v.lo >> p : v.hi >> (p - 64)) & 1) != 0; }
void SetBit(Bits128& v, int p) { (p < 64 ? v.lo : v.hi) |= uint64_t{1} << (p & 63); }

// The equation of a key: its row in bits 0..C-1, its R-bit fingerprint in
// bits C..C+R-1 (C + R <= 105 for R >= 5).
Bits128 EquationOf(const KeyCode& code, int columns, int planes) {
  Bits128 eq = RowOf(code, columns);
  unsigned __int128 fp = static_cast<unsigned __int128>(FingerprintOf(code, planes)) << columns;
  eq.lo |= static_cast<uint64_t>(fp);
  eq.hi |= static_cast<uint64_t>(fp >> 64);
  return eq;
}

// ORs the low `width` bits of `value` into the little-endian bit string
// `words` at bit `offset`.
void OrBits(uint64_t* words, int offset, Bits128 value, int width) {
  value = value & LowMask(width);
  for (int i = 0; i < width; i += 64) {
    uint64_t part = i == 0 ? value.lo : value.hi;
    int at = offset + i;
    words[at >> 6] |= part << (at & 63);
    if ((at & 63) != 0 && ((at >> 6) + 1) < 8) words[(at >> 6) + 1] |= part >> (64 - (at & 63));
  }
}

}  // namespace

void LineSolver::Reset(int planes) {
  planes_ = planes;
  columns_ = ColumnsFor(planes);
  row_mask_ = LowMask(columns_);
  filled_ = {};
}

bool LineSolver::Insert(const KeyCode& code) {
  Bits128 eq = EquationOf(code, columns_, planes_);
  for (Bits128 row = eq & row_mask_; !IsZero(row); row = eq & row_mask_) {
    int p = LowestBit(row);
    if (!TestBit(filled_, p)) {
      pivots_[p] = eq;
      SetBit(filled_, p);
      return true;
    }
    eq = eq ^ pivots_[p];
  }
  return IsZero(eq);
}

size_t LineSolver::InsertPrefix(std::span<const LineKey> keys) {
  size_t i = 0;
  while (i < keys.size() && Insert(keys[i].code)) ++i;
  return i;
}

LineOutcome LineSolver::SolveLine(std::span<const LineKey> keys, int r, bool allow_extra, unsigned char* line) {
  LineOutcome out;
  if (allow_extra && keys.size() + 1 <= static_cast<size_t>(ColumnsFor(r + 1))) {
    Reset(r + 1);
    if (InsertPrefix(keys) == keys.size()) {
      WriteLine(kAllStored, true, line);
      return {r + 1, kAllStored, keys.size()};
    }
  }
  Reset(r);
  size_t fit = InsertPrefix(keys);
  out.planes = r;
  out.threshold = kAllStored;
  out.stored = fit;
  if (fit < keys.size()) {
    // Bump every key of the failing key's order and above. Keys of that
    // order already stored must leave too: rebuild from the keys below it.
    out.threshold = static_cast<int>(keys[fit].order);
    size_t below = fit;
    while (below > 0 && keys[below - 1].order >= keys[fit].order) --below;
    if (below != fit) {
      Reset(r);
      InsertPrefix(keys.first(below));
    }
    out.stored = below;
  }
  WriteLine(out.threshold, false, line);
  return out;
}

void LineSolver::WriteLine(int threshold, bool extra, unsigned char* line) const {
  // Back substitution, highest column first: z_b[p] = f_b ^ parity(row_above
  // & z_b) for a pivot column p (z_b holds only columns above p so far).
  // Free columns stay 0.
  Bits128 planes[32] = {};
  for (int p = columns_ - 1; p >= 0; --p) {
    if (!TestBit(filled_, p)) continue;
    const Bits128& eq = pivots_[p];
    Bits128 row = eq & row_mask_;
    for (int b = 0; b < planes_; ++b) {
      bool fp_bit = TestBit(eq, columns_ + b);
      if (fp_bit != Parity(row & planes[b])) SetBit(planes[b], p);
    }
  }
  uint64_t words[8] = {};
  for (int b = 0; b < planes_; ++b) OrBits(words, b * columns_, planes[b], columns_);
  std::memcpy(line, words, kLineBytes);
  line[kMetaByte] = static_cast<unsigned char>((extra ? kExtraPlaneFlag : 0) | threshold);
}

}  // namespace linebloom::internal::compact
