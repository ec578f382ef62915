// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// The whole-run filter (NNNNNN.lbf) of either kind: the blocked Bloom
// filter (filter_builder.h) or the compact filter (compact_filter.h). The
// file holds the filter's own self-describing bytes, so the reader tells
// the kind from them: a store whose runs were written with different kinds
// (Options::compact_run_filters_from_level changed between opens) reads all
// of them. Internal header.

#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "linebloom/any_filter_reader.h"
#include "linebloom/compact_filter.h"
#include "linebloom/filter_builder.h"
#include "linebloom/filter_kind.h"
#include "linebloom/foundation/status.h"

namespace linebloom::kvstore::internal {

class RunFilterBuilder {
 public:
  // `kind` is kBloom or kCompact; the compact builder clamps bits_per_key to
  // its range itself.
  RunFilterBuilder(FilterKind kind, double bits_per_key);
  void AddKey(std::string_view key);
  std::string Finish();

 private:
  std::unique_ptr<FilterBuilder> bloom_;
  std::unique_ptr<CompactFilterBuilder> compact_;
};

class RunFilterReader {
 public:
  // Validates `bytes` (which must outlive the reader) as a filter of either
  // kind; Corruption with the reason if they are neither.
  Status Parse(std::string_view bytes);
  bool MayContain(std::string_view key) const { return reader_.MayContain(key); }
  // kUnknown until Parse succeeds.
  FilterKind kind() const { return parsed_ ? reader_.kind() : FilterKind::kUnknown; }

 private:
  bool parsed_ = false;
  AnyFilterReader reader_;
};

}  // namespace linebloom::kvstore::internal
