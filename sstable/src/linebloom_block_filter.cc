// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// The default block filter: linebloom's FilterBuilder / FilterReader.

#include "linebloom/filter_builder.h"
#include "linebloom/filter_reader.h"
#include "linebloom/sstable/block_filter.h"

namespace linebloom::sstable {
namespace {

// Keys go straight into one FilterBuilder, reused for every filter of the
// table, so the builder's hash memory and its choice of k per key count
// (ProbesFor: small filters get the k for the bits they really have after
// rounding up to whole blocks) carry over from one data block to the next.
class LinebloomBuilder final : public BlockFilterBuilder {
 public:
  explicit LinebloomBuilder(const FilterOptions& options) : builder_(options) {}

  void AddKey(std::string_view key) override { builder_.AddKey(key); }
  size_t NumKeys() const override { return builder_.NumKeys(); }
  std::string Finish() override { return builder_.Finish(); }

 private:
  FilterBuilder builder_;
};

class LinebloomReader final : public BlockFilterReader {
 public:
  explicit LinebloomReader(const FilterReader& reader) : reader_(reader) {}
  bool MayMatch(std::string_view key) const override { return reader_.MayContain(key); }

 private:
  FilterReader reader_;
};

class LinebloomPolicy final : public BlockFilterPolicy {
 public:
  explicit LinebloomPolicy(const FilterOptions& options) : options_(options) {}

  std::string Name() const override { return std::string(kLinebloomPolicyName); }

  std::unique_ptr<BlockFilterBuilder> NewBuilder() const override {
    return std::make_unique<LinebloomBuilder>(options_);
  }

  Status NewReader(std::string_view bytes, std::unique_ptr<BlockFilterReader>* out) const override {
    FilterReader reader;
    // The filter's own checksum is verified as well as the table's block
    // checksum: it costs one pass at open and keeps the filter self-checking
    // if a caller hands it bytes from elsewhere.
    if (ParseResult r = FilterReader::Parse(bytes, &reader); !r.ok()) {
      return Status::Corruption(std::string("linebloom filter: ").append(r.message()));
    }
    *out = std::make_unique<LinebloomReader>(reader);
    return Status::Ok();
  }

 private:
  FilterOptions options_;
};

}  // namespace

std::shared_ptr<const BlockFilterPolicy> NewLinebloomBlockFilterPolicy(const FilterOptions& options) {
  return std::make_shared<LinebloomPolicy>(options);
}

}  // namespace linebloom::sstable
