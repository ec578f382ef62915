// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// The harness's LSM mode: N keys laid out over L levels with size ratio T,
// one micro-SSTable per level with one whole-file linebloom filter each, and
// every absent-key lookup consulting every level (each level spans the whole
// key range, as a level of a leveled LSM does). Compares uniform bits per key
// with the level-aware allocation (level_allocator.h) at the same filter
// budget, and with that allocation over a compact filter at the last level: expected (formula) and measured wasted
// block reads per lookup, and the filter bytes of both, so equal memory is visible.

#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "workload.h"

namespace linebloom::harness {

struct LsmLevel {
  uint64_t keys = 0;
  double bits_per_key = 0;  // allocated (0: no filter)
  int probes = 0;
  bool compact = false;  // a compact filter (probes 0) instead of a Bloom one
  uint64_t filter_bytes = 0;
  double expected_fpr = 0;  // BlockedFpr at the filter's real size (1 without a filter)
  uint64_t lookups = 0, false_positives = 0;
  double measured_fpr() const { return lookups ? static_cast<double>(false_positives) / lookups : 0; }
};

struct LsmResult {
  std::string name;  // "uniform", "level-aware" or "level-aware+compact-last"
  std::vector<LsmLevel> levels;
  uint64_t filter_bytes = 0;
  uint64_t lookups = 0;
  double expected_reads_per_lookup = 0;  // sum of expected_fpr
  double measured_reads_per_lookup = 0;  // wasted block reads / absent lookups
  uint64_t false_negatives = 0;          // present keys reported absent (must be 0)
};

// Builds the tree three times (uniform, level-aware, level-aware with a
// compact last level) in `dir` and runs the
// absent lookups of `workload` against every level. Returns false with
// *error on an I/O or format error.
bool RunLsm(const Workload& workload, int levels, double size_ratio, double bits_per_key, const std::string& dir,
            std::vector<LsmResult>* results, std::string* error);

void PrintLsmTable(FILE* out, const std::vector<LsmResult>& results, double size_ratio, double bits_per_key);
// {"lsm": {"size_ratio":..,"bits_per_key":..,"configs":[{"name":..,"levels":[..],totals}]}}
void PrintLsmJson(FILE* out, const std::vector<LsmResult>& results, double size_ratio, double bits_per_key);

}  // namespace linebloom::harness
