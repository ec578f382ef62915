// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// RocksDB's FilterBitsBuilder and FilterBitsReader. FilterPolicy hands them
// out (GetBuilderWithContext, GetFilterBitsReader), but RocksDB declares them
// in table/block_based/filter_policy_internal.h of its source tree, which an
// installed RocksDB does not ship. So this header declares them itself,
// unless LINEBLOOM_ROCKSDB_INTERNAL_HEADER is defined: then the source tree
// is on the include path (linebloom built inside RocksDB with
// ROCKSDB_PLUGINS) and RocksDB's own declaration is used.
//
// A class declared twice must be declared identically (the one-definition
// rule): RocksDB calls these functions through the vtable, by slot number, so
// what matters is exactly which virtual functions exist and in which order.
// FilterBitsReader is the same in every supported release; FilterBitsBuilder
// has three layouts, chosen from ROCKSDB_MAJOR/ROCKSDB_MINOR:
//
//   layout  releases      virtual functions added
//   A       7.8 .. 9.5    (AddKey, EstimateEntriesAdded, Finish x2,
//                          MaybePostVerify, ApproximateNumEntries)
//   B       9.6 .. 10.8   AddKeyAndAlt, right after AddKey
//   C       10.9 .. 11.8  B, plus CalculateSpace and EstimatedFpRate after
//                          ApproximateNumEntries
//
// LINEBLOOM_ROCKSDB_LAYOUT is 'A', 'B' or 'C' (a character constant, so
// the preprocessor can compare layouts). A builder may define
// AddKeyAndAlt, CalculateSpace and EstimatedFpRate in every layout and mark
// them LINEBLOOM_OVERRIDE_SINCE_B / _SINCE_C: `override` where the layout
// has them, nothing where it does not.
//
// Adding a release: read its filter_policy_internal.h, extend the table
// above and the version checks below (a new layout gets its own #if around
// the functions it adds), and run tests/rocksdb/filter_bits_layout_test
// against it; that test drives RocksDB's own Bloom filter through this
// declaration and fails or crashes on a mismatch.

#pragma once

#include <cstddef>
#include <memory>

#include <rocksdb/filter_policy.h>
#include <rocksdb/slice.h>
#include <rocksdb/status.h>
#include <rocksdb/version.h>

#if !defined(ROCKSDB_MAJOR) || !defined(ROCKSDB_MINOR)
#error "linebloom: <rocksdb/version.h> did not define ROCKSDB_MAJOR/ROCKSDB_MINOR"
#endif

#define LINEBLOOM_ROCKSDB_VERSION_AT_LEAST(major, minor) \
  (ROCKSDB_MAJOR > (major) || (ROCKSDB_MAJOR == (major) && ROCKSDB_MINOR >= (minor)))

#if !LINEBLOOM_ROCKSDB_VERSION_AT_LEAST(7, 8)
#error "linebloom: RocksDB older than 7.8 is not supported (FilterBitsBuilder layouts are declared for 7.8 to 11.8)."
#elif !LINEBLOOM_ROCKSDB_VERSION_AT_LEAST(9, 6)
#define LINEBLOOM_ROCKSDB_LAYOUT 'A'
#elif !LINEBLOOM_ROCKSDB_VERSION_AT_LEAST(10, 9)
#define LINEBLOOM_ROCKSDB_LAYOUT 'B'
#elif !LINEBLOOM_ROCKSDB_VERSION_AT_LEAST(11, 9)
#define LINEBLOOM_ROCKSDB_LAYOUT 'C'
#else
#error \
    "linebloom: this RocksDB is newer than 11.8, the newest release whose FilterBitsBuilder layout is known. Compare its table/block_based/filter_policy_internal.h with integration/rocksdb/include/linebloom/rocksdb/filter_bits.h, extend the version checks there (see the comment at its top) and run filter_bits_layout_test."
#endif

#if LINEBLOOM_ROCKSDB_LAYOUT >= 'B'
#define LINEBLOOM_OVERRIDE_SINCE_B override
#else
#define LINEBLOOM_OVERRIDE_SINCE_B
#endif
#if LINEBLOOM_ROCKSDB_LAYOUT >= 'C'
#define LINEBLOOM_OVERRIDE_SINCE_C override
#else
#define LINEBLOOM_OVERRIDE_SINCE_C
#endif

#if defined(LINEBLOOM_ROCKSDB_INTERNAL_HEADER)

#include "table/block_based/filter_policy_internal.h"

#else

namespace ROCKSDB_NAMESPACE {

// Accumulates the keys of one filter (a whole SST file, or one partition) and
// serialises the filter.
class FilterBitsBuilder {
 public:
  virtual ~FilterBitsBuilder() {}

  // Called for every key (or prefix) in sorted order; repeats are adjacent.
  virtual void AddKey(const Slice& key) = 0;

#if LINEBLOOM_ROCKSDB_LAYOUT >= 'B'
  // A key and, as the alternate, its prefix (prefix extractor with whole-key
  // filtering). RocksDB does not remove repeats before calling it: a prefix
  // repeats with every key that has it, and a key may be its own prefix.
  virtual void AddKeyAndAlt(const Slice& key, const Slice& alt) = 0;
#endif

  // Number of distinct entries added so far (may be estimated, but must be 0
  // if and only if nothing was added: RocksDB writes no filter at 0).
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
  virtual Status MaybePostVerify(const Slice& /*filter_content*/) { return Status::OK(); }

  // How many keys fit in a filter of `bytes` bytes (partitioned filters size
  // their partitions with it).
  virtual size_t ApproximateNumEntries(size_t bytes) = 0;

#if LINEBLOOM_ROCKSDB_LAYOUT >= 'C'
  // Bytes of the filter for `num_entries` entries. Called after every data
  // block to estimate the file size, so it must be cheap.
  virtual size_t CalculateSpace(size_t num_entries) = 0;

  // The false-positive rate of a filter of `bytes` bytes holding
  // `num_entries` entries.
  virtual double EstimatedFpRate(size_t num_entries, size_t bytes) = 0;
#endif
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

#endif  // LINEBLOOM_ROCKSDB_INTERNAL_HEADER

namespace linebloom::rocksdb_plugin {

// RocksDB's block trailer, a compression type byte and a 32-bit checksum
// (kBlockTrailerSize in table/format.h, 5 in every release 7.8 to 11.8): a
// filter block is read into a buffer with room for it after the filter, and
// FilterBitsReader sees the filter at the buffer's first byte.
inline constexpr size_t kRocksdbBlockTrailerBytes = 5;

}  // namespace linebloom::rocksdb_plugin
