// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// Solves the keys of one compact-filter line (compact_layout.h): finds the
// planes Z with s(x) . Z = f(x) for as many of the line's keys, taken in
// order, as the line holds, and writes the line. Internal header.
//
// Gaussian elimination, one key at a time: an equation (row, fingerprint)
// is reduced by the stored pivot of its lowest set row bit until that
// column has no pivot (the equation becomes the pivot) or the row vanishes
// (the key is dependent on stored ones: consistent if the fingerprint
// vanished too, else the line cannot hold it). Back substitution then fills
// the planes from the highest column down, with free columns 0. A line of
// C columns holds about C - 1 keys: the i-th random row falls in the span
// of the previous ones with probability 2^(i-C), and a dependent key fits
// only if its fingerprint agrees, with probability 2^-R.
//
// The line written depends only on the set of keys stored, not on the
// order they were added in: the pivot columns are the leading columns of
// the echelon form of the stored rows' span, and with free columns 0 the
// solution on them is unique. So is the threshold: the first key of a
// sorted sequence that contradicts the keys before it has the order of the
// first order group whose union with the lower ones is inconsistent.

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
  // be sorted by their orders `orders` (orders[i] of hashes[i]). The line
  // gets r + e planes for the largest e <= extra_planes at which every key
  // fits (at most ColumnsFor(r + e) - 1 keys), else r planes and the keys
  // of the lowest orders that fit. extra_planes is at most E(r)
  // (MaxExtraPlanes); 0 gives every line r planes.
  LineOutcome Solve(std::span<const uint64_t> hashes, const uint8_t* orders, int r, int extra_planes,
                    unsigned char* line);
  // As Solve, for keys sorted by order (their codes must be CodeOf(hash)).
  LineOutcome SolveLine(std::span<const LineKey> keys, int r, int extra_planes, unsigned char* line);

 private:
  void Reset(int planes);
  // Adds the equations of Solve's keys [0, count) in order until one contradicts
  // the stored ones; returns how many fit. added_[i] is the column key i
  // became the pivot of, or -1.
  size_t InsertPrefix(size_t count);
  size_t InsertPrefixNarrow(size_t count);
  size_t InsertPrefixWide(size_t count);
  // InsertPrefix by SweepColumns (compact_sweep.h), or by SolveReduced,
  // which leaves the planes in solution_ where every key fits (solved_).
  size_t InsertPrefixSwept(size_t count);
  // Removes the pivots of keys [from, to).
  void Forget(size_t from, size_t to);
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
  // The equations of InsertPrefixSwept and the pivot of each column.
  alignas(64) uint64_t eq_lo_[kMaxSweepKeys];
  alignas(64) uint64_t eq_hi_[kMaxSweepKeys];
  int8_t pivot_of_[128];
  bool swept_ = false;    // InsertPrefixSwept, from hashes_
  bool reduced_ = false;  // the last InsertPrefix was SolveReduced's
  bool solved_ = false;   // and every key fit: solution_ holds the planes
  PlaneSet solution_;
  const uint64_t* hashes_ = nullptr;  // the keys of Solve
  std::vector<KeyCode> codes_;        // theirs, where not swept
  std::vector<int8_t> added_;
};

}  // namespace linebloom::internal::compact
