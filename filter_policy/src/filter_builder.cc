// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.

#include "linebloom/filter_builder.h"

#include <cassert>
#include <cmath>
#include <cstring>

#include "block_probe.h"
#include "key_hash.h"
#include "trailer.h"

namespace linebloom {

using internal::kBlockBytes;
using internal::kTrailerBytes;

// A block index is computed from 32 bits of hash, so at most 2^32 - 1 blocks.
static constexpr size_t kMaxBlocks = 0xFFFFFFFFu;

uint64_t KeyHash(std::string_view key, uint32_t seed) { return internal::HashKey(key, seed); }

size_t NumBlocksFor(size_t num_keys, double bits_per_key) {
  if (num_keys == 0) return 0;
  double blocks = std::ceil(static_cast<double>(num_keys) * bits_per_key / (kBlockBytes * 8));
  if (blocks < 1) return 1;
  if (blocks > static_cast<double>(kMaxBlocks)) return kMaxBlocks;
  return static_cast<size_t>(blocks);
}

FilterBuilder::FilterBuilder(const FilterOptions& options)
    : options_(options),
      bits_per_key_(options.EffectiveBitsPerKey()),
      num_probes_(options.EffectiveProbes()) {}

void FilterBuilder::AddKey(std::string_view key) { AddHash(internal::HashKey(key, options_.seed)); }

void FilterBuilder::AddHash(uint64_t hash) {
  if (!hashes_.empty() && hashes_.back() == hash) return;
  hashes_.push_back(hash);
}

size_t FilterBuilder::FinishedSize() const {
  return NumBlocksFor(hashes_.size(), bits_per_key_) * kBlockBytes + kTrailerBytes;
}

void FilterBuilder::FinishInto(std::span<char> out) {
  assert(out.size() == FinishedSize());
  const size_t num_blocks = NumBlocksFor(hashes_.size(), bits_per_key_);
  auto* bytes = reinterpret_cast<unsigned char*>(out.data());
  std::memset(bytes, 0, num_blocks * kBlockBytes);

  // Keys land in random blocks, so a filter larger than the cache costs a
  // miss per key; prefetching the block of the key kAhead positions later
  // keeps that many misses in flight instead of one.
  constexpr size_t kAhead = 16;
  const size_t n = hashes_.size();
  for (size_t i = 0; i < n; ++i) {
    if (i + kAhead < n) {
      internal::PrefetchForWrite(bytes + internal::BlockIndex(hashes_[i + kAhead], num_blocks) * kBlockBytes);
    }
    const uint64_t h = hashes_[i];
    internal::SetProbes(bytes + internal::BlockIndex(h, num_blocks) * kBlockBytes,
                        internal::ProbeState(h), num_probes_);
  }

  internal::Trailer trailer;
  trailer.seed = options_.seed;
  trailer.num_probes = static_cast<uint8_t>(num_probes_);
  internal::EncodeTrailer(trailer, bytes, num_blocks * kBlockBytes);
  hashes_.clear();
}

std::string FilterBuilder::Finish() {
  std::string out(FinishedSize(), '\0');
  FinishInto(out);
  return out;
}

}  // namespace linebloom
