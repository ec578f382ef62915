// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// A run: one sorted micro-SSTable (NNNNNN.sst, a linebloom filter per data
// block) plus an optional whole-run linebloom filter (NNNNNN.lbf, Bloom or
// compact: run_filter.h). A Get for an absent key is stopped, cheapest
// first, by the run's key range, the run filter, then the data block's
// filter; only a "maybe" from all of them reads a block. Internal header.

#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "entry.h"
#include "filter_allocation.h"
#include "linebloom/kvstore/options.h"
#include "linebloom/kvstore/stats.h"
#include "linebloom/sstable/table_reader.h"
#include "linebloom/sstable/table_writer.h"
#include "lookup_counter_fields.h"
#include "manifest.h"
#include "run_filter.h"

namespace linebloom::kvstore::internal {

// LookupCounters that many readers add to at once.
class AtomicLookupCounters {
 public:
  void Add(const LookupCounters& c);
  LookupCounters Load() const;

 private:
  // One per entry of kLookupCounterFields, in its order.
  std::array<std::atomic<uint64_t>, kLookupCounterFields.size()> values_{};
};

enum class RunLookup { kAbsent, kValue, kDeleted };

class Run {
 public:
  // Opens the run's files and checks them against what the MANIFEST says.
  static Status Open(Env* env, const std::string& dir, const RunMeta& meta, IoMode mode, std::shared_ptr<Run>* run);

  const RunMeta& meta() const { return meta_; }
  // The key's state in this run; *cost gets what finding it out took.
  Status Get(std::string_view key, RunLookup* result, std::string* value, LookupCounters* cost) const;
  std::unique_ptr<sstable::TableIterator> NewIterator() const;
  bool Overlaps(std::string_view from, std::optional<std::string_view> to) const;

  size_t data_blocks() const { return table_->num_blocks(); }
  uint64_t filter_bytes() const { return run_filter_bytes() + block_filter_bytes(); }
  uint64_t run_filter_bytes() const { return run_filter_.bytes().size(); }
  uint64_t block_filter_bytes() const { return table_->filter_memory(); }
  // kBloom or kCompact; kUnknown without a run filter.
  FilterKind run_filter_kind() const { return run_filter_reader_.kind(); }
  AtomicLookupCounters& counters() const { return counters_; }

 private:
  Run(RunMeta meta, std::unique_ptr<sstable::TableReader> table, AlignedFilter filter_bytes);

  RunMeta meta_;
  std::unique_ptr<sstable::TableReader> table_;
  AlignedFilter run_filter_;  // empty without a run filter
  RunFilterReader run_filter_reader_;
  mutable AtomicLookupCounters counters_;
};

// Writes a new run from entries given in strictly increasing key order.
class RunBuilder {
 public:
  // `bits`: of the run filter (of bits.run_filter_kind) and the block
  // filters; 0 = build none.
  static Status Create(Env* env, const std::string& dir, uint64_t file_number, int level, const Options& options,
                       RunFilterBits bits, std::unique_ptr<RunBuilder>* builder);
  ~RunBuilder();

  Status Add(std::string_view key, EntryKind kind, std::string_view value);
  uint64_t num_entries() const { return meta_.num_entries; }
  // Finishes and syncs both files (not their directory entries).
  Status Finish(RunMeta* meta);
  // Removes whatever was written (best effort; Open cleans up leftovers too).
  void Abandon();

 private:
  RunBuilder(Env* env, std::string dir, RunMeta meta, const RunFilterBits& bits);

  Env* const env_;
  const std::string dir_;
  RunMeta meta_;
  std::unique_ptr<sstable::TableWriter> table_;
  std::unique_ptr<RunFilterBuilder> filter_;  // null without a run filter
  bool finished_ = false;
};

}  // namespace linebloom::kvstore::internal
