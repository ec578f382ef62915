// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// What a KvStore's point lookups cost, per run and per level, so a user sees
// the reads the filters avoided on their own workload. Counters are
// cumulative over the store's life: Close saves them (advisory, in the file
// STATS) and Open restores them.
//
// For one run, a Get of a key that is not in the memtable or a newer run:
//   lookups = range_skips + run_filter_checks
//   run_filter_checks = run_filter_negatives + block_filter_checks
//   block_filter_checks = block_filter_negatives + block_reads
//   block_reads = hits + false_positives (+ tombstones found)
// (a check that is switched off passes everything through to the next).

#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace linebloom::kvstore {

struct LookupCounters {
  uint64_t lookups = 0;      // Gets that reached this run
  uint64_t range_skips = 0;  // key outside [smallest, largest]
  uint64_t run_filter_checks = 0;
  uint64_t run_filter_negatives = 0;  // the run was skipped by its filter
  uint64_t block_filter_checks = 0;
  uint64_t block_filter_negatives = 0;  // the block was skipped by its filter
  uint64_t block_reads = 0;             // data blocks read
  uint64_t bytes_read = 0;
  uint64_t false_positives = 0;  // block read, key not in it
  uint64_t hits = 0;             // the key (value or tombstone) was found

  // Block reads a filter made unnecessary: without filters each of these
  // lookups would have read one data block.
  uint64_t reads_avoided() const { return run_filter_negatives + block_filter_negatives; }
  LookupCounters& operator+=(const LookupCounters& o);
};

struct RunStats {
  uint64_t file_number = 0;
  int level = 0;
  uint64_t entries = 0;
  uint64_t table_bytes = 0;
  uint64_t data_blocks = 0;
  // Bytes of filter held in memory: the run filter plus the block filters.
  uint64_t filter_bytes = 0;
  // filter_bytes * 8 / entries: the bits this run was given (with both
  // filter kinds, their sum), including rounding up to whole blocks.
  double filter_bits_per_key = 0;
  // Of those, the per-block filters of the run's table (table format 2:
  // every filter byte, the filter parameters and the index's filter sizes).
  uint64_t block_filter_bytes = 0;
  double block_filter_bits_per_key = 0;
  // "bloom", "compact" (Options::compact_run_filters_from_level) or "none".
  std::string run_filter_kind = "none";
  LookupCounters counters;
};

struct LevelStats {
  int level = 0;
  uint64_t runs = 0;
  uint64_t entries = 0;
  uint64_t table_bytes = 0;
  // Configured for this level (FilterAllocation::kPerLevel), or the average
  // budget (kRunAware, which sets each run's bits itself: see RunStats).
  double bits_per_key = 0;
  uint64_t filter_bytes = 0;       // of the live runs
  double filter_bits_per_key = 0;  // filter_bytes * 8 / entries
  // Includes runs that compactions have since merged away.
  LookupCounters counters;
};

struct StoreStats {
  uint64_t gets = 0;
  uint64_t memtable_hits = 0;  // Gets answered by the memtable
  uint64_t puts = 0;
  uint64_t deletes = 0;
  uint64_t scans = 0;
  uint64_t flushes = 0;
  uint64_t compactions = 0;
  uint64_t memtable_entries = 0;
  uint64_t memtable_bytes = 0;
  // What the last Open found in the write-ahead log: intact records replayed
  // and the bytes of a torn last record dropped.
  uint64_t wal_records_replayed = 0;
  uint64_t wal_bytes_dropped = 0;
  std::vector<LevelStats> levels;  // levels that have runs or counts
  std::vector<RunStats> runs;      // newest first
  uint64_t filter_bytes = 0;       // over all live runs
  uint64_t run_entries = 0;        // over all live runs
  double filter_bits_per_key = 0;  // filter_bytes * 8 / run_entries
  LookupCounters total;            // over all levels
  // The last error of a flush or compaction that ran after a write (the
  // write itself succeeded), or "".
  std::string background_error;
};

// The stats as a JSON object (what `linebloom-kv DIR stats` prints).
std::string StatsToJson(const StoreStats& stats);

}  // namespace linebloom::kvstore
