// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.

#include "linebloom/any_filter_reader.h"

namespace linebloom {

ParseResult AnyFilterReader::Parse(std::string_view bytes, AnyFilterReader* reader, const ParseOptions& options) {
  if (DetectFilterKind(bytes) == FilterKind::kCompact) {
    CompactFilterReader compact;
    const ParseResult r = CompactFilterReader::Parse(bytes, &compact, options);
    if (r.ok()) reader->reader_ = compact;
    return r;
  }
  FilterReader bloom;
  const ParseResult r = FilterReader::Parse(bytes, &bloom, options);
  if (r.ok()) reader->reader_ = bloom;
  return r;
}

}  // namespace linebloom
