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

// The filter's fields, and the batch: every key hashed straight from its
// Slice, then CompactQuery::Batch (all first-layer lines prefetched before
// the first answer). The reader is aligned to a cache line, so that the
// vtable pointer and the fields a first-layer query reads (the seed, r, the
// sections, layer 0's start and the pointer to the filter kind's table of
// line forms: the first 56 bytes of CompactFilterReader) share one: where
// RocksDB holds thousands of filters, a query then reads one line of its
// reader besides the filter's.
//   simple form: for (i < num_keys) may_match[i] = MayMatch(*keys[i]);
template <class Form, bool kSeedZero>
class alignas(64) CompactBitsReaderBase : public ::rocksdb::FilterBitsReader {
 public:
  explicit CompactBitsReaderBase(const CompactFilterReader& reader) : reader_(reader) {}

 protected:
  // The filter's seed, a constant where it is 0 (every filter the plugin
  // writes), so that a query's hashes need nothing of the reader and are
  // computed while its fields are being loaded.
  uint32_t seed() const { return kSeedZero ? 0 : reader_.seed(); }

  __attribute__((always_inline)) void MatchBatch(int num_keys, ::rocksdb::Slice** keys, bool* may_match) const {
    constexpr size_t kChunk = CompactQuery::kBatch;
    uint64_t hashes[kChunk];
    const size_t n = num_keys > 0 ? static_cast<size_t>(num_keys) : 0;
    for (size_t start = 0; start < n; start += kChunk) {
      const size_t count = std::min(kChunk, n - start);
      for (size_t i = 0; i < count; ++i) hashes[i] = internal::HashKeyTiered(View(*keys[start + i]), seed());
      CompactQuery::Batch<Form>(reader_, hashes, count, may_match + start);
    }
  }

  const CompactFilterReader reader_;
};

template <bool kSeedZero>
class CompactPortableBitsReader final : public CompactBitsReaderBase<CompactQuery::PortableForm, kSeedZero> {
 public:
  using CompactBitsReaderBase<CompactQuery::PortableForm, kSeedZero>::CompactBitsReaderBase;
  bool MayMatch(const ::rocksdb::Slice& key) override {
    return CompactQuery::QueryLayered<CompactQuery::PortableForm>(this->reader_,
                                                                  internal::HashKeyTiered(View(key), this->seed()));
  }
  void MayMatch(int num_keys, ::rocksdb::Slice** keys, bool* may_match) override {
    this->MatchBatch(num_keys, keys, may_match);
  }
};

#if defined(LINEBLOOM_COMPACT_AVX2)
// The AVX2 form (compact_planes.h); the overrides carry the target, so the
// query is compiled into them, the line's answer too (flatten: a function of
// that target cannot be always_inline into the form-generic templates).
template <bool kSeedZero>
class CompactAvx2BitsReader final : public CompactBitsReaderBase<CompactQuery::Avx2Form, kSeedZero> {
 public:
  using CompactBitsReaderBase<CompactQuery::Avx2Form, kSeedZero>::CompactBitsReaderBase;
  LINEBLOOM_COMPACT_AVX2 __attribute__((flatten)) bool MayMatch(const ::rocksdb::Slice& key) override {
    return CompactQuery::QueryLayered<CompactQuery::Avx2Form>(this->reader_,
                                                              internal::HashKeyTiered(View(key), this->seed()));
  }
  LINEBLOOM_COMPACT_AVX2 __attribute__((flatten)) void MayMatch(int num_keys, ::rocksdb::Slice** keys,
                                                                bool* may_match) override {
    this->MatchBatch(num_keys, keys, may_match);
  }
};

// The AVX2 form where the CPU has VPCLMULQDQ, likewise.
template <bool kSeedZero>
class CompactVpclmulBitsReader final : public CompactBitsReaderBase<CompactQuery::VpclmulForm, kSeedZero> {
 public:
  using CompactBitsReaderBase<CompactQuery::VpclmulForm, kSeedZero>::CompactBitsReaderBase;
  LINEBLOOM_COMPACT_VPCLMUL __attribute__((flatten)) bool MayMatch(const ::rocksdb::Slice& key) override {
    return CompactQuery::QueryLayered<CompactQuery::VpclmulForm>(this->reader_,
                                                                 internal::HashKeyTiered(View(key), this->seed()));
  }
  LINEBLOOM_COMPACT_VPCLMUL __attribute__((flatten)) void MayMatch(int num_keys, ::rocksdb::Slice** keys,
                                                                   bool* may_match) override {
    this->MatchBatch(num_keys, keys, may_match);
  }
};
#endif

#if defined(LINEBLOOM_COMPACT_AVX512)
// The overrides carry the form's target, so the query is compiled into them.
template <bool kSeedZero>
class CompactAvx512BitsReader final : public CompactBitsReaderBase<CompactQuery::Avx512Form, kSeedZero> {
 public:
  using CompactBitsReaderBase<CompactQuery::Avx512Form, kSeedZero>::CompactBitsReaderBase;
  LINEBLOOM_COMPACT_AVX512 bool MayMatch(const ::rocksdb::Slice& key) override {
    return CompactQuery::QueryLayered<CompactQuery::Avx512Form>(this->reader_,
                                                                internal::HashKeyTiered(View(key), this->seed()));
  }
  LINEBLOOM_COMPACT_AVX512 void MayMatch(int num_keys, ::rocksdb::Slice** keys, bool* may_match) override {
    this->MatchBatch(num_keys, keys, may_match);
  }
};
#endif

// Reader<true> where the filter's seed is 0, else Reader<false>.
template <template <bool> class Reader>
::rocksdb::FilterBitsReader* NewFor(const CompactFilterReader& reader) {
  if (reader.seed() == 0) return new Reader<true>(reader);
  return new Reader<false>(reader);
}

}  // namespace

// Bound to the form the process's kernel allows when the reader is made, as
// the Bloom readers are (NewLinebloomBitsReader), which also collapse the
// filter's whole huge pages: RocksDB reads a filter block into 4 KiB pages,
// and a query on a filter of many MiB would otherwise pay a TLB miss too.
::rocksdb::FilterBitsReader* NewCompactBitsReader(const CompactFilterReader& reader, std::string_view bytes) {
  internal::CollapseHugePages(bytes.data(), bytes.size());
#if defined(LINEBLOOM_COMPACT_AVX512)
  if (ActiveKernel() == Kernel::kAvx512 && internal::compact::CompactAvx512Supported()) {
    return NewFor<CompactAvx512BitsReader>(reader);
  }
#endif
#if defined(LINEBLOOM_COMPACT_AVX2)
  if (ActiveKernel() != Kernel::kPortable && internal::compact::CompactAvx2Supported()) {
    if (internal::compact::CompactVpclmulSupported()) return NewFor<CompactVpclmulBitsReader>(reader);
    return NewFor<CompactAvx2BitsReader>(reader);
  }
#endif
  return NewFor<CompactPortableBitsReader>(reader);
}

}  // namespace linebloom::rocksdb_plugin
