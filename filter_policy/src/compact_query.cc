// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// CompactFilterReader's queries (compact_query.h). The form of the answer
// (compact_planes.h) follows the process-wide kernel, read once per query
// or batch, and within the AVX2 kernel whether the CPU has VPCLMULQDQ, as
// the reader found it when parsed: the AVX2, VPCLMULQDQ and AVX-512 entry
// points are compiled for those instructions as a whole, so the query is
// inlined into each.

#include <algorithm>

#include "compact_query.h"
#include "kernel_state.h"
#include "key_hash.h"
#include "linebloom/compact_filter.h"

namespace linebloom {

namespace {

using Portable = CompactQuery::PortableForm;

bool UseAvx512(bool supported) {
#if defined(LINEBLOOM_COMPACT_AVX512)
  return supported && internal::CurrentKernel() == Kernel::kAvx512;
#else
  (void)supported;
  return false;
#endif
}

// The AVX2 form, where the kernel is not the portable one and the CPU has
// what it uses.
bool UseAvx2(bool supported) {
#if defined(LINEBLOOM_COMPACT_AVX2)
  return supported && internal::CurrentKernel() != Kernel::kPortable;
#else
  (void)supported;
  return false;
#endif
}

#if defined(LINEBLOOM_COMPACT_AVX2)
using Avx2 = CompactQuery::Avx2Form;

// flatten: the line's answer inlined too (Avx2Form::Match carries the
// AVX2 target, so it cannot be always_inline into the form-generic
// templates).
LINEBLOOM_COMPACT_AVX2 __attribute__((flatten)) bool QueryAvx2(const CompactFilterReader& r, uint64_t hash) {
  return CompactQuery::Query<Avx2>(r, hash);
}
LINEBLOOM_COMPACT_AVX2 __attribute__((flatten)) void BatchAvx2(const CompactFilterReader& r, const uint64_t* hashes,
                                                               size_t n, bool* out) {
  CompactQuery::Batch<Avx2>(r, hashes, n, out);
}

using Vpclmul = CompactQuery::VpclmulForm;
LINEBLOOM_COMPACT_VPCLMUL __attribute__((flatten)) bool QueryVpclmul(const CompactFilterReader& r, uint64_t hash) {
  return CompactQuery::Query<Vpclmul>(r, hash);
}
LINEBLOOM_COMPACT_VPCLMUL __attribute__((flatten)) void BatchVpclmul(const CompactFilterReader& r,
                                                                     const uint64_t* hashes, size_t n, bool* out) {
  CompactQuery::Batch<Vpclmul>(r, hashes, n, out);
}
#endif

#if defined(LINEBLOOM_COMPACT_AVX512)
using Avx512 = CompactQuery::Avx512Form;

LINEBLOOM_COMPACT_AVX512 bool QueryAvx512(const CompactFilterReader& r, uint64_t hash) {
  return CompactQuery::Query<Avx512>(r, hash);
}
LINEBLOOM_COMPACT_AVX512 void BatchAvx512(const CompactFilterReader& r, const uint64_t* hashes, size_t n, bool* out) {
  CompactQuery::Batch<Avx512>(r, hashes, n, out);
}
#endif

// The query with the form the kernel allows; inline in both entry points,
// so that MayContain makes one call, to the form's query.
__attribute__((always_inline)) inline bool Dispatch(const CompactFilterReader& r, bool avx512_supported,
                                                    bool avx2_supported, bool vpclmul_supported, uint64_t hash) {
#if defined(LINEBLOOM_COMPACT_AVX512)
  if (UseAvx512(avx512_supported)) return QueryAvx512(r, hash);
#endif
#if defined(LINEBLOOM_COMPACT_AVX2)
  if (UseAvx2(avx2_supported)) return vpclmul_supported ? QueryVpclmul(r, hash) : QueryAvx2(r, hash);
#else
  (void)vpclmul_supported;
#endif
  return CompactQuery::Query<Portable>(r, hash);
}

}  // namespace

bool CompactFilterReader::MayContainHash(uint64_t hash) const {
  return Dispatch(*this, use_avx512_, use_avx2_, use_vpclmul_, hash);
}

bool CompactFilterReader::MayContain(std::string_view key) const {
  return Dispatch(*this, use_avx512_, use_avx2_, use_vpclmul_, internal::HashKeyTiered(key, seed_));
}

// A batch in chunks of up to CompactQuery::kBatch (a MultiGet batch is at
// most 32 keys), each prefetched before its first answer.
//   simple form: for each i: out[i] = MayContainHash(hashes[i])
void CompactFilterReader::MayContainHashBatch(std::span<const uint64_t> hashes, std::span<bool> out) const {
  constexpr size_t kChunk = CompactQuery::kBatch;
  [[maybe_unused]] const bool avx512 = UseAvx512(use_avx512_);
  [[maybe_unused]] const bool avx2 = UseAvx2(use_avx2_);
  for (size_t begin = 0; begin < hashes.size(); begin += kChunk) {
    const size_t n = std::min(kChunk, hashes.size() - begin);
#if defined(LINEBLOOM_COMPACT_AVX512)
    if (avx512) {
      BatchAvx512(*this, hashes.data() + begin, n, out.data() + begin);
      continue;
    }
#endif
#if defined(LINEBLOOM_COMPACT_AVX2)
    if (avx2) {
      (use_vpclmul_ ? BatchVpclmul : BatchAvx2)(*this, hashes.data() + begin, n, out.data() + begin);
      continue;
    }
#endif
    CompactQuery::Batch<Portable>(*this, hashes.data() + begin, n, out.data() + begin);
  }
}

void CompactFilterReader::MayContainBatch(std::span<const std::string_view> keys, std::span<bool> out) const {
  constexpr size_t kChunk = CompactQuery::kBatch;
  uint64_t hashes[kChunk];
  for (size_t begin = 0; begin < keys.size(); begin += kChunk) {
    const size_t n = std::min(kChunk, keys.size() - begin);
    for (size_t i = 0; i < n; ++i) hashes[i] = internal::HashKeyTiered(keys[begin + i], seed_);
    MayContainHashBatch({hashes, n}, out.subspan(begin, n));
  }
}

}  // namespace linebloom
