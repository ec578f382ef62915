// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// CompactFilterReader's queries (compact_query.h), bound to the filter's
// shape when it is parsed (Bind): one query and one batch per kernel, each
// compiled for its shape and its form of the answer (compact_planes.h). The
// form follows the process-wide kernel, read once per query or batch, and
// within the AVX2 kernel whether the CPU has VPCLMULQDQ, as the reader
// found it when parsed: the AVX2, VPCLMULQDQ and AVX-512 entry points are
// compiled for those instructions as a whole, so the query is inlined into
// each.

#include <algorithm>
#include <array>
#include <utility>

#include "compact_query.h"
#include "kernel_state.h"
#include "key_hash.h"
#include "linebloom/compact_filter.h"

namespace linebloom {

namespace {

namespace c = internal::compact;
using QueryFn = bool (*)(const CompactFilterReader&, uint64_t);
using BatchFn = void (*)(const CompactFilterReader&, const uint64_t*, size_t, bool*);

// The shapes builders write for r of 2 to 15 (every rate from 1/4 to
// 1/2^15): one or two groups of planes; rows past 64 columns in the one
// group and in a mixed filter of r = 8; one extra plane per line at most
// only where not mixed. Others (r >= 16, or fields a builder does not
// combine) take kAnyShape's query.
constexpr QueryShape kShapes[] = {
    {.known = true, .mixed = false, .groups = 1, .wide = true, .one_extra = false},
    {.known = true, .mixed = false, .groups = 1, .wide = true, .one_extra = true},
    {.known = true, .mixed = false, .groups = 2, .wide = false, .one_extra = false},
    {.known = true, .mixed = false, .groups = 2, .wide = false, .one_extra = true},
    {.known = true, .mixed = true, .groups = 1, .wide = true, .one_extra = false},
    {.known = true, .mixed = true, .groups = 2, .wide = false, .one_extra = false},
    {.known = true, .mixed = true, .groups = 2, .wide = true, .one_extra = false},
    kAnyShape,
};
constexpr size_t kNumShapes = std::size(kShapes);

// A form's query and batch for one shape, chunked to CompactQuery::kBatch.
// Each form's entry points carry its target, so the query is compiled into
// them (flatten: a function of that target cannot be always_inline into the
// form-generic templates).
struct FormQueries {
  QueryFn query;
  BatchFn batch;
};

template <class Form, QueryShape kShape>
void BatchChunks(const CompactFilterReader& r, const uint64_t* hashes, size_t n, bool* out) {
  for (size_t begin = 0; begin < n; begin += CompactQuery::kBatch) {
    const size_t count = std::min(CompactQuery::kBatch, n - begin);
    CompactQuery::BatchLayered<Form, kShape>(r, hashes + begin, count, out + begin);
  }
}

template <QueryShape kShape>
__attribute__((flatten)) bool QueryPortable(const CompactFilterReader& r, uint64_t hash) {
  return CompactQuery::QueryLayered<CompactQuery::PortableForm, kShape>(r, hash);
}
template <QueryShape kShape>
__attribute__((flatten)) void BatchPortable(const CompactFilterReader& r, const uint64_t* hashes, size_t n, bool* out) {
  BatchChunks<CompactQuery::PortableForm, kShape>(r, hashes, n, out);
}

#if defined(LINEBLOOM_COMPACT_AVX2)
template <QueryShape kShape>
LINEBLOOM_COMPACT_AVX2 __attribute__((flatten)) bool QueryAvx2(const CompactFilterReader& r, uint64_t hash) {
  return CompactQuery::QueryLayered<CompactQuery::Avx2Form, kShape>(r, hash);
}
template <QueryShape kShape>
LINEBLOOM_COMPACT_AVX2 __attribute__((flatten)) void BatchAvx2(const CompactFilterReader& r, const uint64_t* hashes,
                                                               size_t n, bool* out) {
  BatchChunks<CompactQuery::Avx2Form, kShape>(r, hashes, n, out);
}
template <QueryShape kShape>
LINEBLOOM_COMPACT_VPCLMUL __attribute__((flatten)) bool QueryVpclmul(const CompactFilterReader& r, uint64_t hash) {
  return CompactQuery::QueryLayered<CompactQuery::VpclmulForm, kShape>(r, hash);
}
template <QueryShape kShape>
LINEBLOOM_COMPACT_VPCLMUL __attribute__((flatten)) void BatchVpclmul(const CompactFilterReader& r,
                                                                     const uint64_t* hashes, size_t n, bool* out) {
  BatchChunks<CompactQuery::VpclmulForm, kShape>(r, hashes, n, out);
}
#endif

#if defined(LINEBLOOM_COMPACT_AVX512)
template <QueryShape kShape>
LINEBLOOM_COMPACT_AVX512 __attribute__((flatten)) bool QueryAvx512(const CompactFilterReader& r, uint64_t hash) {
  return CompactQuery::QueryLayered<CompactQuery::Avx512Form, kShape>(r, hash);
}
template <QueryShape kShape>
LINEBLOOM_COMPACT_AVX512 __attribute__((flatten)) void BatchAvx512(const CompactFilterReader& r, const uint64_t* hashes,
                                                                   size_t n, bool* out) {
  BatchChunks<CompactQuery::Avx512Form, kShape>(r, hashes, n, out);
}
#endif

// The forms, in the order of FormOf's answers.
enum Form { kPortableForm, kAvx2Form, kVpclmulForm, kAvx512Form, kNumForms };

template <QueryShape kShape>
constexpr FormQueries FormQueriesOf(int form) {
#if defined(LINEBLOOM_COMPACT_AVX512)
  if (form == kAvx512Form) return {&QueryAvx512<kShape>, &BatchAvx512<kShape>};
#endif
#if defined(LINEBLOOM_COMPACT_AVX2)
  if (form == kVpclmulForm) return {&QueryVpclmul<kShape>, &BatchVpclmul<kShape>};
  if (form == kAvx2Form) return {&QueryAvx2<kShape>, &BatchAvx2<kShape>};
#endif
  (void)form;
  return {&QueryPortable<kShape>, &BatchPortable<kShape>};
}

// Every form's queries for every shape.
template <size_t... kShape>
constexpr auto AllFormQueries(std::index_sequence<kShape...>) {
  std::array<std::array<FormQueries, kNumShapes>, kNumForms> all{};
  for (int form = 0; form < kNumForms; ++form) all[form] = {FormQueriesOf<kShapes[kShape]>(form)...};
  return all;
}
constexpr auto kFormQueries = AllFormQueries(std::make_index_sequence<kNumShapes>{});

// The form that answers under `kernel` on this CPU: AVX-512 where the
// kernel and the CPU allow, else AVX2 (with VPCLMULQDQ where `vpclmul`)
// where the kernel is not the portable one and the CPU allows, else
// portable.
int FormOf(Kernel kernel, bool vpclmul) {
  if (kernel == Kernel::kAvx512 && c::CompactAvx512Supported()) return kAvx512Form;
  if (kernel != Kernel::kPortable && c::CompactAvx2Supported()) return vpclmul ? kVpclmulForm : kAvx2Form;
  return kPortableForm;
}

// The bound queries of `shape` on this CPU, with VPCLMULQDQ or not (which
// tests may switch off: CompactVpclmulSupported as the reader is parsed).
// The tables of every shape are made once.
const CompactQuery::BoundQueries& BoundFor(size_t shape, bool vpclmul) {
  using Tables = std::array<std::array<CompactQuery::BoundQueries, kNumShapes>, 2>;
  static const Tables tables = [] {
    Tables t{};
    for (int with = 0; with < 2; ++with) {
      for (size_t s = 0; s < kNumShapes; ++s) {
        for (Kernel k : {Kernel::kPortable, Kernel::kAvx2, Kernel::kAvx512}) {
          const FormQueries& q = kFormQueries[FormOf(k, with == 1)][s];
          t[with][s].query[static_cast<int>(k)] = q.query;
          t[with][s].batch[static_cast<int>(k)] = q.batch;
        }
      }
    }
    return t;
  }();
  return tables[vpclmul ? 1 : 0][shape];
}

bool NoKeysQuery(const CompactFilterReader&, uint64_t) { return false; }
void NoKeysBatch(const CompactFilterReader&, const uint64_t*, size_t n, bool* out) { std::fill(out, out + n, false); }

}  // namespace

const CompactFilterReader::BoundQueries CompactFilterReader::kNoKeys = {{&NoKeysQuery, &NoKeysQuery, &NoKeysQuery},
                                                                        {&NoKeysBatch, &NoKeysBatch, &NoKeysBatch}};

void CompactFilterReader::Bind() {
  if (num_layers_ == 0) {
    bound_ = &kNoKeys;
    return;
  }
  const QueryShape shape{.known = true,
                         .mixed = low_threshold_ != 0,
                         .groups = c::PlaneGroupsFor(fingerprint_bits_),
                         .wide = wide_rows_,
                         .one_extra = one_extra_plane_};
  size_t s = 0;
  while (s + 1 < kNumShapes && kShapes[s] != shape) ++s;
  bound_ = &BoundFor(s, c::CompactVpclmulSupported());
}

bool CompactFilterReader::MayContainHash(uint64_t hash) const {
  return CompactQuery::BoundQuery(*this, internal::CurrentKernel(), hash);
}

bool CompactFilterReader::MayContain(std::string_view key) const {
  return CompactQuery::BoundQuery(*this, internal::CurrentKernel(), internal::HashKeyTiered(key, seed_));
}

// The bound batch prefetches each chunk of up to CompactQuery::kBatch (a
// MultiGet batch is at most 32 keys) before its first answer.
//   simple form: for each i: out[i] = MayContainHash(hashes[i])
void CompactFilterReader::MayContainHashBatch(std::span<const uint64_t> hashes, std::span<bool> out) const {
  CompactQuery::BoundBatch(*this, internal::CurrentKernel(), hashes.data(), hashes.size(), out.data());
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
