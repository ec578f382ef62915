// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// Solves the keys of one compact-filter line (compact_layout.h): finds the
// planes Z with s(x) . Z = f(x) for as many of the line's keys, taken in
// order, as the line holds, and writes the line. Internal header.
//
// Gaussian elimination, one key at a time: an equation (row, fingerprint)
// is reduced by the stored pivot of its lowest set row bit until that
// column has no pivot (the equation becomes the pivot) or the row vanishes
// (the key is dependent on earlier ones: consistent if the fingerprint
// vanished too, else a contradiction). Back substitution then fills the
// planes from the highest column down, with free columns 0. A line of C
// columns holds about C - 1 keys: the i-th random row falls in the span of
// the previous ones with probability 2^(i-C), and a dependent key fits
// only if its fingerprint agrees, with probability 2^-R. The insertion
// is the definition; lines of up to 128 keys are solved by Gauss-Jordan
// elimination on the transposed system instead (compact_sweep.h with
// AVX-512, compact_gauss_jordan.h elsewhere), which gives the same pivots,
// threshold and planes without a chain of dependent steps per key.
//
// The keys are taken in order, and the first contradiction's order is the
// line's threshold t: the keys of order >= t are bumped. The planes are
// those of every pivot, the bumped keys' that are independent of the keys
// before them included. They hold the stored keys all the same: a pivot is
// the sum of its own equation and earlier ones, so the pivots span exactly
// their own keys' equations, which are consistent, and a stored key that
// is not a pivot depends on earlier stored keys with a fingerprint that
// agrees. So the line takes one elimination of all its keys, where the
// stored keys alone would need a second one after the threshold is known.
//
// The line written depends only on the keys and their sequence: the
// pivots span the equations the sequence makes pivots, and with free
// columns 0 the solution on that span is unique. Where every key fits,
// the span is that of all keys, whatever their sequence; where keys are
// bumped, the sequence is by order and, within an order, by hash
// (compact_build.cc), so that the bytes do not depend on the order the
// keys came in. The threshold does not depend on the sequence within an
// order: the first contradiction falls in the first order group whose
// union with the lower ones is inconsistent.

#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "compact_layout.h"
#include "compact_sweep.h"

namespace linebloom::internal::compact {

// A key of a line: its code and its order in the line.
struct LineKey {
  uint64_t hash;  // the key's hash, for the next layer if it is bumped
  KeyCode code;
  uint32_t order;
};

// What SolveLine did.
struct LineOutcome {
  int planes = 0;     // R, the line's fingerprint bits
  int threshold = 0;  // t: keys of order >= t were bumped
  // keys[stored..] were bumped (keys are sorted by order, so they are the
  // keys of order >= t).
  size_t stored = 0;
};

class LineSolver {
 public:
  // Writes the 64-byte line at `line` for the keys of `hashes`, which must
  // be sorted by their orders `orders` (orders[i] of hashes[i]), and within
  // an order by hash where keys may be bumped. The line gets r + e planes
  // for the largest e <= extra_planes at which every key fits (at most
  // ColumnsFor(r + e) - 1 keys), else r planes and the keys of the lowest
  // orders that fit. extra_planes is at most E(r) (MaxExtraPlanes); 0
  // gives every line r planes.
  LineOutcome Solve(std::span<const uint64_t> hashes, const uint8_t* orders, int r, int extra_planes,
                    unsigned char* line);
  // As Solve, for keys sorted by order (their codes must be CodeOf(hash)).
  LineOutcome SolveLine(std::span<const LineKey> keys, int r, int extra_planes, unsigned char* line);

 private:
  void Reset(int planes);
  // Adds the equations of Solve's keys [0, count) in order, each that is
  // independent of the ones before it as a pivot; returns the first that
  // contradicts the ones before it, or count. With stop_at_contradiction
  // it may stop there (for a caller that only asks whether all fit).
  size_t Insert(size_t count, bool stop_at_contradiction);
  size_t InsertNarrow(size_t count, bool stop_at_contradiction);
  size_t InsertWide(size_t count, bool stop_at_contradiction);
  // Insert by SweepColumns (compact_sweep.h), or by SolveReduced, which
  // leaves the planes in solution_ (solved_).
  size_t InsertSwept(size_t count, bool stop_at_contradiction);
  // Insert by SolveGaussJordan (compact_gauss_jordan.h), without AVX-512:
  // the planes in solution_.
  size_t InsertGaussJordan(size_t count, bool stop_at_contradiction);
  // Writes the planes (solution_ if solved_, else those of the pivots by
  // back substitution) and the metadata byte: the threshold, or
  // ExtraPlanesMeta(extra) for extra > 0.
  void WriteLine(int threshold, int extra, unsigned char* line) const;

  int planes_ = 0;
  int columns_ = 0;
  Bits128 row_mask_;
  Bits128 filled_;  // bit p: column p has a pivot
  // Pivot p: its row (lowest set bit p) and its fingerprint.
  Bits128 pivot_rows_[128];
  uint32_t pivot_fps_[128];
  // The equations of InsertSwept and the pivot of each column.
  alignas(64) uint64_t eq_lo_[kMaxSweepKeys];
  alignas(64) uint64_t eq_hi_[kMaxSweepKeys];
  int8_t pivot_of_[128];
  bool swept_ = false;   // InsertSwept, from hashes_
  bool solved_ = false;  // the last Insert was SolveReduced's: solution_ holds the planes
  PlaneSet solution_;
  const uint64_t* hashes_ = nullptr;  // the keys of Solve
  std::vector<KeyCode> codes_;        // theirs, for the one-key-at-a-time insertion
};

}  // namespace linebloom::internal::compact
