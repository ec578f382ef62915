// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// Builds the layers of a compact filter from key hashes (compact_layout.h,
// docs/FORMAT.md). Internal header: CompactFilterBuilder is the API.

#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "linebloom/compact_math.h"

namespace linebloom::internal::compact {

// Appends the compact filter of `hashes` to `out`: layer after layer until
// no key is bumped, then the layer table and the trailer. False, with `out`
// as it was, if keys are still bumped after `max_layers` layers.
bool BuildCompactFilter(std::span<const uint64_t> hashes, const CompactShape& shape, uint32_t seed, int max_layers,
                        std::string* out);

}  // namespace linebloom::internal::compact
