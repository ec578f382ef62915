// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// Builds a cache-line-blocked Bloom filter: every key sets all of its k bits
// inside one 64-byte block chosen from its hash, so a query touches one cache
// line. The result is a self-describing byte string (docs/FORMAT.md) that
// FilterReader parses.

#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "linebloom/filter_options.h"

namespace linebloom {

// The 64-bit hash linebloom uses for `key` (XXH3-64 with `seed`). Callers that
// already hash their keys can pass these to AddHash / MayContainHash.
uint64_t KeyHash(std::string_view key, uint32_t seed);

// Memory for filter bytes: 64-byte aligned, so that each block is one cache
// line; from 2 MiB up also 2 MiB aligned with a transparent-huge-page hint,
// so that a large filter needs few TLB entries. Throws std::bad_alloc; free
// with FreeFilterMemory. AlignedFilter and the RocksDB plugin's block-cache
// allocator use it.
void* AllocateFilterMemory(size_t size);
void FreeFilterMemory(void* memory);
// A unique_ptr deleter for AllocateFilterMemory's memory.
struct FilterMemoryDeleter {
  void operator()(void* memory) const { FreeFilterMemory(memory); }
};

// Owns filter bytes whose blocks start on a 64-byte boundary, so each block
// is exactly one cache line (a block at an arbitrary heap address straddles
// two, doubling the misses of a query on a large filter).
class AlignedFilter {
 public:
  AlignedFilter() = default;
  // A 64-byte-aligned copy of `bytes`.
  static AlignedFilter Copy(std::string_view bytes);
  std::string_view bytes() const { return {data_.get(), size_}; }
  // Writable storage for FilterBuilder::FinishInto.
  std::span<char> mutable_bytes() { return {data_.get(), size_}; }
  explicit AlignedFilter(size_t size);

 private:
  std::unique_ptr<char, FilterMemoryDeleter> data_;
  size_t size_ = 0;
};

class FilterBuilder {
 public:
  explicit FilterBuilder(const FilterOptions& options = {});

  // Adds a key. An adjacent repeat of the previous key (or hash) is ignored:
  // keys arrive sorted from an SST writer, so duplicates are adjacent.
  void AddKey(std::string_view key);
  void AddHash(uint64_t hash);

  // Distinct keys added since construction or the last Finish.
  size_t NumKeys() const { return num_keys_; }
  // Reserves memory for `n` keys in all (8 bytes each), at most 2 MiB
  // ahead: larger builds grow in 2 MiB chunks as keys arrive.
  void Reserve(size_t n);

  // Size in bytes of the filter Finish would produce for the keys added so far.
  size_t FinishedSize() const;
  // Writes the filter into `out` (exactly FinishedSize() bytes) and resets the
  // builder for the next filter.
  void FinishInto(std::span<char> out);
  std::string Finish();
  // As Finish, into 64-byte-aligned memory: prefer this for large filters.
  AlignedFilter FinishAligned();

  const FilterOptions& options() const { return options_; }
  int num_probes() const { return num_probes_; }

 private:
  FilterOptions options_;
  double bits_per_key_;
  int num_probes_;
  // One 64-bit hash per distinct key, the builder's whole per-key memory, in
  // chunks that are never moved once allocated: one growing vector would
  // copy every hash about twice and touch twice the memory, which costs more
  // than hashing the keys when the key count is not known up front (as in
  // RocksDB). Chunks grow geometrically up to kMaxChunk hashes; the
  // largest fill a huge page each (AllocateFilterMemory).
  struct HashChunk {
    std::unique_ptr<uint64_t[], FilterMemoryDeleter> hashes;
    size_t size = 0;  // of the chunk being filled: kept in fill_ until sealed
    size_t capacity = 0;
  };
  void AppendHash(uint64_t hash);
  void StartChunk(size_t capacity);
  void SealChunk();
  std::vector<HashChunk> chunks_;
  size_t fill_ = 0;      // hashes in chunks_.back()
  size_t capacity_ = 0;  // chunks_.back().capacity, or 0
  size_t num_keys_ = 0;
  uint64_t last_hash_ = 0;  // meaningful when num_keys_ > 0
};

// Number of 64-byte blocks for `num_keys` keys at `bits_per_key`:
// ceil(num_keys * bits_per_key / 512), at least 1 when num_keys > 0.
size_t NumBlocksFor(size_t num_keys, double bits_per_key);

}  // namespace linebloom
