// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// Back substitution of a compact-filter line (compact_line_solver.h): from
// the pivots of an echelon system (pivot p has its lowest row bit at p),
// the planes z_0..z_{R-1} with parity(row . z_b) = bit b of the fingerprint
// for every pivot, free columns 0. Highest column first: with the columns
// above p already set, z_b[p] = f_b ^ parity(row_p & z_b), as row_p has
// no bit below p. Internal header.

#pragma once

#include <bit>
#include <cstdint>

#include "compact_layout.h"

namespace linebloom::internal::compact {

struct PivotSystem {
  const Bits128* rows;  // rows[p] for each column p set in `filled`
  const uint32_t* fps;  // their fingerprints
  Bits128 filled;
  int columns;
  int planes;
};

// Adds equation (row, fp) to the echelon system of `filled` (pivot p:
// rows[p], fps[p]): reduced by the pivot of its lowest set bit until that
// column has none, where it becomes that column's pivot (returned), or
// until the row vanishes (-1: the equation depends on the pivots, and fp
// is left zero exactly where it agrees with them).
inline int AddEquation(Bits128 row, uint32_t& fp, Bits128* rows, uint32_t* fps, Bits128& filled) {
  while (!IsZero(row)) {
    const int p = row.lo != 0 ? std::countr_zero(row.lo) : 64 + std::countr_zero(row.hi);
    uint64_t& word = p < 64 ? filled.lo : filled.hi;
    const uint64_t bit = uint64_t{1} << (p & 63);
    if ((word & bit) == 0) {
      rows[p] = row;
      fps[p] = fp;
      word |= bit;
      return p;
    }
    row = row ^ rows[p];
    fp ^= fps[p];
  }
  return -1;
}

// Planes 0..R-1 (R <= 28), bits 0..C-1 each.
struct PlaneSet {
  Bits128 planes[32];
};

// The portable loop, or an AVX-512 one (eight planes per register, parity by
// VPOPCNTQ) where the active kernel is the AVX-512 one and the CPU has
// AVX512_VPOPCNTDQ.
PlaneSet BackSubstitute(const PivotSystem& system);
PlaneSet BackSubstitutePortable(const PivotSystem& system);

// ORs the low `width` bits of `value` into the little-endian bit string
// `words` (8 words) at bit `offset`.
void OrBits(uint64_t* words, int offset, Bits128 value, int width);

}  // namespace linebloom::internal::compact
