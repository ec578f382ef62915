// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.

#include "bits_readers.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "filter_query.h"
#include "huge_pages.h"
#include "linebloom/kernel.h"

namespace linebloom::rocksdb_plugin {

namespace {

std::string_view View(const ::rocksdb::Slice& s) { return {s.data(), s.size()}; }

using internal::PrefetchedChunk;

// The filter's fields and the batch path, shared by the kernels' readers.
// The simple form of the batch, which the pipeline below computes:
//   for (i < num_keys) may_match[i] = MayMatch(*keys[i]);
// A reader is aligned to a cache line, and its fields (40 bytes with the
// vtable pointer) fit in one, so that a query reads one line of the reader
// besides the filter's; at malloc's 16-byte alignment 40 bytes straddle
// two lines at half the offsets.
class alignas(kFilterBlockBytes) KernelBitsReader : public ::rocksdb::FilterBitsReader {
 public:
  explicit KernelBitsReader(const FilterReader& reader)
      : blocks_(reinterpret_cast<const unsigned char*>(reader.blocks().data())),
        num_blocks_(static_cast<uint32_t>(reader.num_blocks())),
        seed_(reader.seed()),
        num_probes_(reader.num_probes()) {}

 protected:
  // Hashes straight from RocksDB's Slices: no key is copied. kProbeChunk is
  // a kernel's ProbeChunk* function (filter_query.h), called directly;
  // kScheme the filter's hash scheme.
  template <auto kProbeChunk, KeyHashScheme kScheme>
  void MatchBatch(int num_keys, ::rocksdb::Slice** keys, bool* may_match) const {
    const int k = num_probes_;
    internal::QueryPipelined(
        blocks_, num_blocks_, num_keys > 0 ? static_cast<size_t>(num_keys) : 0, may_match,
        [keys, seed = seed_](size_t i) { return internal::HashKeyTiered<kScheme>(View(*keys[i]), seed); },
        [k](const PrefetchedChunk& chunk, size_t n, bool* out) { kProbeChunk(chunk, n, k, out); });
  }

  const unsigned char* const blocks_;
  // At most kMaxFilterBlocks (2^32 - 1).
  const uint32_t num_blocks_;
  const uint32_t seed_;
  const int num_probes_;
};

template <KeyHashScheme kScheme>
class PortableBitsReader final : public KernelBitsReader {
 public:
  using KernelBitsReader::KernelBitsReader;
  bool MayMatch(const ::rocksdb::Slice& key) override {
    return internal::MayContainKeyPortable<kScheme>(blocks_, num_blocks_, num_probes_, seed_, View(key));
  }
  void MayMatch(int num_keys, ::rocksdb::Slice** keys, bool* may_match) override {
    MatchBatch<internal::ProbeChunkPortable, kScheme>(num_keys, keys, may_match);
  }
};

// One class per kernel for filters of more probes than one SIMD round
// takes, written out: the single-key override must itself carry the
// kernel's target attribute for the probe and XXH3 to be inlined into it,
// and an attribute cannot depend on a template parameter. The one-round
// readers (OneRoundBitsReader) compile their override without a target and
// end in a jump to the kernel, so one template serves both kernels.
#if defined(__x86_64__)
template <KeyHashScheme kScheme>
class Avx2BitsReader final : public KernelBitsReader {
 public:
  using KernelBitsReader::KernelBitsReader;
  __attribute__((target("avx2"))) bool MayMatch(const ::rocksdb::Slice& key) override {
    return internal::MayContainKeyAvx2<kScheme>(blocks_, num_blocks_, num_probes_, seed_, View(key));
  }
  void MayMatch(int num_keys, ::rocksdb::Slice** keys, bool* may_match) override {
    MatchBatch<internal::ProbeChunkAvx2, kScheme>(num_keys, keys, may_match);
  }
};

// Filters whose probes take one round of a SIMD kernel (AVX2: at most 8
// probes, every filter up to ~13 bits/key; AVX-512: at most 16, ~38): the
// single query hashes without the kernel's target and jumps to the
// one-round probe with this filter's row of powers, so it tests no probe
// count and sets up no stack frame (filter_query.h). `Kernel` names the
// kernel's functions; they are template arguments, so each is a direct call
// or jump. kScheme is the filter's hash scheme: only keys of 9 to 16 bytes
// hash differently.
template <typename Kernel, bool kSeedZero, KeyHashScheme kScheme>
class OneRoundBitsReader final : public KernelBitsReader {
 public:
  explicit OneRoundBitsReader(const FilterReader& reader)
      : KernelBitsReader(reader), powers_row_(Kernel::PowersRow(reader.num_probes())) {}
  // Other keys go to a member function that loads the fields it needs
  // itself: the common path reads no more of the reader than it uses (and
  // GCC then saves no register).
  bool MayMatch(const ::rocksdb::Slice& key) override {
    const std::string_view k = View(key);
    if (!internal::IsShortKey(k.size())) return MayMatchOtherKey(k);
    return internal::OneRoundQueryHash<Kernel::kProbe>(blocks_, num_blocks_, powers_row_,
                                                       internal::HashShortKeyOf<kScheme>(k, seed()));
  }
  // A batch of at most kQueryChunk keys -- every batch of MultiGet, which
  // passes at most 32 -- is answered the way the built-in answers it: all
  // keys hashed, their blocks located and prefetched, then all probed in
  // one loop with the row of powers loaded once. Larger batches take the
  // pipeline (MatchBatch). Both compute
  //   for (i < num_keys) may_match[i] = MayMatch(*keys[i]);
  void MayMatch(int num_keys, ::rocksdb::Slice** keys, bool* may_match) override {
    if (num_keys > static_cast<int>(internal::kQueryChunk)) {
      return MatchBatch<Kernel::kProbeChunk, kScheme>(num_keys, keys, may_match);
    }
    if (num_keys <= 0) return;
    const size_t n = static_cast<size_t>(num_keys);
    PrefetchedChunk chunk;
    internal::StageChunk(
        blocks_, num_blocks_, 0, n,
        [keys, seed = seed()](size_t i) { return internal::HashKeyTiered<kScheme>(View(*keys[i]), seed); }, chunk);
    Kernel::kProbeChunkOneRound(chunk, n, powers_row_, may_match);
  }

 private:
  // The filter's seed, a constant where it is 0 (every filter the plugin
  // writes): the keys' hashes then depend on nothing of the reader, so they
  // are computed while its fields are still being loaded -- where a query
  // goes to one of many filters, the reader is often not in the L1 either.
  uint32_t seed() const { return kSeedZero ? 0 : seed_; }

  // Keys of 17 to 32 bytes hash here as the short ones do, without the
  // kernel's target, and jump to the one-round probe; the rest go to the
  // kernel's query of any key.
  __attribute__((noinline)) bool MayMatchOtherKey(std::string_view key) const {
    if (internal::IsMediumKey(key.size())) {
      return internal::OneRoundQueryHash<Kernel::kProbe>(blocks_, num_blocks_, powers_row_,
                                                         internal::HashMediumKey(key, seed()));
    }
    return Kernel::kOtherKey(blocks_, num_blocks_, num_probes_, seed(), key);
  }

  const uint32_t* const powers_row_;
};

struct Avx2OneRound {
  static constexpr int kOneRoundProbes = internal::kOneRoundPowers.kLanes;
  static const uint32_t* PowersRow(int k) { return internal::kOneRoundPowers.value[k]; }
  static constexpr auto kProbe = internal::OneRoundSetAvx2Call;
  static constexpr auto kOtherKey = internal::MayContainOtherKeyAvx2;
  static constexpr auto kProbeChunk = internal::ProbeChunkAvx2;
  static constexpr auto kProbeChunkOneRound = internal::ProbeChunkOneRoundAvx2;
};

struct Avx512OneRound {
  static constexpr int kOneRoundProbes = internal::kOneRoundPowers512.kLanes;
  static const uint32_t* PowersRow(int k) { return internal::kOneRoundPowers512.value[k]; }
  static constexpr auto kProbe = internal::OneRoundSetAvx512Call;
  static constexpr auto kOtherKey = internal::MayContainOtherKeyAvx512;
  static constexpr auto kProbeChunk = internal::ProbeChunkAvx512;
  static constexpr auto kProbeChunkOneRound = internal::ProbeChunkOneRoundAvx512;
};

template <typename Kernel, KeyHashScheme kScheme>
::rocksdb::FilterBitsReader* NewOneRoundBitsReader(const FilterReader& reader) {
  if (reader.seed() == 0) return new OneRoundBitsReader<Kernel, true, kScheme>(reader);
  return new OneRoundBitsReader<Kernel, false, kScheme>(reader);
}

template <KeyHashScheme kScheme>
class Avx512BitsReader final : public KernelBitsReader {
 public:
  using KernelBitsReader::KernelBitsReader;
  __attribute__((target("avx512f"), flatten)) bool MayMatch(const ::rocksdb::Slice& key) override {
    return internal::MayContainKeyAvx512<kScheme>(blocks_, num_blocks_, num_probes_, seed_, View(key));
  }
  void MayMatch(int num_keys, ::rocksdb::Slice** keys, bool* may_match) override {
    MatchBatch<internal::ProbeChunkAvx512, kScheme>(num_keys, keys, may_match);
  }
};
#endif

// The reader of `reader`'s kernel and probes under hash scheme kScheme.
template <KeyHashScheme kScheme>
::rocksdb::FilterBitsReader* NewBitsReaderOfScheme(const FilterReader& reader) {
#if defined(__x86_64__)
  switch (ActiveKernel()) {
    case Kernel::kAvx512:
      // One reader class for every filter of up to 16 probes: filters of
      // other probe counts (level-aware bits per level) queried in turn
      // would otherwise alternate the virtual call's target, which the
      // processor then mispredicts (a query pays more than its probe).
      // (Filters of both hash schemes, as in a DB written before and after
      // a change of hash_scheme, take two.)
      if (reader.num_probes() <= Avx512OneRound::kOneRoundProbes) {
        return NewOneRoundBitsReader<Avx512OneRound, kScheme>(reader);
      }
      return new Avx512BitsReader<kScheme>(reader);
    case Kernel::kAvx2:
      if (reader.num_probes() <= Avx2OneRound::kOneRoundProbes) {
        return NewOneRoundBitsReader<Avx2OneRound, kScheme>(reader);
      }
      return new Avx2BitsReader<kScheme>(reader);
    case Kernel::kPortable: break;
  }
#endif
  return new PortableBitsReader<kScheme>(reader);
}

}  // namespace

::rocksdb::FilterBitsReader* NewLinebloomBitsReader(const FilterReader& reader) {
  // RocksDB keeps the filter where it read the block, in 4 KiB pages: a query
  // on a filter of many MiB then also pays a TLB miss and a page walk. Its
  // whole huge pages are collapsed once, here, where the filter is loaded
  // (huge_pages.h); the built-in filter stays in 4 KiB pages.
  internal::CollapseHugePages(reader.blocks().data(), reader.blocks().size());
  if (reader.hash_scheme() == KeyHashScheme::kShortKeyMultiply) {
    return NewBitsReaderOfScheme<KeyHashScheme::kShortKeyMultiply>(reader);
  }
  return NewBitsReaderOfScheme<KeyHashScheme::kXxh3>(reader);
}

}  // namespace linebloom::rocksdb_plugin
