// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// Back substitution of a compact-filter line (compact_line_solver.h): from
// the pivots of an echelon system (pivot p has its lowest row bit at p),
// the planes z_0..z_{R-1} with parity(row . z_b) = bit b of the fingerprint
// for every pivot, free columns 0. Highest column first: with the columns
// above p already set, z_b[p] = f_b ^ parity(row_p & z_b), as row_p has
// no bit below p. Internal header.

#pragma once

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
