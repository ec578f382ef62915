// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// One harness configuration (a filter family and mode) and what running it
// measures: the table is written, then absent and present keys are looked up
// through TableReader::Get, whose I/O layer counts every probe and read.

#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "linebloom/finite_bloom_fpr.h"
#include "linebloom/sstable/block_filter.h"
#include "linebloom/sstable/table_options.h"
#include "progress.h"
#include "workload.h"

namespace linebloom::harness {

// The expected false-positive rate of one filter of a table (its bytes and
// offset in the filter region, the table's filter parameters, the keys it
// holds), from the exact finite model; negative if the bytes are not
// understood.
using FprPredictor = std::function<double(std::string_view parameters, std::string_view filter, uint64_t region_offset,
                                          uint64_t keys, FiniteBloomFpr* model)>;

struct ConfigSpec {
  std::string name;  // stable: scripts key on it
  sstable::FilterMode mode = sstable::FilterMode::kNone;
  std::shared_ptr<const sstable::BlockFilterPolicy> policy;  // null for kNone
  FprPredictor predict;
};

// "none", "linebloom/per-block", "linebloom/per-file",
// "linebloom-compact/per-file" (the compact filter; bits clamped to its
// [5.5, 30]) and, when built with RocksDB, "rocksdb-builtin/per-block" and
// "rocksdb-builtin/per-file", all at `bits_per_key`.
std::vector<ConfigSpec> StandardConfigs(double bits_per_key);
bool HaveRocksdb();

struct RunOptions {
  size_t block_size = 4096;
  size_t value_size = 100;
  std::string dir;         // where table files go
  bool in_memory = false;  // tables in memory (sweeps): counts, no timings
  bool time_lookups = true;
  bool direct = true;  // also measure with O_DIRECT
  size_t direct_lookups = 2000;
  size_t max_present_lookups = SIZE_MAX;  // cap on the present-key lookups
  bool keep_files = false;
};

struct Latency {
  double p50_ns = 0, p99_ns = 0;
};

struct ConfigResult {
  std::string name;
  uint64_t keys = 0;
  uint64_t file_bytes = 0;
  uint64_t data_blocks = 0;
  uint64_t filter_bytes = 0;
  // Everything the filters cost per key: every filter byte, the table's
  // filter parameters and the index fields that locate the filters.
  double filter_bits_per_key = 0;
  bool has_filter = false;
  // Absent-key lookups.
  uint64_t absent_lookups = 0;
  uint64_t filter_probes = 0;
  uint64_t false_positives = 0;
  double measured_fpr = 0, predicted_fpr = 0;  // has_filter only
  double absent_block_reads = 0;               // per lookup
  double absent_bytes_read = 0;                // per lookup, buffered
  double io_avoided_fraction = 0;              // vs the "none" config of the same run (NaN without one)
  // Present-key lookups.
  uint64_t present_lookups = 0;
  double present_block_reads = 0;                          // per lookup
  uint64_t false_negatives = 0;                            // present key not found or wrong value
  uint64_t wrong_answers = 0;                              // absent key "found"
  std::optional<Latency> absent_latency, present_latency;  // buffered
  std::optional<Latency> direct_absent_latency, direct_present_latency;
  double direct_absent_bytes_read = 0;  // per lookup, O_DIRECT
  double build_seconds = 0;
};

// Writes the table for `spec`, runs the lookups, returns the measurements.
// `progress` may be null.
// Fails (false, *error) only on an I/O or corruption error. `direct_note`
// receives a message if O_DIRECT had to be skipped.
bool RunConfig(const ConfigSpec& spec, const Workload& workload, const RunOptions& options, Progress* progress,
               ConfigResult* result, std::string* direct_note, std::string* error);

// Fills io_avoided_fraction of every result from the "none" one (if any).
void SetIoAvoided(std::vector<ConfigResult>* results);

}  // namespace linebloom::harness
