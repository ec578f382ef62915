// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.

#include "bits_readers.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "filter_query.h"
#include "linebloom/kernel.h"

namespace linebloom::rocksdb_plugin {

namespace {

std::string_view View(const ::rocksdb::Slice& s) { return {s.data(), s.size()}; }

using internal::PrefetchedChunk;

// The filter's fields and the batch path, shared by the kernels' readers.
// The simple form of the batch, which the pipeline below computes:
//   for (i < num_keys) may_match[i] = MayMatch(*keys[i]);
class KernelBitsReader : public ::rocksdb::FilterBitsReader {
 public:
  explicit KernelBitsReader(const FilterReader& reader)
      : blocks_(reinterpret_cast<const unsigned char*>(reader.blocks().data())),
        num_blocks_(reader.num_blocks()),
        num_probes_(reader.num_probes()),
        seed_(reader.seed()) {}

 protected:
  // Hashes straight from RocksDB's Slices: no key is copied.
  template <typename ProbeChunkFn>
  void MatchBatch(int num_keys, ::rocksdb::Slice** keys, bool* may_match, ProbeChunkFn probe_chunk) const {
    const int k = num_probes_;
    internal::QueryPipelined(
        blocks_, num_blocks_, num_keys > 0 ? static_cast<size_t>(num_keys) : 0, may_match,
        [keys, seed = seed_](size_t i) { return internal::HashKey(View(*keys[i]), seed); },
        [k, probe_chunk](const PrefetchedChunk& chunk, size_t n, bool* out) { probe_chunk(chunk, n, k, out); });
  }

  const unsigned char* const blocks_;
  const size_t num_blocks_;
  const int num_probes_;
  const uint32_t seed_;
};

class PortableBitsReader final : public KernelBitsReader {
 public:
  using KernelBitsReader::KernelBitsReader;
  bool MayMatch(const ::rocksdb::Slice& key) override {
    return internal::MayContainKeyPortable(blocks_, num_blocks_, num_probes_, seed_, View(key));
  }
  void MayMatch(int num_keys, ::rocksdb::Slice** keys, bool* may_match) override {
    MatchBatch(num_keys, keys, may_match, internal::ProbeChunkPortable);
  }
};

// One class per kernel (two for AVX2: up to 8 probes, and more), written
// out: the single-key override must itself carry the kernel's target
// attribute for the probe and XXH3 to be inlined into it, or, for the AVX2
// one-round reader, end in a jump to the probe; an attribute cannot depend
// on a template parameter (a template over the kernel's functions would add
// a call per query).
#if defined(__x86_64__)
class Avx2BitsReader final : public KernelBitsReader {
 public:
  using KernelBitsReader::KernelBitsReader;
  __attribute__((target("avx2"))) bool MayMatch(const ::rocksdb::Slice& key) override {
    return internal::MayContainKeyAvx2(blocks_, num_blocks_, num_probes_, seed_, View(key));
  }
  void MayMatch(int num_keys, ::rocksdb::Slice** keys, bool* may_match) override {
    MatchBatch(num_keys, keys, may_match, internal::ProbeChunkAvx2);
  }
};

// Filters of at most 8 probes (every filter up to ~14 bits/key): the
// single query hashes without AVX2 and jumps to the one-round probe with
// this filter's row of powers, so it tests no probe count and sets up no
// stack frame (filter_query.h).
class Avx2OneRoundBitsReader final : public KernelBitsReader {
 public:
  explicit Avx2OneRoundBitsReader(const FilterReader& reader)
      : KernelBitsReader(reader), powers_row_(internal::kOneRoundPowers.value[reader.num_probes()]) {}
  // Other keys go to a member function that loads the fields it needs
  // itself: the common path reads no more of the reader than it uses (and
  // GCC then saves no register).
  bool MayMatch(const ::rocksdb::Slice& key) override {
    const std::string_view k = View(key);
    if (!internal::IsShortKey(k.size())) return MayMatchOtherKey(k);
    return internal::ShortKeyOneRoundAvx2(blocks_, num_blocks_, powers_row_, seed_, k);
  }
  void MayMatch(int num_keys, ::rocksdb::Slice** keys, bool* may_match) override {
    MatchBatch(num_keys, keys, may_match, internal::ProbeChunkAvx2);
  }

 private:
  __attribute__((noinline)) bool MayMatchOtherKey(std::string_view key) const {
    return internal::MayContainOtherKeyAvx2(blocks_, num_blocks_, num_probes_, seed_, key);
  }

  const uint32_t* const powers_row_;
};

class Avx512BitsReader final : public KernelBitsReader {
 public:
  using KernelBitsReader::KernelBitsReader;
  __attribute__((target("avx512f"), flatten)) bool MayMatch(const ::rocksdb::Slice& key) override {
    return internal::MayContainKeyAvx512(blocks_, num_blocks_, num_probes_, seed_, View(key));
  }
  void MayMatch(int num_keys, ::rocksdb::Slice** keys, bool* may_match) override {
    MatchBatch(num_keys, keys, may_match, internal::ProbeChunkAvx512);
  }
};
#endif

}  // namespace

::rocksdb::FilterBitsReader* NewLinebloomBitsReader(const FilterReader& reader) {
#if defined(__x86_64__)
  switch (ActiveKernel()) {
    case Kernel::kAvx512: return new Avx512BitsReader(reader);
    case Kernel::kAvx2:
      if (reader.num_probes() <= 8) return new Avx2OneRoundBitsReader(reader);
      return new Avx2BitsReader(reader);
    case Kernel::kPortable: break;
  }
#endif
  return new PortableBitsReader(reader);
}

}  // namespace linebloom::rocksdb_plugin
