// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// The compact filter's query (compact_layout.h), inline in three forms of
// the line's answer (compact_planes.h), so that a caller bound to one form (the
// RocksDB plugin's readers) compiles hashing and answering into one
// function; the API (compact_query.cc) picks the form per query from the
// process-wide kernel. Internal header.
//
// The common path is straight-line: the first layer's line holds the key
// (for all but about 4 % of absent keys), and the keys it bumped go on to
// the next layers in a function of their own. The key's code (the two
// mixes of its hash) does not depend on the line, so it overlaps the
// line's cache miss; the line's metadata byte then picks the plane count
// and the row mask.

#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "compact_avalanche.h"
#include "compact_layout.h"
#include "compact_line_forms.h"
#include "compact_planes.h"
#include "linebloom/compact_filter.h"

namespace linebloom {

struct CompactQuery {
  // What a first-layer query reads ends with layers_[0].data, within the
  // reader's first 56 bytes (compact_filter.h).
  static_assert(std::is_standard_layout_v<CompactFilterReader>);
  static_assert(offsetof(CompactFilterReader, layers_) + sizeof(const unsigned char*) <= 56);

  // A key's line in the first layer, its order there, and the first of
  // its section's forms (8 for a mixed filter's low section, else 0).
  struct Located {
    const unsigned char* line;
    uint32_t order;
    unsigned forms;
  };
  // kMixed: the filter is mixed (its low_threshold_ is not 0); callers
  // branch on that once per query or batch, a branch on the filter, so that
  // other filters pay nothing for the sections. A mixed filter's line is
  // the builder's (FirstLayerSlotOf), its address selected from each
  // section's start by masks, not a branch (keys go to either at random),
  // so that the line offset's add is not on the way to the load.
  //   simple form: slot = FirstLayerSlotOf(hash, {low_threshold_,
  //   low_lines_, high_lines_}); line = layer 0 + 64 slot.line; forms =
  //   InLowSection ? 8 : 0
  // A filter that is not mixed is all high section (high_data_ and
  // high_lines_ are layer 0's), which keeps the query within the reader's
  // first 56 bytes (compact_filter.h).
  template <bool kMixed>
  __attribute__((always_inline)) static Located LocateFirst(const CompactFilterReader& r, uint64_t hash) {
    if (!kMixed) {
      const internal::compact::Slot slot = internal::compact::SlotOf(hash, r.high_lines_);
      return {r.high_data_ + size_t{64} * slot.line, slot.order, 0};
    }
    const uint64_t low = uint64_t{0} - (static_cast<uint32_t>(hash) < r.low_threshold_);
    const uint32_t lines = r.high_lines_ ^ ((r.high_lines_ ^ r.low_lines_) & static_cast<uint32_t>(low));
    const auto high = reinterpret_cast<uintptr_t>(r.high_data_);
    const uintptr_t data = high ^ ((high ^ reinterpret_cast<uintptr_t>(r.layers_[0].data)) & low);
    const internal::compact::Slot slot = internal::compact::SlotOf(hash, lines);
    return {reinterpret_cast<const unsigned char*>(data) + size_t{64} * slot.line, slot.order,
            static_cast<unsigned>(low & 8)};
  }
  // The key's line and order in `layer` (any layer of a filter that is not
  // mixed, or layer 1 on).
  __attribute__((always_inline)) static Located LocateIn(const CompactFilterReader& r, int layer, uint64_t hash) {
    namespace c = internal::compact;
    const c::Slot slot = c::SlotOf(c::LayerHash(hash, layer), r.layers_[layer].lines);
    return {r.layers_[layer].data + size_t{64} * slot.line, slot.order, 0};
  }
  // Whether the line answers the key (the key's order is below its
  // threshold; a line of extra planes, metadata byte >= 128, answers every
  // order) rather than having bumped it.
  static bool Holds(const Located& at) { return at.order < at.line[internal::compact::kMetaByte]; }

  // The line of a later layer that answers a key its first-layer line
  // bumped; nullptr if every layer bumped it, which a builder never writes:
  // a damaged filter may match, and the forms' Bumped answer "may match".
  static const unsigned char* FindBumpedLine(const CompactFilterReader& r, uint64_t hash) {
    for (int layer = 1; layer < r.num_layers_; ++layer) {
      const Located at = LocateIn(r, layer, hash);
      if (Holds(at)) return at.line;
    }
    return nullptr;
  }

  // What every form answers with: the line's plane count (its section's r,
  // or r + e as its metadata byte says), its columns, and the key's row
  // masked to them. `forms`: Located::forms.
  struct LineQuery {
    int planes;
    int columns;
    internal::compact::Bits128 row;
  };
  __attribute__((always_inline)) static LineQuery LineQueryOf(const CompactFilterReader& r, const unsigned char* line,
                                                              unsigned forms, const internal::compact::KeyCode& code) {
    namespace c = internal::compact;
    const unsigned meta = line[c::kMetaByte];
    // A filter whose lines have one extra plane at most (versions 3 and 4,
    // or r with E(r) = 1) takes the plane count in arithmetic: it heads the
    // chain to the line's plane layout. The branch depends on the filter.
    const c::LineForms& f = *r.forms_;
    if (r.one_extra_plane_) {
      const unsigned extra = meta >> 7;
      return {r.fingerprint_bits_ + static_cast<int>(extra), f.columns[4 * extra],
              c::RowOf(code, c::Bits128{f.mask[4 * extra][0], f.mask[4 * extra][1]})};
    }
    const unsigned form = forms | ((meta >> 5) & 4) | (meta & 3);
    return {f.planes[form], f.columns[form], c::RowOf(code, c::Bits128{f.mask[form][0], f.mask[form][1]})};
  }

  // The query of a filter with at least one layer, with the line's answer
  // `Form` (PortableForm, Avx2Form, Avx512Form).
  template <class Form>
  __attribute__((always_inline)) static bool QueryLayered(const CompactFilterReader& r, uint64_t hash) {
    if (r.low_threshold_ == 0) return QueryLocated<Form, false>(r, hash);
    return QueryLocated<Form, true>(r, hash);
  }
  template <class Form, bool kMixed>
  __attribute__((always_inline)) static bool QueryLocated(const CompactFilterReader& r, uint64_t hash) {
    const Located at = LocateFirst<kMixed>(r, hash);
    const internal::compact::KeyCode code = internal::compact::CodeOf(hash);
    if (__builtin_expect(!Holds(at), 0)) return Form::Bumped(r, hash);
    return Form::Match(r, at.line, kMixed ? at.forms : 0u, code);
  }
  // An empty filter (no layer) holds nothing.
  template <class Form>
  __attribute__((always_inline)) static bool Query(const CompactFilterReader& r, uint64_t hash) {
    if (r.num_layers_ == 0) return false;
    return QueryLayered<Form>(r, hash);
  }

  // Up to kBatch keys: every first-layer line is located and prefetched,
  // the keys' codes are computed (they do not depend on the lines; the
  // AVX-512 form computes eight at once), then each key is answered from
  // its located line. The lines start on
  // cache lines where the filter's lead bytes (format version 4) fit the
  // memory it was read into, and each is one cache line, one prefetch;
  // where they do not (a version-3 filter in a buffer that is not 64-byte
  // aligned, such as RocksDB's new[] one), each line spans two cache lines,
  // and both are prefetched. The test is on layer 0's address, once per
  // batch (Parse has located the lines after the lead).
  //   simple form: for (i < n) out[i] = Query<Form>(r, hashes[i]);
  static constexpr size_t kBatch = 32;
  // The codes of a batch, by part.
  struct alignas(64) Codes {
    uint64_t row_lo[kBatch];
    uint64_t rest[kBatch];
    internal::compact::KeyCode operator[](size_t i) const { return {row_lo[i], rest[i]}; }
  };
  template <class Form>
  __attribute__((always_inline)) static void Batch(const CompactFilterReader& r, const uint64_t* hashes, size_t n,
                                                   bool* out) {
    if (r.num_layers_ == 0) return std::fill(out, out + n, false);
    if (r.low_threshold_ == 0) return BatchLocated<Form, false>(r, hashes, n, out);
    BatchLocated<Form, true>(r, hashes, n, out);
  }
  template <class Form, bool kMixed>
  __attribute__((always_inline)) static void BatchLocated(const CompactFilterReader& r, const uint64_t* hashes,
                                                          size_t n, bool* out) {
    const bool straddles = (reinterpret_cast<uintptr_t>(r.layers_[0].data) & 63) != 0;
    Located at[kBatch];
    for (size_t i = 0; i < n; ++i) {
      at[i] = LocateFirst<kMixed>(r, hashes[i]);
      __builtin_prefetch(at[i].line);
      if (straddles) __builtin_prefetch(at[i].line + 63);
    }
    Codes codes;
    Form::CodesOf(hashes, n, &codes);
    // The second layer's lines of the keys the first bumped (about 4 % of
    // them), prefetched before the first answer too: where the filter is
    // in memory they would otherwise be one miss after another.
    if (r.num_layers_ > 1) {
      for (size_t i = 0; i < n; ++i) {
        if (!Holds(at[i])) __builtin_prefetch(LocateIn(r, 1, hashes[i]).line);
      }
    }
    for (size_t i = 0; i < n; ++i) {
      out[i] =
          Holds(at[i]) ? Form::Match(r, at[i].line, kMixed ? at[i].forms : 0u, codes[i]) : Form::Bumped(r, hashes[i]);
    }
  }

  // The portable form: one plane at a time (AnswerPortableWindows).
  struct PortableForm {
    static void CodesOf(const uint64_t* hashes, size_t n, Codes* codes) {
      for (size_t i = 0; i < n; ++i) {
        const internal::compact::KeyCode code = internal::compact::CodeOf(hashes[i]);
        codes->row_lo[i] = code.row_lo;
        codes->rest[i] = code.rest;
      }
    }
    __attribute__((always_inline)) static bool Match(const CompactFilterReader& r, const unsigned char* line,
                                                     unsigned forms, const internal::compact::KeyCode& code) {
      namespace c = internal::compact;
      const LineQuery q = LineQueryOf(r, line, forms, code);
      // A branch on the filter alone: where no line's row has more than 64
      // columns, the planes' second words need no masking.
      const uint32_t answer = r.wide_rows_ ? c::AnswerPortableWindows(line, q.row, q.planes)
                                           : c::AnswerPortableWindows(line, c::Bits128{q.row.lo, 0}, q.planes);
      return answer == c::FingerprintOf(code, q.planes);
    }
    __attribute__((noinline)) static bool Bumped(const CompactFilterReader& r, uint64_t hash) {
      const unsigned char* line = FindBumpedLine(r, hash);
      return line == nullptr || Match(r, line, 0, internal::compact::CodeOf(hash));
    }
  };

#if defined(LINEBLOOM_COMPACT_AVX2)
  // The AVX2 form (AnswerAvx2ForFilter): the planes from one carry-less
  // product in the filter's fixed number of groups of eight, so nothing
  // branches on the line's plane count. The keys' codes as the portable
  // form computes them.
  struct Avx2Form : PortableForm {
    LINEBLOOM_COMPACT_AVX2 static bool Match(const CompactFilterReader& r, const unsigned char* line, unsigned forms,
                                             const internal::compact::KeyCode& code) {
      namespace c = internal::compact;
      const LineQuery q = LineQueryOf(r, line, forms, code);
      const uint32_t answer = c::AnswerAvx2ForFilter(line, q.row, r.fingerprint_bits_, r.wide_rows_, q.planes);
      return _bzhi_u32(answer ^ c::FingerprintOf(code, q.planes), static_cast<unsigned>(q.planes)) == 0;
    }
    LINEBLOOM_COMPACT_AVX2 __attribute__((noinline)) static bool Bumped(const CompactFilterReader& r, uint64_t hash) {
      const unsigned char* line = FindBumpedLine(r, hash);
      return line == nullptr || Match(r, line, 0, internal::compact::CodeOf(hash));
    }
  };
  // The AVX2 form where the CPU has VPCLMULQDQ (AnswerVpclmulForFilter).
  struct VpclmulForm : PortableForm {
    LINEBLOOM_COMPACT_VPCLMUL static bool Match(const CompactFilterReader& r, const unsigned char* line, unsigned forms,
                                                const internal::compact::KeyCode& code) {
      namespace c = internal::compact;
      const LineQuery q = LineQueryOf(r, line, forms, code);
      const uint32_t answer = c::AnswerVpclmulForFilter(line, q.row, r.fingerprint_bits_, r.wide_rows_, q.planes);
      return _bzhi_u32(answer ^ c::FingerprintOf(code, q.planes), static_cast<unsigned>(q.planes)) == 0;
    }
    LINEBLOOM_COMPACT_VPCLMUL __attribute__((noinline)) static bool Bumped(const CompactFilterReader& r,
                                                                           uint64_t hash) {
      const unsigned char* line = FindBumpedLine(r, hash);
      return line == nullptr || Match(r, line, 0, internal::compact::CodeOf(hash));
    }
  };
#endif

#if defined(LINEBLOOM_COMPACT_AVX512)
  // The AVX-512 form (AnswerAvx512ForFilter): the planes in the filter's
  // fixed number of groups of eight, so nothing branches on the line's
  // plane count.
  struct Avx512Form {
    // CodeOf of eight hashes at once (kBatch is a multiple of eight; lanes
    // past n are computed from zeros and not read).
    //   simple form: PortableForm::CodesOf
    LINEBLOOM_COMPACT_AVX512 static void CodesOf(const uint64_t* hashes, size_t n, Codes* codes) {
      static_assert(kBatch % 8 == 0);
      for (size_t i = 0; i < n; i += 8) {
        const __mmask8 live = n - i >= 8 ? __mmask8{0xFF} : static_cast<__mmask8>((1u << (n - i)) - 1);
        const internal::compact::KeyCodes8 code =
            internal::compact::CodesOf8(_mm512_maskz_loadu_epi64(live, hashes + i));
        _mm512_store_si512(codes->row_lo + i, code.row_lo);
        _mm512_store_si512(codes->rest + i, code.rest);
      }
    }
    LINEBLOOM_COMPACT_AVX512 static bool Match(const CompactFilterReader& r, const unsigned char* line, unsigned forms,
                                               const internal::compact::KeyCode& code) {
      namespace c = internal::compact;
      const LineQuery q = LineQueryOf(r, line, forms, code);
      const uint32_t answer = c::AnswerAvx512ForFilter(line, q.row, r.fingerprint_bits_, r.wide_rows_, q.planes);
      // answer == fingerprint in the low `planes` bits (BZHI clears the rest).
      return _bzhi_u32(answer ^ c::FingerprintOf(code, q.planes), static_cast<unsigned>(q.planes)) == 0;
    }
    LINEBLOOM_COMPACT_AVX512 __attribute__((noinline)) static bool Bumped(const CompactFilterReader& r, uint64_t hash) {
      const unsigned char* line = FindBumpedLine(r, hash);
      return line == nullptr || Match(r, line, 0, internal::compact::CodeOf(hash));
    }
  };
#endif
};

}  // namespace linebloom
