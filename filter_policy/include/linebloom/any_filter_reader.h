// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// A reader for a linebloom filter of either kind: the blocked Bloom filter
// (FORMAT.md section 1, FilterReader) or the compact filter (section 1b,
// CompactFilterReader), told apart by the trailer (DetectFilterKind). For
// containers that keep filters of both kinds side by side, such as a store
// whose deep runs are compact and whose others are Bloom, or a compact
// policy whose rare fallback build wrote a Bloom filter.
//
//   linebloom::AnyFilterReader reader;
//   linebloom::ParseResult r = linebloom::AnyFilterReader::Parse(bytes, &reader);
//   if (!r.ok()) { /* r.message() says why; treat every key as "may match" */ }
//   if (!reader.MayContain(key)) { /* certainly absent */ }
//
// A query costs one predictable branch on the kind more than the kind's
// own reader. Thread-safe for concurrent queries, as both readers are.

#pragma once

#include <cstdint>
#include <string_view>
#include <variant>

#include "linebloom/compact_filter.h"
#include "linebloom/filter_kind.h"
#include "linebloom/filter_reader.h"

namespace linebloom {

class AnyFilterReader {
 public:
  // An empty reader holds no key (an empty Bloom filter).
  AnyFilterReader() = default;

  // Parses `bytes` (which must outlive the reader) as a compact filter if
  // its trailer says so, else as a Bloom filter, whose checks name what is
  // wrong with bytes of neither kind (short, bad magic, unknown version).
  // On failure `reader` is unchanged.
  static ParseResult Parse(std::string_view bytes, AnyFilterReader* reader, const ParseOptions& options = {});

  // False only if `key` was certainly never added.
  bool MayContain(std::string_view key) const {
    if (const auto* compact = std::get_if<CompactFilterReader>(&reader_)) return compact->MayContain(key);
    return std::get<FilterReader>(reader_).MayContain(key);
  }

  // The same for a key's hash (both kinds hash keys alike).
  bool MayContainHash(uint64_t hash) const {
    if (const auto* compact = std::get_if<CompactFilterReader>(&reader_)) return compact->MayContainHash(hash);
    return std::get<FilterReader>(reader_).MayContainHash(hash);
  }

  // kBloom or kCompact.
  FilterKind kind() const {
    return std::holds_alternative<CompactFilterReader>(reader_) ? FilterKind::kCompact : FilterKind::kBloom;
  }

 private:
  std::variant<FilterReader, CompactFilterReader> reader_;
};

}  // namespace linebloom
