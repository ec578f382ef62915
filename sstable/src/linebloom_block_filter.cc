// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// The default block filter: linebloom's FilterBuilder / FilterReader.

#include <algorithm>
#include <map>
#include <utility>
#include <vector>

#include "linebloom/bloom_math.h"
#include "linebloom/filter_builder.h"
#include "linebloom/filter_reader.h"
#include "linebloom/sstable/block_filter.h"

namespace linebloom::sstable {
namespace {

// Small filters are rounded up to whole 64-byte blocks: a data block of 32
// keys at 10 bits/key gets 512 bits, 16 per key. The probe count is chosen
// for the bits the filter really has (unless the caller fixed it), which at
// the same memory lowers the rate (about 0.09 % -> 0.05 % in that example).
class LinebloomBuilder final : public BlockFilterBuilder {
 public:
  explicit LinebloomBuilder(const FilterOptions& options) : options_(options) {}

  void AddKey(std::string_view key) override {
    const uint64_t h = KeyHash(key, options_.seed);
    if (hashes_.empty() || hashes_.back() != h) hashes_.push_back(h);
  }
  size_t NumKeys() const override { return hashes_.size(); }

  std::string Finish() override {
    FilterOptions options = options_;
    if (options.num_probes == 0 && !hashes_.empty()) options.num_probes = ProbesFor(hashes_.size());
    FilterBuilder builder(options);
    for (uint64_t h : hashes_) builder.AddHash(h);
    hashes_.clear();
    return builder.Finish();
  }

 private:
  int ProbesFor(size_t keys) {
    const size_t blocks = NumBlocksFor(keys, options_.EffectiveBitsPerKey());
    auto [it, inserted] = probes_.try_emplace({keys, blocks}, 0);
    if (inserted) {
      const double actual = static_cast<double>(blocks) * kBlockBits / static_cast<double>(keys);
      // One block holds exactly `keys` keys, a standard Bloom filter of 512
      // bits; with more blocks the occupancy varies and the blocked optimum
      // (a smaller k) applies.
      it->second = std::clamp(blocks == 1 ? OptimalStandardProbes(actual) : OptimalBlockedProbes(actual),
                              kMinProbes, kMaxProbes);
    }
    return it->second;
  }

  FilterOptions options_;
  std::vector<uint64_t> hashes_;
  // Probes per filter shape, (keys, blocks): data blocks repeat a few shapes.
  std::map<std::pair<size_t, size_t>, int> probes_;
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

std::shared_ptr<const BlockFilterPolicy> NewLinebloomFilterPolicy(const FilterOptions& options) {
  return std::make_shared<LinebloomPolicy>(options);
}

}  // namespace linebloom::sstable
