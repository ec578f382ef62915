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
  const ParseResult r = AnyFilterReader::Parse(bytes, &reader_);
  if (!r.ok()) return Status::Corruption(r.message());
  parsed_ = true;
  return Status::Ok();
}

}  // namespace linebloom::kvstore::internal
