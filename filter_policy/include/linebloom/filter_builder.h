// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// Builds a cache-line-blocked Bloom filter: every key sets all of its k bits
// inside one 64-byte block chosen from its hash, so a query touches one cache
// line. The result is a self-describing byte string (docs/FORMAT.md) that
// FilterReader parses; its size and k follow filter_format.h.

#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "linebloom/filter_format.h"
#include "linebloom/filter_memory.h"
#include "linebloom/filter_options.h"
#include "linebloom/key_hash.h"

namespace linebloom {

class FilterBuilder {
 public:
  explicit FilterBuilder(const FilterOptions& options = {});

  // Adds a key. An adjacent repeat of the previous key (or hash) is ignored:
  // keys arrive sorted from an SST writer, so duplicates are adjacent.
  void AddKey(std::string_view key);
  // Adds KeyHash(key, options().seed, options().hash_scheme) of a key.
  void AddHash(uint64_t hash);
  // AddHash of each, for an adapter that hashes keys itself, drops repeats
  // itself and hands hashes over in batches: no hash may equal the one
  // added just before it (each counts as a key). Cheaper per key than AddHash.
  void AddDistinctHashes(std::span<const uint64_t> hashes);

  // Changes the bits per key of the filter being built; the keys added so
  // far stay, and the probes follow the new bits unless options() fixes
  // them. For a caller that sizes a filter only once it has seen its keys
  // (a level-aware policy learning a file's key range).
  void SetBitsPerKey(double bits_per_key);
  // Makes the filters this builder finishes start with `lead_bytes` zero
  // bytes (at most kMaxLeadBytes) before their first block: a filter that
  // will be read from memory starting 64 - lead_bytes bytes past a 64-byte
  // boundary then has every block on one cache line. A filter with lead
  // bytes is format version 2 (docs/FORMAT.md), which readers before it do
  // not accept; without (the default), version 1. Throws
  // std::invalid_argument beyond kMaxLeadBytes.
  void SetLeadBytes(size_t lead_bytes);
  size_t lead_bytes() const { return lead_bytes_; }
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
  // The probes Finish would use for the keys added so far (ProbesFor).
  int num_probes() const { return ProbesFor(options_, num_keys_); }

 private:
  FilterOptions options_;
  double bits_per_key_;
  size_t lead_bytes_ = 0;
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

}  // namespace linebloom
