// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.

#include "run_filter.h"

namespace linebloom::kvstore::internal {

RunFilterBuilder::RunFilterBuilder(FilterKind kind, double bits_per_key) {
  const FilterOptions options{.bits_per_key = bits_per_key};
  if (kind == FilterKind::kCompact) {
    compact_ = std::make_unique<CompactFilterBuilder>(options);
  } else {
    bloom_ = std::make_unique<FilterBuilder>(options);
  }
}

void RunFilterBuilder::AddKey(std::string_view key) {
  if (compact_) {
    compact_->AddKey(key);
  } else {
    bloom_->AddKey(key);
  }
}

// A compact build whose layers cannot hold the keys writes a Bloom filter
// instead (compact_filter.h); Parse reads it as one.
std::string RunFilterBuilder::Finish() { return compact_ ? compact_->Finish() : bloom_->Finish(); }

Status RunFilterReader::Parse(std::string_view bytes) {
  ParseResult r;
  const FilterKind kind = DetectFilterKind(bytes);
  if (kind == FilterKind::kCompact) {
    r = CompactFilterReader::Parse(bytes, &compact_);
  } else {
    // Anything else is read as a Bloom filter, whose checks name what is
    // wrong with the bytes (short, bad magic, unknown version).
    r = FilterReader::Parse(bytes, &bloom_);
  }
  if (!r.ok()) return Status::Corruption(r.message());
  kind_ = kind == FilterKind::kCompact ? FilterKind::kCompact : FilterKind::kBloom;
  return Status::Ok();
}

}  // namespace linebloom::kvstore::internal
