// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// The books of a tracked plan: the real bytes the live files' filters take
// under a plan, against RocksDB's built-in Bloom filter's bytes for the
// same files at the configured bits per key. Each live file of levels
// s..D is booked at its run's bits, or, when pinned (an upper-level file
// that cannot move down), at its level's own bits, and priced as its
// level's kind of filter is: a Bloom filter's whole blocks and trailer
// (FilterBytesFor), a compact filter's expected bytes
// (ExpectedCompactBytes: its bits with no blocks to round to). L0's files
// overlap, so none is live, and the books count the model's L0 run as one
// file.

#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "linebloom/filter_format.h"
#include "linebloom/filter_kind.h"
#include "linebloom/planner/planner_options.h"
#include "linebloom/planner/tracked_tree.h"
#include "tracked_runs.h"

namespace linebloom::planner {

// The books' totals, which need no file's pinning: the built-in's bytes
// for the live files of levels >= 1 (each level scaled as its runs count
// it) and the model L0 run, the live keys and files. Enough for the
// nominal average, which a pinned file's own bits need (OwnBitsPerKey)
// without the per-file books of the last level's fit.
struct BookTotals {
  BookTotals(const TrackedTree& tree, const TrackedRuns& runs, const PlannerOptions& options);
  // The nominal average: the built-in's bytes less the per-file overhead
  // linebloom pays on top of the bits (a Bloom filter's trailer and half a
  // block of rounding on average, a compact filter's CompactOverheadBytes),
  // per live key; within [0.5, 1.5] times the configured bits per key.
  double NominalAverage() const;

  double average_bits_per_key = 0;
  uint64_t l0_keys = 0;  // the model L0 run's, 0 when it has none
  double builtin = 0, recorded_keys = 0;
  // Live files of Bloom levels, and the compact levels' overhead.
  double bloom_files = 0, compact_overhead = 0;
};

class PlanBooks {
 public:
  PlanBooks(const TrackedTree& tree, const TrackedRuns& runs, const PlannerOptions& options);

  // The built-in's bytes for the live files and the model L0 run.
  double builtin_bytes() const { return totals_.builtin; }
  // The live keys, each level's scaled as its runs count them.
  double recorded_keys() const { return totals_.recorded_keys; }
  double NominalAverage() const { return totals_.NominalAverage(); }
  // The real bytes under `bits` per run (pinned files at `own_bits`).
  double RealBytes(const std::vector<double>& bits, const std::vector<double>& own_bits) const;
  // The largest excess of an upper-level file's bytes under its booked bits
  // over the built-in's bytes for it.
  double LargestUpperExcess(const std::vector<double>& bits, const std::vector<double>& own_bits) const;
  // The largest x that `steps` halvings of [0, hi] find with
  // RealBytes(bits with bits.back() = x, own_bits) <= builtin_bytes(), the
  // same x to the last bit as a bisection that calls RealBytes. It sums
  // once the files whose bits do not depend on the last run's, and each
  // step computes a last-run file's bytes only while they differ at the
  // two ends of the interval (they are monotone in the bits, so they are
  // the same everywhere between): after a few steps, few files.
  double FitLastRun(std::vector<double> bits, const std::vector<double>& own_bits, double hi, int steps) const;

 private:
  struct Booked {
    int level;
    size_t run;
    const TrackedTree::Live* file;
    bool pinned;
    bool compact;  // the level's kind is the compact filter
  };
  double BookedBits(const Booked& b, const std::vector<double>& bits, const std::vector<double>& own_bits) const {
    return b.pinned ? own_bits[b.run] : bits[b.run];
  }
  // A booked file's term of RealBytes at `file_bits`.
  double BookedBytes(const Booked& b, double file_bits) const {
    return file_bits > 0 ? runs_.Scale(b.level) * FileBytes(b.file->keys, file_bits, b.compact) : 0.0;
  }
  static double FileBytes(uint64_t keys, double file_bits, bool compact);
  // L0's bytes and those of `booked`, in order: RealBytes over part of the books.
  double SumBytes(std::span<const Booked> booked, const std::vector<double>& bits,
                  const std::vector<double>& own_bits) const;

  const TrackedRuns& runs_;
  const BookTotals totals_;
  const int deepest_;
  const bool l0_compact_;
  std::vector<Booked> booked_;
};

}  // namespace linebloom::planner
