// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// The forms of a compact filter's lines (compact_layout.h): a line's plane
// count and row mask follow from its section and its metadata byte alone,
// 16 forms for a filter of given r, sections and extra planes. One table
// per such kind of filter, shared by every reader of that kind: a reader
// holds a pointer, so a query reads the reader's first 56 bytes, one cache
// line where the reader is aligned for it (the RocksDB plugin's, of which
// RocksDB keeps thousands, most not in the first cache level when asked),
// and a table that every filter of the kind keeps warm.
// Internal header.

#pragma once

#include <cstdint>

namespace linebloom::internal::compact {

// A line's form is (low section ? 8 : 0) + (m >= 128 ? 4 : 0) + (m & 3) for
// its metadata byte m: the section's r (r - 1 in a mixed filter's low
// section) for m < 128, else r + e (compact_layout.h).
struct alignas(64) LineForms {
  uint8_t planes[16];
  uint8_t columns[16];
  uint64_t mask[16][2];  // the form's low C bits of 128 (lo, hi)
};

// The forms of the filters of `r` fingerprint bits (kMinFingerprintBits to
// kMaxFingerprintBits) whose layer 0 is `mixed` (then r - 1 >=
// kMinFingerprintBits) or not, and whose lines have up to E(r) extra
// planes (`many_planes`: format version 5 on, and every mixed filter) or
// one. A static table: valid for the life of the process.
const LineForms* LineFormsFor(int r, bool mixed, bool many_planes);

}  // namespace linebloom::internal::compact
