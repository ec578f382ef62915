// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.

#include "linebloom/filter_builder.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cassert>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <utility>

#include "block_probe.h"
#include "huge_pages.h"
#include "kernel_state.h"
#include "key_hash.h"
#include "probe_avx2.h"
#include "trailer.h"

namespace linebloom {

FilterBuilder::FilterBuilder(const FilterOptions& options)
    : options_(options), bits_per_key_(options.EffectiveBitsPerKey()) {}

void FilterBuilder::SetBitsPerKey(double bits_per_key) {
  options_.bits_per_key = bits_per_key;
  bits_per_key_ = options_.EffectiveBitsPerKey();
}

void FilterBuilder::SetLeadBytes(size_t lead_bytes) {
  if (lead_bytes > kMaxLeadBytes) throw std::invalid_argument("FilterBuilder: more than 63 lead bytes");
  lead_bytes_ = lead_bytes;
}

// 256 Ki hashes = 2 MiB, one huge page: large enough that per-chunk work is
// negligible, small enough that a chunk's unused tail is a small share of a
// big filter. On huge pages the hashes of a large build cost one page fault
// per 2 MiB instead of one per 4 KiB: a page fault costs more than hashing
// the 512 keys whose hashes fill a 4 KiB page.
static constexpr size_t kMinChunk = 64;
static constexpr size_t kMaxChunk = internal::kHugePageBytes / sizeof(uint64_t);

void FilterBuilder::SealChunk() {
  if (!chunks_.empty()) chunks_.back().size = fill_;
}

__attribute__((noinline)) void FilterBuilder::StartChunk(size_t capacity) {
  SealChunk();
  if (chunks_.empty() || chunks_.back().size != 0) chunks_.emplace_back();
  HashChunk& chunk = chunks_.back();
  if (chunk.capacity < capacity) {
    chunk.hashes.reset(static_cast<uint64_t*>(AllocateFilterMemory(capacity * sizeof(uint64_t))));
    chunk.capacity = capacity;
  }
  fill_ = 0;
  capacity_ = chunk.capacity;
}

// At most one chunk of kMaxChunk ahead: one larger allocation would be
// 2 MiB-aligned memory of its own, which glibc maps afresh (and the kernel
// zeroes) on every build, where 2 MiB chunks are reused memory and cost the
// same per key as the chunks of an unreserved build.
void FilterBuilder::Reserve(size_t n) {
  if (n > num_keys_ && capacity_ - fill_ < n - num_keys_) StartChunk(std::min(n - num_keys_, kMaxChunk));
}

// The per-key path of every build: kept short enough to inline into
// AddKey, with the rare chunk change out of line.
__attribute__((always_inline)) inline void FilterBuilder::AppendHash(uint64_t hash) {
  if (last_hash_ == hash && num_keys_ > 0) return;
  // (chunks_ is empty with capacity_ > 0 only in a moved-from builder.)
  if (fill_ == capacity_ || chunks_.empty()) [[unlikely]] {
    StartChunk(std::clamp(num_keys_, kMinChunk, kMaxChunk));
  }
  chunks_.back().hashes[fill_++] = hash;
  last_hash_ = hash;
  ++num_keys_;
}

void FilterBuilder::AddKey(std::string_view key) {
  AppendHash(internal::HashKey(key, options_.seed, options_.hash_scheme));
}

void FilterBuilder::AddHash(uint64_t hash) { AppendHash(hash); }

// The simple form: for (uint64_t hash : hashes) AppendHash(hash); with no
// repeat to drop, a batch is copied whole into the chunks' room.
void FilterBuilder::AddDistinctHashes(std::span<const uint64_t> hashes) {
  while (!hashes.empty()) {
    if (fill_ == capacity_ || chunks_.empty()) StartChunk(std::clamp(num_keys_, kMinChunk, kMaxChunk));
    const size_t n = std::min(hashes.size(), capacity_ - fill_);
    std::copy_n(hashes.begin(), n, chunks_.back().hashes.get() + fill_);
    fill_ += n;
    num_keys_ += n;
    last_hash_ = hashes[n - 1];
    hashes = hashes.subspan(n);
  }
}

size_t FilterBuilder::FinishedSize() const { return lead_bytes_ + FilterBytesFor(num_keys_, bits_per_key_); }

namespace {

// Sets the bits of hashes[0, n) with k fixed at compile time. The simple
// form of the loop:
//   for (size_t i = 0; i < n; ++i)
//     set_probes(blocks + BlockIndex(hashes[i], num_blocks) * 64, ProbeState(hashes[i]));
// Keys land in random blocks; prefetching the block of the key kAhead
// positions later keeps that many misses in flight instead of one. (After
// partitioning, see below, the blocks are nearly sequential and these
// prefetches hit.) The blocks located for the prefetches wait in a ring
// until their keys' turn, so each block index is computed once.
template <typename SetProbes>
__attribute__((always_inline)) inline void SetAllBody(unsigned char* blocks, size_t num_blocks, const uint64_t* hashes,
                                                      size_t n, const SetProbes& set_probes) {
  constexpr size_t kAhead = 16;
  unsigned char* ahead[kAhead] = {};
  for (size_t i = 0; i < n + kAhead; ++i) {
    unsigned char* const block = ahead[i % kAhead];  // key i - kAhead's
    if (i < n) {
      ahead[i % kAhead] = blocks + internal::BlockIndex(hashes[i], num_blocks) * kFilterBlockBytes;
      internal::PrefetchBlockForWrite(ahead[i % kAhead]);
    }
    if (i >= kAhead) set_probes(block, internal::ProbeState(hashes[i - kAhead]));
  }
}

// The k probes of state a, one multiply each, unrolled.
template <int kProbes>
struct ScalarSetProbes {
  __attribute__((always_inline)) void operator()(unsigned char* block, uint32_t a) const {
    for (int j = 0; j < kProbes; ++j) internal::SetBit(block, internal::ProbeBit(a, j));
  }
};

using SetAllFn = void (*)(unsigned char*, size_t, const uint64_t*, size_t);

template <int kProbes>
struct PortableSetAll {
  static void Run(unsigned char* blocks, size_t num_blocks, const uint64_t* hashes, size_t n) {
    SetAllBody(blocks, num_blocks, hashes, n, ScalarSetProbes<kProbes>{});
  }
};

#if defined(__x86_64__)
// Up to 8 probes (every filter up to ~13 bits/key): the k products a * M^j
// in one vector multiply, whose top 9 bits are then set one by one. The
// scalar form spends a multiply per probe, on a core that has one or two
// scalar multipliers against four or more ALUs. The bytes are identical
// (kernel_test, golden_test).
template <int kProbes>
struct Avx2SetProbes {
  __m256i powers;
  __attribute__((target("avx2"))) Avx2SetProbes()
      : powers(_mm256_load_si256(reinterpret_cast<const __m256i*>(internal::kOneRoundPowers.value[kProbes]))) {}
  __attribute__((target("avx2,bmi2"))) void operator()(unsigned char* block, uint32_t a) const {
    alignas(32) uint32_t bit[8];
    const __m256i x = _mm256_mullo_epi32(_mm256_set1_epi32(static_cast<int>(a)), powers);
    _mm256_store_si256(reinterpret_cast<__m256i*>(bit), _mm256_srli_epi32(x, 23));
    for (int j = 0; j < kProbes; ++j) internal::SetBit(block, bit[j]);
  }
};

// The loop for CPUs of the AVX2 kernel (which all have BMI2): the vector
// probes above where k allows, and shlx, which takes its shift count from
// any register and does not overwrite its source, so setting a bit needs no
// move of the count into cl and no copy of the value shifted: about two
// instructions fewer per probe. `flatten` inlines the probes' operator,
// whose target attribute keeps it out of SetAllBody on its own.
template <int kProbes>
struct Bmi2SetAll {
  __attribute__((target("avx2,bmi2"), flatten)) static void Run(unsigned char* blocks, size_t num_blocks,
                                                                const uint64_t* hashes, size_t n) {
    if constexpr (kProbes <= internal::kOneRoundPowers.kLanes) {
      SetAllBody(blocks, num_blocks, hashes, n, Avx2SetProbes<kProbes>{});
    } else {
      SetAllBody(blocks, num_blocks, hashes, n, ScalarSetProbes<kProbes>{});
    }
  }
};
#endif

// One entry per k in [1, kMaxProbes]: Loop<k>::Run.
template <template <int> class Loop, size_t... K>
constexpr auto MakeSetAllTable(std::index_sequence<K...>) {
  return std::array<SetAllFn, sizeof...(K)>{&Loop<static_cast<int>(K) + 1>::Run...};
}
constexpr auto kSetAll = MakeSetAllTable<PortableSetAll>(std::make_index_sequence<kMaxProbes>{});
#if defined(__x86_64__)
constexpr auto kSetAllBmi2 = MakeSetAllTable<Bmi2SetAll>(std::make_index_sequence<kMaxProbes>{});
#endif

// The build loop for k probes on the active kernel.
SetAllFn SetAllFor(int num_probes) {
#if defined(__x86_64__)
  if (internal::UseAvx2Build()) return kSetAllBmi2[num_probes - 1];
#endif
  return kSetAll[num_probes - 1];
}

// Filters larger than this are built partitioned (below). On 4 KiB pages
// every random block of a large filter is also a TLB miss, and partitioning
// pays from about the size of L2 on. On huge pages a random block costs a
// cache miss but no TLB miss, which the prefetches hide, while partitioning
// writes and re-reads 8 bytes of scratch per key; so the random build is
// kept up to the TLB's reach for 2 MiB pages (about 1 GiB on current x86:
// a few thousand second-level entries), and partitioning beyond it.
constexpr size_t kPartitionAboveBlocks = (size_t{1} << 20) / kFilterBlockBytes;
constexpr size_t kPartitionAboveBlocksOnHugePages = (size_t{1} << 30) / kFilterBlockBytes;
// Target region per partition: 256 blocks = 16 KiB, comfortably in L1/L2.
constexpr int kLogBlocksPerPartition = 8;
constexpr int kMaxLogPartitions = 12;

// A filter much larger than the cache costs one miss per key if keys are set
// in arrival order. The block index (lo32 * N) >> 32 is monotone in lo32, so
// the top P bits of lo32 split the keys into 2^P partitions that each cover a
// contiguous run of about N / 2^P blocks. A counting sort by those bits
// (histogram, prefix sum, scatter into `scratch`) then lets SetAll sweep the
// filter almost sequentially. Costs 8 more bytes per key during Finish.
template <typename Chunks>
void SetAllPartitioned(unsigned char* blocks, size_t num_blocks, const Chunks& chunks, size_t num_keys,
                       int num_probes) {
  int log_partitions = std::bit_width(num_blocks >> kLogBlocksPerPartition);
  log_partitions = std::min(log_partitions, kMaxLogPartitions);
  const int shift = 32 - log_partitions;
  std::vector<size_t> start((size_t{1} << log_partitions) + 1, 0);
  for (const auto& chunk : chunks) {
    for (size_t i = 0; i < chunk.size; ++i) ++start[((chunk.hashes[i] & 0xFFFFFFFFu) >> shift) + 1];
  }
  for (size_t p = 1; p < start.size(); ++p) start[p] += start[p - 1];
  // Not a vector: value-initialising it would write every byte once more.
  std::unique_ptr<uint64_t[], FilterMemoryDeleter> scratch(
      static_cast<uint64_t*>(AllocateFilterMemory(num_keys * sizeof(uint64_t))));
  for (const auto& chunk : chunks) {
    for (size_t i = 0; i < chunk.size; ++i) {
      const uint64_t h = chunk.hashes[i];
      scratch[start[(h & 0xFFFFFFFFu) >> shift]++] = h;
    }
  }
  SetAllFor(num_probes)(blocks, num_blocks, scratch.get(), num_keys);
}

}  // namespace

void FilterBuilder::FinishInto(std::span<char> out) {
  assert(out.size() == FinishedSize());
  SealChunk();
  const size_t num_blocks = NumBlocksFor(num_keys_, bits_per_key_);
  // ProbesFor costs next to nothing: OptimalBlockedProbes reads the
  // filter's bits per key off steps it finds once per process.
  const int num_probes = ProbesFor(options_, num_keys_);
  auto* const start = reinterpret_cast<unsigned char*>(out.data());
  unsigned char* const bytes = start + lead_bytes_;  // the first block
  internal::AdviseHugePages(start, out.size());
  std::memset(start, 0, lead_bytes_ + num_blocks * kFilterBlockBytes);
  if (num_blocks > (internal::HugePagesEnabled() ? kPartitionAboveBlocksOnHugePages : kPartitionAboveBlocks)) {
    SetAllPartitioned(bytes, num_blocks, chunks_, num_keys_, num_probes);
  } else {
    const SetAllFn set_all = SetAllFor(num_probes);
    for (const auto& chunk : chunks_) set_all(bytes, num_blocks, chunk.hashes.get(), chunk.size);
  }

  internal::Trailer trailer;
  trailer.seed = options_.seed;
  trailer.num_probes = static_cast<uint8_t>(num_probes);
  // Any other value than scheme 3 hashed as scheme 1 (AddKey).
  trailer.hash_scheme = options_.hash_scheme == KeyHashScheme::kShortKeyMultiply ? internal::kHashSchemeShortKeyMultiply
                                                                                 : internal::kHashSchemeXxh3Fastrange;
  if (lead_bytes_ > 0) {
    trailer.lead_bytes = static_cast<uint8_t>(lead_bytes_);
    trailer.version = internal::kFormatVersionWithLead;
  }
  internal::EncodeTrailer(trailer, start, lead_bytes_ + num_blocks * kFilterBlockBytes);
  // Keep the first chunk's memory: a builder reused for many small filters
  // (one per data block) then allocates nothing per filter.
  if (!chunks_.empty()) {
    chunks_.resize(1);
    chunks_.front().size = 0;
  }
  fill_ = 0;
  capacity_ = chunks_.empty() ? 0 : chunks_.front().capacity;
  num_keys_ = 0;
}

AlignedFilter FilterBuilder::FinishAligned() {
  AlignedFilter filter(FinishedSize());
  FinishInto(filter.mutable_bytes());
  return filter;
}

std::string FilterBuilder::Finish() {
  std::string out(FinishedSize(), '\0');
  FinishInto(out);
  return out;
}

}  // namespace linebloom
