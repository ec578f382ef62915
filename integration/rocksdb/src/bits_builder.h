// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// The FilterBitsBuilder RocksDB drives for one filter block (a whole SST, or
// one partition of a partitioned filter).

#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "block_read_lead.h"
#include "construction_charge.h"
#include "hash_stage.h"
#include "repeat_filter.h"
#include "linebloom/filter_builder.h"
#include "linebloom/filter_options.h"
#include "linebloom/rocksdb/filter_bits.h"

namespace linebloom::rocksdb_plugin {

// Memory per key: the core FilterBuilder keeps one 8-byte hash per distinct
// entry, and the set of distinct prefixes (AddKeyAndAlt) 16 to 32 bytes per
// prefix. With post_verify (detect_filter_construct_corruption) a second
// 8-byte copy of every hash is kept until MaybePostVerify re-queries it
// against the finished filter. Finish writes the filter straight into its
// final buffer, FinishedSize() bytes placed so that its blocks start on
// 64-byte boundaries (the buffer has up to 63 bytes more).
//
// Repeats. Keys arrive sorted, so a repeated key (several versions of one
// user key) is adjacent to itself and one remembered hash drops it. A prefix
// (the `alt` of AddKeyAndAlt) repeats with every key that has it, adjacent or
// not (interleaved with the keys, and with a comparator that does not sort
// by prefix, scattered), so the prefixes of the current filter are kept in a
// HashSet; a key equal to a known prefix (a key that is its own prefix) is
// dropped too. Every entry is added at most once up to 64-bit hash
// collisions, which only merge two entries that already share all their bits.
// Dropping by hash never loses an entry: equal hashes set the same bits.
class LinebloomBitsBuilder final : public ::rocksdb::FilterBitsBuilder {
 public:
  LinebloomBitsBuilder(const FilterOptions& options, bool post_verify, ReadMemory read_memory = {});

  void AddKey(const ::rocksdb::Slice& key) override;
  void AddKeyAndAlt(const ::rocksdb::Slice& key, const ::rocksdb::Slice& alt) LINEBLOOM_OVERRIDE_SINCE_B;
  // Exact: the distinct entries of the current filter (0 iff none added).
  // Staged hashes are distinct entries too: Append never stages a repeat of
  // the entry before it (AddDistinctHashes relies on that).
  size_t EstimateEntriesAdded() override { return builder_.NumKeys() + stage_.size(); }

  // Charges the builder's memory to `cache` from now on (construction_charge.h).
  void ChargeMemoryTo(std::shared_ptr<::rocksdb::Cache> cache) { charge_.emplace(std::move(cache)); }

  // The bits per key of the filter being built (FilterBuilder::SetBitsPerKey).
  void SetBitsPerKey(double bits_per_key);
  double bits_per_key() const { return bits_per_key_; }

  // The filter: 64 bytes per block plus the trailer, after the lead bytes
  // that align its blocks where RocksDB will read it (block_read_lead.h);
  // in *buf too its blocks start on 64-byte boundaries.
  ::rocksdb::Slice Finish(std::unique_ptr<const char[]>* buf) override;
  // As above; an allocation failure becomes a Status, not an exception
  // thrown through RocksDB.
  ::rocksdb::Slice Finish(std::unique_ptr<const char[]>* buf, ::rocksdb::Status* status) override;

  // With post_verify: Corruption unless the just-finished filter parses and
  // answers "may match" for every key it was built from.
  ::rocksdb::Status MaybePostVerify(const ::rocksdb::Slice& filter) override;

  // The most keys whose filter fits in `bytes` (MaxKeysFor, the inverse of
  // the sizing rule in filter_format.h). Partitioned filters
  // call it with metadata_block_size to decide how many keys go into a
  // partition; 0 when even one block does not fit.
  size_t ApproximateNumEntries(size_t bytes) override;

  // The filter bytes for `num_entries` entries: the sizing rule above, O(1).
  size_t CalculateSpace(size_t num_entries) LINEBLOOM_OVERRIDE_SINCE_C;

  // The false-positive rate of a filter of `bytes` bytes (whole 64-byte
  // blocks after the 16-byte trailer are counted) holding `num_entries`
  // entries, with this builder's probes: BlockedFpr at the filter's real
  // bits per key, 512 * blocks / num_entries. 1 when the filter has no
  // block; 0 for no entries.
  double EstimatedFpRate(size_t num_entries, size_t bytes) LINEBLOOM_OVERRIDE_SINCE_C;

 private:
  void Append(uint64_t hash);
  void AddKeyHash(uint64_t hash);
  void KeepForVerify(uint64_t hash);
  void FlushStaged();
  // The bytes the hashes of the filter being built take (two copies with
  // post_verify), and its prefix set's.
  size_t KeyBytes() const;

  FilterBuilder builder_;
  // Entries go to builder_ a stage at a time (AddDistinctHashes).
  HashStage stage_;
  uint32_t seed_;
  double bits_per_key_;
  bool post_verify_;
  ReadMemory read_memory_;
  RepeatFilter repeats_;                    // the previous key, the alts of this filter
  std::vector<uint64_t> hashes_to_verify_;  // entries of the filter being built
  std::vector<uint64_t> pending_verify_;    // entries of the last finished one
  std::optional<ConstructionCharge> charge_;
};

}  // namespace linebloom::rocksdb_plugin
