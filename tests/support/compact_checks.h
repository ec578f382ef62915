// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// What the compact filter's reader must say about some bytes, from the
// independent model (reference_compact.h): the ParseError of the first of
// FORMAT.md's reader checks that fails, and the kind DetectFilterKind
// reports, both named as the library names them.

#pragma once

#include <cstring>
#include <string_view>

#include "linebloom/compact_filter.h"
#include "linebloom/filter_reader.h"
#include "support/reference_compact.h"

namespace linebloom::reference::compact {

inline ParseError ExpectedParseError(std::string_view bytes, bool verify_checksum) {
  Filter f;
  switch (Parse(bytes, verify_checksum, &f)) {
    case 0: return ParseError::kOk;
    case 1: return ParseError::kTooShort;
    case 2: return ParseError::kBadMagic;
    case 3: return ParseError::kUnsupportedVersion;
    case 4: return ParseError::kBadHashScheme;
    case 5: return ParseError::kBadFingerprintBits;
    case 6: return ParseError::kBadLayers;  // M > 8
    case 7: return ParseError::kBadSize;    // no room for the layer table
    case 8: return ParseError::kBadLayers;  // a layer of 0 lines
    case 9: return ParseError::kBadSize;    // size < 64 T + 4 M + 16, or != in versions 3 and 5
    case 10: return ParseError::kBadLeadBytes;
    case 12: return ParseError::kBadLayers;  // the sections of a mixed filter
    default: return ParseError::kChecksumMismatch;
  }
}

// The trailer's version byte: 1 and 2 a Bloom filter, 3 to 8 a compact one;
// bytes too short for a trailer, or whose trailer lacks the magic, are no
// linebloom filter.
inline FilterKind ExpectedKind(std::string_view bytes) {
  if (bytes.size() < kTrailerBytes) return FilterKind::kUnknown;
  const char* t = bytes.data() + bytes.size() - kTrailerBytes;
  if (std::memcmp(t + 8, "LBLM", 4) != 0) return FilterKind::kUnknown;
  if (t[7] == 1 || t[7] == 2) return FilterKind::kBloom;
  const bool compact = t[7] >= kVersion && t[7] <= kVersionMixedWithLead;
  return compact ? FilterKind::kCompact : FilterKind::kUnknown;
}

}  // namespace linebloom::reference::compact
