// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// Gauss-Jordan elimination of a compact-filter line's equations on their
// transpose without AVX-512: SolveReduced's result (compact_sweep.h) in
// portable C++, compiled once more for AVX2 where the active kernel is not
// the portable one. Internal header.
//
// One key at a time (LineSolver's insertion) every reduction step waits on
// the one before it: lowest bit, that column's pivot, xor. On the
// transpose, lane q is the mask of the equations with bit q (a column, or
// a fingerprint bit), and column p's step is
//     cand = lane[p] & ~pivots; i = lowest of cand (none: p is free);
//     s = lane[p] without i; pivots |= i;
//     for q > p: if (lane[q] has i) lane[q] ^= s
// whose updates of the later lanes are independent of each other: a loop
// the compiler vectorizes, with only the candidate's lowest bit on the
// chain from one column to the next. The pivots end reduced, each without
// any other pivot's column, so with the free columns 0 the planes are the
// pivots' fingerprints: bit p of plane b is bit pivot_of[p] of fingerprint
// lane b. The pivots and the first contradiction are those of adding the
// keys one at a time (compact_sweep.h), so the line's bytes are the same.

#pragma once

#include <cstddef>
#include <cstdint>

#include "compact_back_substitution.h"
#include "compact_layout.h"

namespace linebloom::internal::compact {

// Most equations SolveGaussJordan takes (two 64-bit words per lane).
inline constexpr size_t kMaxGaussJordanKeys = 128;

// The equations of the keys of `hashes` (count <= kMaxGaussJordanKeys),
// from each one's CodeOf, for R planes of C columns, laid out as
// SweepEquationsOf lays them: lo[i] the row's bits 0..63; hi[i] its bits
// 64..C-1 with the fingerprint above them (C > 64), or the fingerprint
// (C <= 64). Four keys at a time with AVX2 where the active kernel is not
// the portable one.
void GaussJordanEquationsOf(const uint64_t* hashes, size_t count, int columns, int planes, uint64_t* lo, uint64_t* hi);

// SolveReduced of `count` (<= kMaxGaussJordanKeys) equations of `columns`
// columns and `planes` fingerprint bits (lo and hi are only read): returns
// the first equation that contradicts the ones before it, or count; sets
// pivot_of[p] to the pivot of column p or -1; and writes the planes of
// every pivot (free columns 0) to *solution, unless stop_at_contradiction
// and an equation contradicts.
size_t SolveGaussJordan(const uint64_t* lo, const uint64_t* hi, size_t count, int columns, int planes, int8_t* pivot_of,
                        PlaneSet* solution, bool stop_at_contradiction);

}  // namespace linebloom::internal::compact
