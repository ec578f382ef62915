// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// A block filter policy whose filters say "maybe" to every key: the worst
// filter (the baseline for I/O accounting) and a policy with a name other
// than linebloom's (for the tests of foreign filters).

#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "linebloom/sstable/block_filter.h"

namespace linebloom::sstable::testing {

class AlwaysMaybePolicy final : public BlockFilterPolicy {
 public:
  std::string Name() const override { return "test.always-maybe"; }
  std::unique_ptr<BlockFilterBuilder> NewBuilder() const override {
    struct Builder final : BlockFilterBuilder {
      size_t n = 0;
      void AddKey(std::string_view) override { ++n; }
      size_t NumKeys() const override { return n; }
      std::string Finish() override {
        n = 0;
        return "M";
      }
      std::string Parameters() const override { return "P"; }
    };
    return std::make_unique<Builder>();
  }
  // Accepts only what its own builder writes.
  Status NewTableReader(std::string_view parameters, std::unique_ptr<TableFilterReader>* out) const override {
    struct Reader final : TableFilterReader {
      Status AddFilter(std::string_view bytes) override {
        return bytes == "M" ? Status::Ok() : Status::Corruption("not an always-maybe filter");
      }
      bool MayMatch(size_t, std::string_view) const override { return true; }
    };
    if (parameters != "P") return Status::Corruption("not always-maybe parameters");
    *out = std::make_unique<Reader>();
    return Status::Ok();
  }
};

}  // namespace linebloom::sstable::testing
