// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// Elimination of a compact-filter line's equations column by column, with
// AVX-512 (compact_line_solver.h): forward on the equations as they are,
// two columns per step of the dependency chain (compact_sweep.cc), or
// Gauss-Jordan on their transpose, one bit mask per column, which gives
// the line's planes without a back substitution
// (compact_sweep_transposed.cc). Internal header.
//
// Equation i is two words: the row's bits 0..63 and its bits 64..C-1 with
// the fingerprint above them (C > 64), or the row and the fingerprint
// (C <= 64). For each column p in turn, the lowest-numbered equation that
// is not a pivot and has bit p becomes the pivot of p and is added to every
// other such equation. An equation is only ever added to a later one, so
// the first equations form the same pivots, and a non-pivot equation ends
// as the sum of itself and earlier ones, with a zero row: where its
// fingerprint part is not zero, the keys up to it contradict each other.
// The pivots and the first contradicting key are thus those of adding the
// keys one at a time, and a pivot equation is never changed once made.

#pragma once

#include <cstddef>
#include <cstdint>

#include "compact_back_substitution.h"

namespace linebloom::internal::compact {

// Most equations the sweep takes.
inline constexpr size_t kMaxSweepKeys = 128;

// Whether to use SweepColumns and SweepEquationsOf: the active kernel
// (linebloom/kernel.h) is the AVX-512 one, so LINEBLOOM_KERNEL and
// ForceKernel choose the portable elimination too.
bool HasSweep();

// The equations of the keys of `hashes` (count <= kMaxSweepKeys) for
// SweepColumns with R planes of C columns, in `lo` and `hi` (64-byte
// aligned, padded with zeros to a multiple of 8): each key's code, row and
// fingerprint (compact_layout.h), eight keys at once.
//   simple form: for each i: code = CodeOf(hashes[i]), row = RowOf(code, C),
//   fp = FingerprintOf(code, R); lo[i] = row.lo; hi[i] = C > 64 ?
//   row.hi | fp << (C - 64) : fp
void SweepEquationsOf(const uint64_t* hashes, size_t count, int columns, int planes, uint64_t* lo, uint64_t* hi);

// Eliminates equations (lo[i], hi[i]) for i < count (<= kMaxSweepKeys; the
// arrays hold a multiple of 8 equations, those from count on zero, 64-byte
// aligned) over columns 0..columns-1 in place. pivot_of[p] becomes the
// equation that is the pivot of column p, or -1. Returns the first
// equation that contradicts the ones before it, or count.
size_t SweepColumns(uint64_t* lo, uint64_t* hi, size_t count, int columns, int8_t* pivot_of);

// Whether SolveReduced takes `count` equations of `columns` columns: the
// active kernel is the AVX-512 one, the CPU also has AVX512_VBMI,
// AVX512_BITALG, AVX512_VPOPCNTDQ, GFNI and BMI2, columns is at most 84 (6
// planes or more),
// and count is at most 64, or 128 where columns is at least 63.
bool CanSolveReduced(size_t count, int columns);
// Test hook: with false, CanSolveReduced answers false, so that a CPU that
// has the reduced solve also builds as one without it does (the blocked
// sweep and back substitution). Not for use while filters are built.
void EnableSolveReducedForTesting(bool enabled);

// Gauss-Jordan elimination of the equations SweepColumns takes, with
// `planes` fingerprint bits, on their transpose (compact_sweep_transposed.cc;
// past 64 equations, the first 64 so and the others against them);
// lo and hi are only read. Returns what SweepColumns returns and sets
// pivot_of as it does. The planes of every pivot (free columns 0) go to
// *solution: bit p of plane b is fingerprint bit b of column p's pivot,
// which the reduction leaves without any other pivot's column. Equations
// that contradict are not pivots and change nothing there. With
// stop_at_contradiction, for a caller that only asks whether all fit, the
// planes are written only where none contradicts.
size_t SolveReduced(const uint64_t* lo, const uint64_t* hi, size_t count, int columns, int planes, int8_t* pivot_of,
                    PlaneSet* solution, bool stop_at_contradiction);

}  // namespace linebloom::internal::compact
