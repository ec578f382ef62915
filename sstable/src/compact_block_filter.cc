// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// "linebloom.compact": each table filter is a whole compact filter
// (docs/FORMAT.md section 1b), self-describing, with no table parameters.
// The compact filter needs about a quarter less memory than the Bloom filter
// for the same false-positive rate, but even one key costs a 64-byte line
// plus its 20-byte trailer, so it pays off for a filter over a whole file;
// per block it works, at that fixed cost per block.

#include <string>
#include <utility>
#include <vector>

#include "linebloom/any_filter_reader.h"
#include "linebloom/compact_filter.h"
#include "linebloom/sstable/block_filter.h"

namespace linebloom::sstable {
namespace {

class CompactBuilder final : public BlockFilterBuilder {
 public:
  explicit CompactBuilder(const FilterOptions& options) : builder_(options) {}

  void AddKey(std::string_view key) override { builder_.AddKey(key); }
  size_t NumKeys() const override { return builder_.NumKeys(); }
  // The builder writes a Bloom filter (format version 2) in the rare build
  // whose keys no layer of lines can hold; the reader takes both.
  std::string Finish() override { return builder_.Finish(); }
  std::string Parameters() const override { return {}; }

 private:
  CompactFilterBuilder builder_;
};

class CompactReader final : public TableFilterReader {
 public:
  Status AddFilter(std::string_view filter) override {
    // Each filter's own checksum is verified as well as the region's, as
    // for linebloom.blocked512: one pass at open. A compact policy's rare
    // fallback build is a Bloom filter; the reader takes both kinds.
    AnyFilterReader reader;
    const ParseResult r = AnyFilterReader::Parse(filter, &reader);
    if (!r.ok()) return Status::Corruption(std::string("linebloom.compact: ").append(r.message()));
    filters_.push_back(reader);
    return Status::Ok();
  }

  bool MayMatch(size_t i, std::string_view key) const override { return filters_[i].MayContain(key); }

 private:
  std::vector<AnyFilterReader> filters_;
};

class CompactPolicy final : public BlockFilterPolicy {
 public:
  explicit CompactPolicy(const FilterOptions& options) : options_(options) {}
  std::string Name() const override { return std::string(kLinebloomCompactPolicyName); }
  std::unique_ptr<BlockFilterBuilder> NewBuilder() const override { return std::make_unique<CompactBuilder>(options_); }
  Status NewTableReader(std::string_view parameters, std::unique_ptr<TableFilterReader>* out) const override {
    if (!parameters.empty()) return Status::Corruption("linebloom.compact takes no filter parameters");
    *out = std::make_unique<CompactReader>();
    return Status::Ok();
  }

 private:
  FilterOptions options_;
};

}  // namespace

std::shared_ptr<const BlockFilterPolicy> NewLinebloomCompactPolicy(const FilterOptions& options) {
  return std::make_shared<CompactPolicy>(options);
}

}  // namespace linebloom::sstable
