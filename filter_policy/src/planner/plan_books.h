// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// The books of a tracked plan: the real bytes the live files' filters take
// under a plan, against RocksDB's built-in Bloom filter's bytes for the
// same files at the configured bits per key. Each live file of levels
// s..D is booked at its run's bits, or, when pinned (an upper-level file
// that cannot move down), at its level's own bits; L0's files overlap, so
// none is live, and the books count the model's L0 run as one file.

#pragma once

#include <cstdint>
#include <vector>

#include "linebloom/planner/tracked_tree.h"
#include "tracked_runs.h"

namespace linebloom::planner {

class PlanBooks {
 public:
  PlanBooks(const TrackedTree& tree, const TrackedRuns& runs, double average_bits_per_key);

  // The built-in's bytes for the live files and the model L0 run.
  double builtin_bytes() const { return builtin_; }
  // The live keys, each level's scaled as its runs count them.
  double recorded_keys() const { return recorded_keys_; }
  // The nominal average: the built-in's bytes less the per-file overhead
  // linebloom pays on top of the bits (the trailer and half a block of
  // rounding on average), per live key; within [0.5, 1.5] times the
  // configured bits per key.
  double NominalAverage() const;
  // The real bytes under `bits` per run (pinned files at `own_bits`).
  double RealBytes(const std::vector<double>& bits, const std::vector<double>& own_bits) const;
  // The largest excess of an upper-level file's bytes under its booked bits
  // over the built-in's bytes for it.
  double LargestUpperExcess(const std::vector<double>& bits, const std::vector<double>& own_bits) const;

 private:
  struct Booked {
    int level;
    size_t run;
    const TrackedTree::Live* file;
    bool pinned;
  };
  double BookedBits(const Booked& b, const std::vector<double>& bits, const std::vector<double>& own_bits) const {
    return b.pinned ? own_bits[b.run] : bits[b.run];
  }

  const TrackedRuns& runs_;
  const double average_bits_per_key_;
  const int deepest_;
  uint64_t l0_keys_ = 0;
  double builtin_ = 0, recorded_keys_ = 0, files_ = 0;
  std::vector<Booked> booked_;
};

}  // namespace linebloom::planner
