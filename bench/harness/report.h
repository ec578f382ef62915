// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// The harness's results as a table for people, one JSON document, or CSV
// rows. JSON field names are an interface (scripts depend on them): the
// top level has keys, lookups, bits_per_key, block_size and configs; each
// config has name, filter_bytes, measured_fpr, predicted_fpr,
// absent_block_reads, absent_bytes_read, io_avoided_fraction,
// present_block_reads, p50_ns, p99_ns, false_negatives (and more fields
// that may be added to, never renamed). Per-lookup figures are averages over
// the lookups; p50_ns/p99_ns are buffered absent-key lookups.

#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "experiment.h"

namespace linebloom::harness {

struct RunInfo {
  uint64_t keys = 0;
  uint64_t lookups = 0;          // absent-key lookups per config
  uint64_t present_lookups = 0;  // present-key lookups per config
  double bits_per_key = 0;
  uint64_t block_size = 0;
  uint64_t value_size = 0;
  std::string key_source;
  uint64_t direct_lookups = 0;  // 0 when O_DIRECT was not measured
  std::string notes;            // e.g. why O_DIRECT was skipped
};

void PrintTable(std::FILE* out, const RunInfo& info, const std::vector<ConfigResult>& results);
void PrintJson(std::FILE* out, const RunInfo& info, const std::vector<ConfigResult>& results);
void PrintCsv(std::FILE* out, const RunInfo& info, const std::vector<ConfigResult>& results);

}  // namespace linebloom::harness
