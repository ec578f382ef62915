// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// The CPU time a filter policy spends building filters, measured inside a
// RocksDB process (linebloom-refilter) for any policy, RocksDB's own ones
// included.
//
// TimedFilterPolicy wraps a policy. Each builder it hands out records the
// keys RocksDB adds and, at Finish, feeds them to the wrapped policy's
// builder in one go, with the calling thread's CPU clock
// (CLOCK_THREAD_CPUTIME_ID) read around those AddKey calls and the wrapped
// Finish. Why replay instead of timing each call where it happens: RocksDB
// adds a key between writing data blocks, so a clock around the whole table
// build would count the compaction too, and reading a thread's CPU clock is
// a system call, far dearer than one AddKey. The wrapped builder sees the
// same keys in the same order, so it writes the very same filter; only the
// order of its work relative to the data blocks changes. The time of the
// wrapped policy's GetBuilderWithContext (a level-aware policy plans the
// file's bits there) is counted too. Not counted: the recording itself and
// CalculateSpace (RocksDB's file-size estimate after each data block, O(1)).

#pragma once

#include <atomic>
#include <cstdint>
#include <memory>

#include "linebloom/rocksdb/filter_bits.h"

namespace linebloom::refilter {

// What the builders of one TimedFilterPolicy spent, summed over threads.
struct BuildTotals {
  uint64_t cpu_ns = 0;     // thread CPU time in the wrapped policy's build calls
  uint64_t setup_ns = 0;   // of it, in GetBuilderWithContext
  uint64_t finish_ns = 0;  // of it, in Finish (the rest: the replayed AddKeys)
  uint64_t filters = 0;    // builders finished
  uint64_t keys = 0;       // keys replayed into them
};

class TimedFilterPolicy : public ::rocksdb::FilterPolicy {
 public:
  explicit TimedFilterPolicy(std::shared_ptr<const ::rocksdb::FilterPolicy> wrapped);

  // The wrapped policy's names: the table properties and the meta block key
  // name the policy that built the filter, so readers find it as usual.
  const char* Name() const override { return wrapped_->Name(); }
  const char* CompatibilityName() const override { return wrapped_->CompatibilityName(); }

  ::rocksdb::FilterBitsBuilder* GetBuilderWithContext(const ::rocksdb::FilterBuildingContext& context) const override;
  ::rocksdb::FilterBitsReader* GetFilterBitsReader(const ::rocksdb::Slice& contents) const override {
    return wrapped_->GetFilterBitsReader(contents);
  }

  // The totals since the last call, and zero them (one pass at a time).
  BuildTotals TakeTotals() const;

  // Adds one filter's spend (called by the builders): CPU_NS in all,
  // SETUP_NS of it in GetBuilderWithContext, FINISH_NS in Finish.
  void Add(uint64_t cpu_ns, uint64_t setup_ns, uint64_t finish_ns, uint64_t keys) const;

 private:
  std::shared_ptr<const ::rocksdb::FilterPolicy> wrapped_;
  mutable std::atomic<uint64_t> cpu_ns_{0}, setup_ns_{0}, finish_ns_{0}, filters_{0}, keys_{0};
};

// The calling thread's CPU time in nanoseconds.
uint64_t ThreadCpuNanos();

}  // namespace linebloom::refilter
