// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// The bits-per-key sweep behind --svg: every filter configuration at several
// bits/key (tables in memory: the counts are exact whatever the medium), and
// the two plots drawn from it.

#pragma once

#include <string>
#include <vector>

#include "experiment.h"
#include "progress.h"
#include "workload.h"

namespace linebloom::harness {

struct SweepPoint {
  double nominal_bits = 0;
  ConfigResult result;
};

// Work units RunSweep reports to the progress bar.
uint64_t SweepWork(const Workload& w, size_t num_bits, size_t present_lookups, const std::vector<std::string>& only);

// Runs every standard configuration (only those named in `only`, if it is
// not empty; "none" always, for the I/O avoided) at each of `bits`.
bool RunSweep(const Workload& w, const RunOptions& options, const std::vector<double>& bits,
              const std::vector<std::string>& only, Progress* progress, std::vector<SweepPoint>* points,
              std::string* error);

// Writes fpr_vs_bits_per_key.svg, io_avoided_vs_bits_per_key.svg and the
// points as sweep.csv into `dir` (created if missing).
bool WritePlots(const std::string& dir, const std::vector<SweepPoint>& points, uint64_t keys, size_t block_size,
                std::vector<std::string>* written, std::string* error);

}  // namespace linebloom::harness
