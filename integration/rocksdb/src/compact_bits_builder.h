// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// The FilterBitsBuilder RocksDB drives for one compact filter block (a whole
// SST, or one partition of a partitioned filter): linebloom/compact_filter.h
// behind RocksDB's interface.

#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "block_read_lead.h"
#include "construction_charge.h"
#include "hash_stage.h"
#include "repeat_filter.h"
#include "linebloom/compact_filter.h"
#include "linebloom/filter_options.h"
#include "linebloom/rocksdb/filter_bits.h"

namespace linebloom::rocksdb_plugin {

// The filter bytes a compact filter of `num_entries` entries at
// `bits_per_key` (already clamped to the compact range) takes at most, in
// O(1): a first layer spends about bits_per_key for every key (the layers
// after it are sized from the keys it bumps, so all layers together spend
// bits_per_key per key, compact_math.h); random loads put up to a few
// tenths of a percent more keys in the next layers than the model's mean,
// and each layer rounds up to a whole line. So: 1/64 more lines than the
// mean, kSlackLines lines for the rounding, the layer table (4 bytes per
// layer, at most 8 layers) and the trailer. 16 (the trailer alone) for no
// entries. Lead bytes (at most 63, and only on filters of 1 MiB or more,
// whose 1/64 margin is 256 lines or more) fit in the margin.
size_t CompactBytesBound(size_t num_entries, double bits_per_key);
// The most entries whose bound fits in `bytes`; 0 when not even one does.
size_t CompactEntriesWithin(size_t bytes, double bits_per_key);

// Memory per key: one 8-byte hash per distinct entry while the filter is
// collected, plus the prefixes' HashSet (16 to 32 bytes per prefix). The
// core builder writes the filter straight into the buffer RocksDB takes;
// with post_verify it keeps its hashes from Finish to MaybePostVerify,
// which checks the filter against them (no second copy).
//
// Repeats are dropped as LinebloomBitsBuilder drops them (bits_builder.h):
// an adjacent repeat of a key, and a prefix (the alt of AddKeyAndAlt) seen
// before in this filter or equal to the key. The core builder drops only
// adjacent repeats; a repeat it kept would be stored correctly (the same
// row with the same fingerprint adds no constraint to its line) but would
// count as an entry in the sizing and in EstimateEntriesAdded.
class CompactBitsBuilder final : public ::rocksdb::FilterBitsBuilder {
 public:
  // Called with CompactFilterBuilder::fallback_reason() after a Finish that
  // wrote a Bloom filter instead (the model puts it far below one in 10^9
  // builds); may be empty.
  using FallbackReport = std::function<void(const std::string& reason)>;

  // options.bits_per_key is clamped to [kMinCompactBitsPerKey,
  // kMaxCompactBitsPerKey]; options.num_probes is used only by a fallback.
  // Filters of 1 MiB or more get the lead bytes `read_memory` asks for, as
  // LinebloomBitsBuilder's do (block_read_lead.h; format version 4).
  CompactBitsBuilder(const FilterOptions& options, bool post_verify, FallbackReport on_fallback = {},
                     ReadMemory read_memory = {});

  void AddKey(const ::rocksdb::Slice& key) override;
  void AddKeyAndAlt(const ::rocksdb::Slice& key, const ::rocksdb::Slice& alt) LINEBLOOM_OVERRIDE_SINCE_B;
  // Exact: the distinct entries of the current filter (0 iff none added).
  size_t EstimateEntriesAdded() override { return builder_.NumKeys() + stage_.size(); }

  // The bits per key of the filter being built, clamped as above.
  void SetBitsPerKey(double bits_per_key);
  // Charges the builder's memory to `cache` from now on (construction_charge.h).
  void ChargeMemoryTo(std::shared_ptr<::rocksdb::Cache> cache) { charge_.emplace(std::move(cache)); }
  // CompactFilterBuilder::SetExtraPlanes.
  void SetExtraPlanes(int extra_planes) { builder_.SetExtraPlanes(extra_planes); }
  // CompactFilterBuilder::SetMixed.
  void SetMixed(bool mixed) { builder_.SetMixed(mixed); }
  double bits_per_key() const { return bits_per_key_; }

  // The filter, in a buffer of its exact size, after the lead bytes that
  // align its lines where RocksDB will read it; for no entries an empty
  // Bloom filter (see Finish in the .cc).
  ::rocksdb::Slice Finish(std::unique_ptr<const char[]>* buf) override;
  // As above; an allocation failure becomes a Status.
  ::rocksdb::Slice Finish(std::unique_ptr<const char[]>* buf, ::rocksdb::Status* status) override;

  // With post_verify: Corruption unless the just-finished filter (compact,
  // or its Bloom fallback) parses and may contain every entry it was built
  // from.
  ::rocksdb::Status MaybePostVerify(const ::rocksdb::Slice& filter) override;

  // CompactEntriesWithin: partitioned filters size their partitions with it.
  size_t ApproximateNumEntries(size_t bytes) override;
  // CompactBytesBound: an upper bound, cheap enough for every data block.
  size_t CalculateSpace(size_t num_entries) LINEBLOOM_OVERRIDE_SINCE_C;
  // The model's rate (CompactFpr) at the bits per key `bytes` give
  // `num_entries` entries (after the trailer); 0 for no entries.
  double EstimatedFpRate(size_t num_entries, size_t bytes) LINEBLOOM_OVERRIDE_SINCE_C;

  // Test hook: CompactFilterBuilder::TEST_SetMaxLayers.
  void TEST_SetMaxLayers(int max_layers) { builder_.TEST_SetMaxLayers(max_layers); }

 private:
  void Append(uint64_t hash);
  void FlushStaged();
  // The lead bytes of the filter Finish is about to write.
  size_t LeadBytes() const;

  CompactFilterBuilder builder_;
  // Entries go to builder_ a stage at a time (AddDistinctHashes).
  HashStage stage_;
  uint32_t seed_;
  double bits_per_key_;
  bool post_verify_;
  FallbackReport on_fallback_;
  ReadMemory read_memory_;
  RepeatFilter repeats_;  // the previous key, the alts of this filter
  std::optional<ConstructionCharge> charge_;
};

}  // namespace linebloom::rocksdb_plugin
