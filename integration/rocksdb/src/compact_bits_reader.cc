// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// NewCompactBitsReader (bits_readers.h).

#include <algorithm>
#include <cstddef>
#include <string_view>

#include "bits_readers.h"
#include "compact_query.h"
#include "huge_pages.h"
#include "key_hash.h"
#include "linebloom/kernel.h"

namespace linebloom::rocksdb_plugin {

namespace {

std::string_view View(const ::rocksdb::Slice& s) { return {s.data(), s.size()}; }

// The filter's fields and its queries, bound to the filter's shape and to
// the form the process's kernel allowed when the reader was made: each key
// hashed straight from its Slice, then the bound query, or for a batch the
// bound batch (all first-layer lines of up to CompactQuery::kBatch keys
// prefetched before the first answer). The reader is aligned to a cache
// line, so that the vtable pointer and the fields a first-layer query
// reads (the seed, the sections, the bound queries, layer 0's start and
// the pointer to the filter kind's table of line forms: the first 56 bytes
// of CompactFilterReader) share one: where RocksDB holds thousands of
// filters, a query then reads one line of its reader besides the filter's.
//   simple form: for (i < num_keys) may_match[i] = MayMatch(*keys[i]);
template <Kernel kKernel, bool kSeedZero>
class alignas(64) CompactBitsReader final : public ::rocksdb::FilterBitsReader {
 public:
  explicit CompactBitsReader(const CompactFilterReader& reader) : reader_(reader) {}

  bool MayMatch(const ::rocksdb::Slice& key) override {
    return CompactQuery::BoundQuery(reader_, kKernel, internal::HashKeyTiered(View(key), seed()));
  }
  void MayMatch(int num_keys, ::rocksdb::Slice** keys, bool* may_match) override {
    constexpr size_t kChunk = CompactQuery::kBatch;
    uint64_t hashes[kChunk];
    const size_t n = num_keys > 0 ? static_cast<size_t>(num_keys) : 0;
    for (size_t start = 0; start < n; start += kChunk) {
      const size_t count = std::min(kChunk, n - start);
      for (size_t i = 0; i < count; ++i) hashes[i] = internal::HashKeyTiered(View(*keys[start + i]), seed());
      CompactQuery::BoundBatch(reader_, kKernel, hashes, count, may_match + start);
    }
  }

 private:
  // The filter's seed, a constant where it is 0 (every filter the plugin
  // writes), so that a query's hashes need nothing of the reader and are
  // computed while its fields are being loaded.
  uint32_t seed() const { return kSeedZero ? 0 : reader_.seed(); }

  const CompactFilterReader reader_;
};

template <Kernel kKernel>
::rocksdb::FilterBitsReader* NewFor(const CompactFilterReader& reader) {
  if (reader.seed() == 0) return new CompactBitsReader<kKernel, true>(reader);
  return new CompactBitsReader<kKernel, false>(reader);
}

}  // namespace

// Bound to the process's kernel when the reader is made, as the Bloom
// readers are (NewLinebloomBitsReader), which also collapse the filter's
// whole huge pages: RocksDB reads a filter block into 4 KiB pages, and a
// query on a filter of many MiB would otherwise pay a TLB miss too.
::rocksdb::FilterBitsReader* NewCompactBitsReader(const CompactFilterReader& reader, std::string_view bytes) {
  internal::CollapseHugePages(bytes.data(), bytes.size());
  switch (ActiveKernel()) {
    case Kernel::kAvx512: return NewFor<Kernel::kAvx512>(reader);
    case Kernel::kAvx2: return NewFor<Kernel::kAvx2>(reader);
    case Kernel::kPortable: break;
  }
  return NewFor<Kernel::kPortable>(reader);
}

}  // namespace linebloom::rocksdb_plugin
