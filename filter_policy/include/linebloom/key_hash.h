// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// The hash a key is filtered by. Callers that already hash their keys (for a
// batch of lookups, or to keep hashes across filters) pass these values to
// FilterBuilder::AddHash and FilterReader::MayContainHash, hashed with the
// scheme of that builder's options or of that reader's filter.

#pragma once

#include <cstdint>
#include <string_view>

namespace linebloom {

// How a Bloom filter hashes its keys (its trailer's hash-scheme byte,
// docs/FORMAT.md section 1). The block and the probes come from the hash
// alike in both.
enum class KeyHashScheme : uint8_t {
  // XXH3-64 of every key: every linebloom release reads it.
  kXxh3 = 1,
  // Keys of 9 to 16 bytes by one 64x64 -> 128-bit multiply of their two
  // 8-byte words and a short finish, every other key by XXH3-64: a query of
  // such a key is a few instructions and cycles shorter. Readers from
  // before it read such a filter as unknown ("may match").
  kShortKeyMultiply = 3,
};

// The hash of `key` under `scheme` with `seed` (FilterOptions::seed):
// XXH3-64 of `key`, except scheme 3's keys of 9 to 16 bytes.
uint64_t KeyHash(std::string_view key, uint32_t seed, KeyHashScheme scheme = KeyHashScheme::kXxh3);

}  // namespace linebloom
