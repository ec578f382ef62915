// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.

#include "compact_line_solver.h"

#include <algorithm>
#include <cstring>

#include "compact_back_substitution.h"
#include "compact_gauss_jordan.h"

namespace linebloom::internal::compact {
namespace {

// RowOf for C <= 64 columns (`mask`): the row is the low word alone.
inline uint64_t NarrowRowOf(const KeyCode& code, uint64_t mask) {
  uint64_t row = code.row_lo & mask;
  return row | static_cast<uint64_t>(row == 0);
}

}  // namespace

void LineSolver::Reset(int planes) {
  planes_ = planes;
  columns_ = ColumnsFor(planes);
  row_mask_ = LowMask(columns_);
  filled_ = {};
}

// Rows of at most 64 columns (R >= 8): one word each. The reduction is a
// chain of dependent steps (lowest bit, its pivot, xor), so it is kept to
// the fewest instructions.
size_t LineSolver::InsertNarrow(size_t count, bool stop_at_contradiction) {
  const uint64_t mask = row_mask_.lo;
  uint64_t filled = filled_.lo;
  size_t first = count;
  for (size_t i = 0; i < count; ++i) {
    uint64_t row = NarrowRowOf(codes_[i], mask);
    uint32_t fp = FingerprintOf(codes_[i], planes_);
    while (row != 0) {
      const int p = std::countr_zero(row);
      if (((filled >> p) & 1) == 0) {
        pivot_rows_[p] = {row, 0};
        pivot_fps_[p] = fp;
        filled |= uint64_t{1} << p;
        break;
      }
      row ^= pivot_rows_[p].lo;
      fp ^= pivot_fps_[p];
    }
    // The row vanished (no pivot made): the key depends on earlier ones.
    if (row == 0 && fp != 0 && first == count) {
      first = i;
      if (stop_at_contradiction) break;
    }
  }
  filled_.lo = filled;
  return first;
}

// Rows of 65..100 columns (R <= 7): two words.
size_t LineSolver::InsertWide(size_t count, bool stop_at_contradiction) {
  size_t first = count;
  for (size_t i = 0; i < count; ++i) {
    uint32_t fp = FingerprintOf(codes_[i], planes_);
    if (AddEquation(RowOf(codes_[i], columns_), fp, pivot_rows_, pivot_fps_, filled_) < 0 && fp != 0 &&
        first == count) {
      first = i;
      if (stop_at_contradiction) break;
    }
  }
  return first;
}

size_t LineSolver::InsertSwept(size_t count, bool stop_at_contradiction) {
  SweepEquationsOf(hashes_, count, columns_, planes_, eq_lo_, eq_hi_);
  solved_ = CanSolveReduced(count, columns_);
  if (solved_) {
    return SolveReduced(eq_lo_, eq_hi_, count, columns_, planes_, pivot_of_, &solution_, stop_at_contradiction);
  }
  const bool narrow = columns_ <= 64;
  const int fp_shift = narrow ? 0 : columns_ - 64;
  const size_t first = SweepColumns(eq_lo_, eq_hi_, count, columns_, pivot_of_);
  const uint64_t hi_row_mask = row_mask_.hi;
  for (int p = 0; p < columns_; ++p) {
    const int i = pivot_of_[p];
    if (i < 0) continue;
    (p < 64 ? filled_.lo : filled_.hi) |= uint64_t{1} << (p & 63);
    pivot_rows_[p] = {eq_lo_[i], narrow ? 0 : eq_hi_[i] & hi_row_mask};
    pivot_fps_[p] = static_cast<uint32_t>(narrow ? eq_hi_[i] : eq_hi_[i] >> fp_shift);
  }
  return first;
}

size_t LineSolver::InsertGaussJordan(size_t count, bool stop_at_contradiction) {
  static_assert(kMaxGaussJordanKeys <= kMaxSweepKeys);  // eq_lo_, eq_hi_
  GaussJordanEquationsOf(hashes_, count, columns_, planes_, eq_lo_, eq_hi_);
  solved_ = true;
  return SolveGaussJordan(eq_lo_, eq_hi_, count, columns_, planes_, pivot_of_, &solution_, stop_at_contradiction);
}

size_t LineSolver::Insert(size_t count, bool stop_at_contradiction) {
  if (swept_) return InsertSwept(count, stop_at_contradiction);
  if (count <= kMaxGaussJordanKeys) return InsertGaussJordan(count, stop_at_contradiction);
  solved_ = false;
  return columns_ <= 64 ? InsertNarrow(count, stop_at_contradiction) : InsertWide(count, stop_at_contradiction);
}

LineOutcome LineSolver::Solve(std::span<const uint64_t> hashes, const uint8_t* orders, int r, int extra_planes,
                              unsigned char* line) {
  const size_t k = hashes.size();
  // The sweep and Gauss-Jordan make their equations from the hashes; the
  // one-key-at-a-time insertion reads the codes.
  swept_ = k <= kMaxSweepKeys && HasSweep();
  hashes_ = hashes.data();
  if (!swept_ && k > kMaxGaussJordanKeys) {
    if (codes_.size() < k) codes_.resize(k);
    for (size_t i = 0; i < k; ++i) codes_[i] = CodeOf(hashes[i]);
  }
  for (int e = extra_planes; e >= 1; --e) {
    if (k + 1 > static_cast<size_t>(ColumnsFor(r + e))) continue;
    Reset(r + e);
    if (Insert(k, /*stop_at_contradiction=*/true) == k) {
      WriteLine(kAllStored, e, line);
      return {r + e, kAllStored, k};
    }
  }
  Reset(r);
  const size_t first = Insert(k, /*stop_at_contradiction=*/false);
  LineOutcome out{r, kAllStored, k};
  if (first < k) {
    // Bump every key of the failing key's order and above, those of that
    // order before it too. The planes stay those of every pivot, the
    // bumped keys' among them (header comment).
    out.threshold = orders[first];
    size_t below = first;
    while (below > 0 && orders[below - 1] >= orders[first]) --below;
    out.stored = below;
  }
  WriteLine(out.threshold, 0, line);
  return out;
}

LineOutcome LineSolver::SolveLine(std::span<const LineKey> keys, int r, int extra_planes, unsigned char* line) {
  std::vector<uint64_t> hashes(keys.size());
  std::vector<uint8_t> orders(keys.size());
  for (size_t i = 0; i < keys.size(); ++i) {
    hashes[i] = keys[i].hash;
    orders[i] = static_cast<uint8_t>(keys[i].order);
  }
  return Solve(hashes, orders.data(), r, extra_planes, line);
}

void LineSolver::WriteLine(int threshold, int extra, unsigned char* line) const {
  const PlaneSet planes =
      solved_ ? solution_ : BackSubstitute(PivotSystem{pivot_rows_, pivot_fps_, filled_, columns_, planes_});
  uint64_t words[8] = {};
  for (int b = 0; b < planes_; ++b) OrBits(words, b * columns_, planes.planes[b], columns_);
  std::memcpy(line, words, kLineBytes);
  line[kMetaByte] = extra > 0 ? ExtraPlanesMeta(extra) : static_cast<unsigned char>(threshold);
}

}  // namespace linebloom::internal::compact
