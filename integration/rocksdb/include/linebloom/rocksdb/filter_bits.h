// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// RocksDB's FilterBitsBuilder and FilterBitsReader, declared here because
// RocksDB 7.x keeps them out of its public headers (they live in
// table/block_based/filter_policy_internal.h of its source tree) while
// FilterPolicy::GetBuilderWithContext / GetFilterBitsReader hand them out.
//
// A class declared twice must be declared identically (the one-definition
// rule): RocksDB calls these functions through the vtable, by slot number, so
// what matters is exactly which virtual functions exist and in which order.
// The slots below are those of RocksDB 7.8.x. Any other version fails to
// compile instead of calling the wrong function at run time.
//
// Adding a version: read filter_policy_internal.h of that release, add an
// `#elif` branch with its virtual functions in its order (8.x, for example,
// adds AddKeyAndAlt before EstimateEntriesAdded), and run
// tests/rocksdb/filter_bits_layout_test, which drives RocksDB's own Bloom
// filter through this declaration and fails or crashes on a mismatch.

#pragma once

#include <cstddef>
#include <memory>

#include <rocksdb/filter_policy.h>
#include <rocksdb/slice.h>
#include <rocksdb/status.h>
#include <rocksdb/version.h>

#if !defined(ROCKSDB_MAJOR) || !defined(ROCKSDB_MINOR)
#error "linebloom: <rocksdb/version.h> did not define ROCKSDB_MAJOR/ROCKSDB_MINOR"
#elif ROCKSDB_MAJOR == 7 && ROCKSDB_MINOR == 8

namespace ROCKSDB_NAMESPACE {

// Accumulates the keys of one filter (a whole SST file, or one partition) and
// serialises the filter.
class FilterBitsBuilder {
 public:
  virtual ~FilterBitsBuilder() {}

  // Called for every key (or prefix) in sorted order; repeats are adjacent.
  virtual void AddKey(const Slice& key) = 0;

  // Number of entries added so far (an estimate is allowed: partitioned
  // filters use it to decide when to cut a partition).
  virtual size_t EstimateEntriesAdded() = 0;

  // Builds the filter, stores its owning buffer in *buf and returns a view of
  // the filter bytes. Resets the builder for the next filter.
  virtual Slice Finish(std::unique_ptr<const char[]>* buf) = 0;

  // As above, reporting a construction failure through *status. (RocksDB
  // calls this overload.)
  virtual Slice Finish(std::unique_ptr<const char[]>* buf, Status* status) {
    Slice filter = Finish(buf);
    if (status != nullptr) {
      *status = Status::OK();
    }
    return filter;
  }

  // Optional check of a just-built filter (detect_filter_construct_corruption).
  virtual Status MaybePostVerify(const Slice& /*filter_content*/) {
    return Status::OK();
  }

  // How many keys fit in a filter of `bytes` bytes (partitioned filters size
  // their partitions with it).
  virtual size_t ApproximateNumEntries(size_t bytes) = 0;
};

// Answers membership queries on one serialised filter. RocksDB owns the bytes
// and keeps them alive for the reader's lifetime.
class FilterBitsReader {
 public:
  virtual ~FilterBitsReader() {}

  // False only if `entry` was certainly not added.
  virtual bool MayMatch(const Slice& entry) = 0;

  // Batched form used by MultiGet: may_match[i] answers *keys[i].
  virtual void MayMatch(int num_keys, Slice** keys, bool* may_match) {
    for (int i = 0; i < num_keys; ++i) {
      may_match[i] = MayMatch(*keys[i]);
    }
  }
};

}  // namespace ROCKSDB_NAMESPACE

#else
#error "linebloom: FilterBitsBuilder/FilterBitsReader are declared only for RocksDB 7.8.x. Add a branch for this version in integration/rocksdb/include/linebloom/rocksdb/filter_bits.h (see the comment at its top) and run filter_bits_layout_test."
#endif
