// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// The sizes of the filter format (byte layout in docs/FORMAT.md) and the
// sizing rules that follow from them. Everything that sizes a filter -- the
// builder, the reader, the micro-SSTable, the RocksDB plugin -- uses these,
// so that the same options give the same filter everywhere.
//
// A filter is n_blocks blocks of 64 bytes (512 bits, one cache line) and a
// 16-byte trailer. For n keys at c bits per key:
//     n_blocks = ceil(n c / 512)   (at least 1 when n > 0),
//     bytes    = 64 n_blocks + 16,
// plus the lead bytes, when a builder is asked for them (0 by default).
// bits_per_key below is an effective value, as FilterOptions::
// EffectiveBitsPerKey returns it (in [kMinBitsPerKey, kMaxBitsPerKey]).

#pragma once

#include <cstddef>
#include <cstdint>

#include "linebloom/filter_options.h"

namespace linebloom {

inline constexpr size_t kFilterBlockBytes = 64;
inline constexpr int kFilterBlockBits = 8 * kFilterBlockBytes;
inline constexpr size_t kFilterTrailerBytes = 16;
// A key's block index is computed from 32 bits of its hash.
inline constexpr size_t kMaxFilterBlocks = 0xFFFFFFFFu;
// A filter may start with up to this many zero bytes before its first block
// (FilterBuilder::SetLeadBytes), so that its blocks start on a cache line in
// memory that holds the filter at a known offset from one.
inline constexpr size_t kMaxLeadBytes = kFilterBlockBytes - 1;

// ceil(num_keys * bits_per_key / 512), at least 1 when num_keys > 0, at most
// kMaxFilterBlocks.
size_t NumBlocksFor(size_t num_keys, double bits_per_key);

// The filter's size in bytes: NumBlocksFor(num_keys, bits_per_key) * 64 + 16.
size_t FilterBytesFor(size_t num_keys, double bits_per_key);

// The most keys whose filter fits in `bytes` (the inverse of FilterBytesFor);
// 0 when not even one block and the trailer fit.
size_t MaxKeysFor(size_t bytes, double bits_per_key);

// The number of probes a filter of `num_keys` keys is built with:
// options.num_probes if the caller fixed it (clamped to [kMinProbes,
// kMaxProbes]), else the k that minimises the false-positive rate at the
// bits per key the filter really has, c' = 512 n_blocks / n. Rounding up to
// whole blocks gives a small filter more than it asked for (32 keys at 10
// bits/key get 512 bits, 16 per key), and a k chosen for the bits asked for
// would leave that memory unused. In a single block every key shares the
// same 512 bits: it is a standard Bloom filter, whose best k is c' ln 2.
// With several blocks the keys per block vary (Poisson), and the blocked
// optimum (OptimalBlockedProbes, smaller) applies. With no keys, the optimum
// for options.bits_per_key.
int ProbesFor(const FilterOptions& options, size_t num_keys);

}  // namespace linebloom
