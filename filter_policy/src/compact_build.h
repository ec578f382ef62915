// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// Builds the layers of a compact filter from key hashes (compact_layout.h,
// docs/FORMAT.md). Internal header: CompactFilterBuilder is the API.

#pragma once

#include <cstddef>
#include <cstdint>

#include "linebloom/compact_hashes.h"
#include "linebloom/compact_math.h"

namespace linebloom::internal::compact {

// Where a build writes the filter: bytes that keep their contents when
// they grow, so that the filter is written once, into the memory its caller
// hands on (a std::string, or the new[] buffer RocksDB takes).
class FilterSink {
 public:
  virtual ~FilterSink() = default;
  virtual size_t size() const = 0;
  virtual void Reserve(size_t bytes) = 0;
  // Resizes to `bytes` and returns the start.
  virtual char* Resize(size_t bytes) = 0;
};

// Appends the compact filter of `hashes` to `out`: `lead_bytes` zero bytes
// (at most kMaxLeadBytes; format version 4 when not 0, else 3), layer after
// layer until no key is bumped, then the layer table and the trailer. False,
// with `out` as it was, if keys are still bumped after `max_layers` layers.
// Either way `hashes` holds the same hashes after as before, in another
// order.
bool BuildCompactFilter(CompactHashes& hashes, const CompactShape& shape, uint32_t seed, int max_layers,
                        size_t lead_bytes, FilterSink* out);

}  // namespace linebloom::internal::compact
