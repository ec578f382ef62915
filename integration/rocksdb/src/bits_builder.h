// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// The FilterBitsBuilder RocksDB drives for one filter block (a whole SST, or
// one partition of a partitioned filter).

#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "linebloom/filter_builder.h"
#include "linebloom/filter_options.h"
#include "linebloom/rocksdb/filter_bits.h"

namespace linebloom::rocksdb_plugin {

// Memory per key: the core FilterBuilder keeps one 8-byte hash per distinct
// key (RocksDB adds keys in sorted order, so repeats are adjacent and
// dropped). With post_verify (detect_filter_construct_corruption) a second
// 8-byte copy is kept until MaybePostVerify re-queries every key against the
// finished filter. Finish writes the filter straight into its final buffer
// (exactly FinishedSize() bytes): nothing is copied or grown quadratically.
class LinebloomBitsBuilder final : public ::rocksdb::FilterBitsBuilder {
 public:
  LinebloomBitsBuilder(const FilterOptions& options, bool post_verify);

  void AddKey(const ::rocksdb::Slice& key) override;
  size_t EstimateEntriesAdded() override { return builder_.NumKeys(); }

  // The filter is the whole buffer: 64 bytes per block plus the trailer.
  ::rocksdb::Slice Finish(std::unique_ptr<const char[]>* buf) override;
  // As above; an allocation failure becomes a Status, not an exception
  // thrown through RocksDB.
  ::rocksdb::Slice Finish(std::unique_ptr<const char[]>* buf,
                          ::rocksdb::Status* status) override;

  // With post_verify: Corruption unless the just-finished filter parses and
  // answers "may match" for every key it was built from.
  ::rocksdb::Status MaybePostVerify(const ::rocksdb::Slice& filter) override;

  // The most keys whose filter fits in `bytes` (MaxKeysFor, the inverse of
  // the sizing rule in filter_format.h). Partitioned filters
  // call it with metadata_block_size to decide how many keys go into a
  // partition; 0 when even one block does not fit.
  size_t ApproximateNumEntries(size_t bytes) override;

 private:
  FilterBuilder builder_;
  uint32_t seed_;
  double bits_per_key_;
  bool post_verify_;
  std::vector<uint64_t> hashes_to_verify_;  // keys of the filter being built
  std::vector<uint64_t> pending_verify_;    // keys of the last finished one
};

}  // namespace linebloom::rocksdb_plugin
