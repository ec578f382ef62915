// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// Builds and queries one filter of any rocksdb::FilterPolicy -- RocksDB's
// built-in Bloom (NewBloomFilterPolicy) or Ribbon (NewRibbonFilterPolicy), or
// linebloom's own policy -- through the same calls RocksDB makes when it
// writes and reads an SST filter block. Benches and tests use it to compare
// filters fairly, outside a database.
//
//   auto policy = std::shared_ptr<const rocksdb::FilterPolicy>(
//       rocksdb::NewBloomFilterPolicy(10));
//   linebloom::rocksdb_plugin::PolicyFilterBuilder builder(*policy);
//   for (auto& k : keys) builder.AddKey(k);
//   linebloom::rocksdb_plugin::PolicyFilter filter = builder.Finish();
//   filter.MayMatch("absent");               // one key
//   filter.MayMatchBatch(queries, answers);  // MultiGet-style batch

#pragma once

#include <algorithm>
#include <cstddef>
#include <memory>
#include <new>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

#include <rocksdb/cache.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/memory_allocator.h>
#include <rocksdb/slice.h>
#include <rocksdb/table.h>

#include "linebloom/rocksdb/filter_bits.h"

namespace linebloom::rocksdb_plugin {

// The largest batch RocksDB 7.8 hands to FilterBitsReader::MayMatch(n, ...)
// (MultiGetContext::MAX_BATCH_SIZE).
inline constexpr size_t kMaxRocksdbBatch = 32;

// A finished filter: owns its bytes and a reader over them. Move-only (the
// reader points into the buffer, which moves with it).
class PolicyFilter {
 public:
  PolicyFilter(PolicyFilter&&) noexcept = default;
  PolicyFilter& operator=(PolicyFilter&&) noexcept = default;

  // Reads a copy of `bytes` (a filter block's contents) with `policy`'s
  // reader. The copy is held as RocksDB holds a block it reads: at the start
  // of a buffer with room for the block's 5-byte trailer, from `allocator`
  // when given (the block cache's allocator), else from new[].
  static PolicyFilter FromBytes(const ::rocksdb::FilterPolicy& policy, std::string_view bytes,
                                std::shared_ptr<::rocksdb::MemoryAllocator> allocator = nullptr) {
    std::shared_ptr<char> owned;
    if (allocator) {
      owned.reset(static_cast<char*>(allocator->Allocate(bytes.size() + kRocksdbBlockTrailerBytes)),
                  [allocator](char* p) { allocator->Deallocate(p); });
    } else {
      owned.reset(new char[bytes.size() + kRocksdbBlockTrailerBytes], std::default_delete<char[]>());
    }
    std::copy(bytes.begin(), bytes.end(), owned.get());
    const ::rocksdb::Slice contents(owned.get(), bytes.size());
    return PolicyFilter(policy, std::move(owned), contents);
  }

  bool MayMatch(std::string_view key) const { return reader_->MayMatch(::rocksdb::Slice(key.data(), key.size())); }

  // answers[i] = MayMatch(keys[i]) through the reader's batched MayMatch
  // (the MultiGet path), in chunks so no memory is allocated.
  void MayMatchBatch(std::span<const std::string_view> keys, std::span<bool> answers) const {
    if (answers.size() != keys.size()) {
      throw std::invalid_argument("MayMatchBatch: keys and answers differ in size");
    }
    // MultiGet never passes more than MultiGetContext::MAX_BATCH_SIZE (32)
    // keys, and RocksDB's built-in readers rely on it: they hash into
    // 32-entry stack arrays, so a larger batch overruns their stack.
    // Only the Slices of the keys passed are constructed, as MultiGet's
    // range makes them: an array of 32 Slices would construct all 32 (their
    // default constructor is not trivial) on every call, which costs a small
    // batch about as much as its probes and is no part of either filter.
    constexpr size_t kChunk = kMaxRocksdbBatch;
    union SliceSlot {
      SliceSlot() {}
      ::rocksdb::Slice slice;
    };
    SliceSlot slices[kChunk];
    ::rocksdb::Slice* pointers[kChunk];
    for (size_t start = 0; start < keys.size(); start += kChunk) {
      const size_t n = std::min(kChunk, keys.size() - start);
      for (size_t i = 0; i < n; ++i) {
        pointers[i] = new (&slices[i].slice)::rocksdb::Slice(keys[start + i].data(), keys[start + i].size());
      }
      reader_->MayMatch(static_cast<int>(n), pointers, answers.data() + start);
    }
  }

  // The serialised filter, exactly as it would be stored in an SST.
  std::string_view bytes() const { return {contents_.data(), contents_.size()}; }
  size_t size_bytes() const { return contents_.size(); }

 private:
  friend class PolicyFilterBuilder;

  PolicyFilter(const ::rocksdb::FilterPolicy& policy, std::shared_ptr<const char> buf, ::rocksdb::Slice contents)
      : buf_(std::move(buf)), contents_(contents), reader_(policy.GetFilterBitsReader(contents_)) {
    if (!reader_) {
      throw std::runtime_error("FilterPolicy::GetFilterBitsReader returned null");
    }
  }

  std::shared_ptr<const char> buf_;  // may be null: some filters are static
  ::rocksdb::Slice contents_;
  std::unique_ptr<::rocksdb::FilterBitsReader> reader_;
};

// Collects keys for one filter with `policy`'s FilterBitsBuilder, configured
// as RocksDB would for a table with `format_version` (5 selects the fast
// cache-local Bloom for NewBloomFilterPolicy, 4 or less the legacy one) and
// `block_cache` (whose memory allocator, if any, the table's blocks are read
// into). The policy must outlive the builder and the filters it makes.
class PolicyFilterBuilder {
 public:
  explicit PolicyFilterBuilder(const ::rocksdb::FilterPolicy& policy, int format_version = 5,
                               std::shared_ptr<::rocksdb::Cache> block_cache = nullptr)
      : policy_(&policy) {
    ::rocksdb::BlockBasedTableOptions table_options;
    table_options.format_version = static_cast<uint32_t>(format_version);
    table_options.block_cache = std::move(block_cache);
    ::rocksdb::FilterBuildingContext context(table_options);
    builder_.reset(policy.GetBuilderWithContext(context));
    if (!builder_) {
      throw std::runtime_error("FilterPolicy::GetBuilderWithContext returned null");
    }
  }

  void AddKey(std::string_view key) { builder_->AddKey(::rocksdb::Slice(key.data(), key.size())); }
  size_t EstimateEntriesAdded() { return builder_->EstimateEntriesAdded(); }
  size_t ApproximateNumEntries(size_t bytes) { return builder_->ApproximateNumEntries(bytes); }

  // Finishes the filter (through the Status-reporting overload RocksDB uses)
  // and resets the builder. Throws if the builder reports an error.
  PolicyFilter Finish() {
    std::unique_ptr<const char[]> buf;
    ::rocksdb::Status status;
    ::rocksdb::Slice contents = builder_->Finish(&buf, &status);
    if (!status.ok()) {
      throw std::runtime_error("FilterBitsBuilder::Finish: " + status.ToString());
    }
    return PolicyFilter(*policy_, std::shared_ptr<const char>(buf.release(), std::default_delete<const char[]>()),
                        contents);
  }

 private:
  const ::rocksdb::FilterPolicy* policy_;
  std::unique_ptr<::rocksdb::FilterBitsBuilder> builder_;
};

// Convenience: one filter from `keys`.
inline PolicyFilter BuildPolicyFilter(const ::rocksdb::FilterPolicy& policy, std::span<const std::string_view> keys,
                                      int format_version = 5) {
  PolicyFilterBuilder builder(policy, format_version);
  for (std::string_view key : keys) {
    builder.AddKey(key);
  }
  return builder.Finish();
}

}  // namespace linebloom::rocksdb_plugin
