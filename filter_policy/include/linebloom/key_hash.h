// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// The hash a key is filtered by. Callers that already hash their keys (for a
// batch of lookups, or to keep hashes across filters) pass these values to
// FilterBuilder::AddHash and FilterReader::MayContainHash.

#pragma once

#include <cstdint>
#include <string_view>

namespace linebloom {

// XXH3-64 of `key` with `seed` (FilterOptions::seed).
uint64_t KeyHash(std::string_view key, uint32_t seed);

}  // namespace linebloom
