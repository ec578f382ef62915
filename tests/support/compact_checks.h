// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// The ParseError a CompactFilterReader must report for some bytes: the
// first of FORMAT.md's reader checks that fails, as the independent model
// (reference_compact.h) finds it, named as the library names it.

#pragma once

#include <string_view>

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
    case 9: return ParseError::kBadSize;    // size != 64 T + 4 M + 16
    default: return ParseError::kChecksumMismatch;
  }
}

}  // namespace linebloom::reference::compact
