// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// NewCompactBitsReader (bits_readers.h).

#include <algorithm>
#include <cstddef>
#include <span>
#include <string_view>

#include "bits_readers.h"

namespace linebloom::rocksdb_plugin {

namespace {

class CompactBitsReader final : public ::rocksdb::FilterBitsReader {
 public:
  explicit CompactBitsReader(const CompactFilterReader& reader) : reader_(reader) {}

  bool MayMatch(const ::rocksdb::Slice& key) override {
    return reader_.MayContain(std::string_view(key.data(), key.size()));
  }

  // may_match[i] = MayMatch(*keys[i]), kChunk keys at a time.
  void MayMatch(int num_keys, ::rocksdb::Slice** keys, bool* may_match) override {
    constexpr size_t kChunk = 32;
    std::string_view views[kChunk];
    const size_t n = num_keys > 0 ? static_cast<size_t>(num_keys) : 0;
    for (size_t start = 0; start < n; start += kChunk) {
      const size_t count = std::min(kChunk, n - start);
      for (size_t i = 0; i < count; ++i) views[i] = {keys[start + i]->data(), keys[start + i]->size()};
      reader_.MayContainBatch(std::span<const std::string_view>(views, count),
                              std::span<bool>(may_match + start, count));
    }
  }

 private:
  const CompactFilterReader reader_;
};

}  // namespace

::rocksdb::FilterBitsReader* NewCompactBitsReader(const CompactFilterReader& reader) {
  return new CompactBitsReader(reader);
}

}  // namespace linebloom::rocksdb_plugin
