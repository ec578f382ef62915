// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// The compact filter: a static filter for a known set of keys that costs
// about the memory of a Ribbon filter at the same false-positive rate and
// answers most queries from one 64-byte line, like the blocked Bloom
// filter. Each line stores its keys' fingerprints as the solution of a
// small linear system; keys a line cannot hold go to a much smaller next
// layer of the same kind (design and math in compact_layout.h and
// compact_math.h, bytes in docs/FORMAT.md). Use it where memory matters
// more than build time, such as the last level of an LSM tree; the Bloom
// filter (filter_builder.h) stays the default.

#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "linebloom/compact_hashes.h"
#include "linebloom/compact_math.h"
#include "linebloom/filter_kind.h"
#include "linebloom/filter_options.h"
#include "linebloom/filter_reader.h"

namespace linebloom {

namespace internal::compact {
struct LineForms;
}  // namespace internal::compact

// Which kind of linebloom filter a byte string holds, from its trailer
// alone (no validation): kBloom for format versions 1 and 2, kCompact for
// versions 3 to 8, kUnknown otherwise.
FilterKind DetectFilterKind(std::string_view bytes);

class CompactFilterBuilder {
 public:
  // options.bits_per_key (clamped to [kMinCompactBitsPerKey,
  // kMaxCompactBitsPerKey]) and options.seed; num_probes is not used.
  explicit CompactFilterBuilder(const FilterOptions& options = {});

  // As FilterBuilder: an adjacent repeat of the previous key (or hash) is
  // ignored.
  void AddKey(std::string_view key);
  void AddHash(uint64_t hash);
  // AddHash of each, for an adapter that hashes keys itself, drops repeats
  // itself and hands hashes over in batches: no hash may equal the one
  // added just before it (each counts as a key). Cheaper per key than
  // AddHash.
  void AddDistinctHashes(std::span<const uint64_t> hashes) { hashes_.Append(hashes); }
  void SetBitsPerKey(double bits_per_key);
  size_t NumKeys() const { return hashes_.size(); }
  // Makes the filters this builder finishes start with `lead_bytes` zero
  // bytes (at most kMaxLeadBytes) before their first line, as
  // FilterBuilder::SetLeadBytes does for the Bloom filter: a filter read
  // into memory that starts 64 - lead_bytes bytes past a 64-byte boundary
  // then has every line on one cache line. A filter with lead bytes is
  // format version 4, which readers from before it reject; with none it is
  // version 3, as is a filter of no keys (it has no line to align). A
  // fallback Bloom filter gets the same lead (format version 2). Throws
  // std::invalid_argument beyond kMaxLeadBytes. (Filters whose lines have
  // more than one extra plane are versions 5 and 6 instead: below.)
  void SetLeadBytes(size_t lead_bytes);
  size_t lead_bytes() const { return lead_bytes_; }
  // The most planes a line gets above the filter's r when its keys leave
  // room (kCompactExtraPlanes, the default: up to 4, as r allows; format
  // versions 5 and 6). kCompactExtraPlanesVersion3 (1) writes filters of
  // versions 3 and 4, which readers from before version 5 read, at a
  // higher false-positive rate between the efficient settings
  // (docs/COMPACT.md). Clamped to 1..4.
  void SetExtraPlanes(int extra_planes);
  int extra_planes() const { return extra_planes_; }
  // Whether a filter may mix lines of r - 1 and r planes in its first layer
  // (true, the default: format versions 7 and 8, where that gives a lower
  // false-positive rate for the bits, as between the efficient settings;
  // compact_math.h). False writes versions 3 to 6 only, which readers from
  // before version 7 read. Mixed filters need extra planes (more than 1).
  void SetMixed(bool mixed) { mixed_ = mixed; }
  bool mixed() const { return mixed_; }

  // The filter's size in bytes as the model expects it for the keys added
  // so far (the bumped keys make the exact size known only at Finish).
  size_t EstimatedSize() const;
  // Builds the filter and resets the builder. Never fails: if the lines
  // cannot hold the keys within kMaxLayers layers (which the model puts
  // far below one in 10^9 builds), the result is a Bloom filter of the same
  // bits per key, and fallback_reason() says so.
  std::string Finish();
  // As Finish, into a new[] buffer whose first *size bytes are the filter
  // (it may hold a little more): the bytes are written once, where a caller
  // that takes over a new[] buffer (RocksDB) wants them.
  std::unique_ptr<char[]> FinishBuffer(size_t* size);
  // With `keep`, each Finish leaves the hashes it built from (one per key
  // added, adjacent repeats dropped, in another order) in finished_hashes()
  // until the next Finish or ReleaseFinishedHashes: a caller that checks
  // the filter against its keys needs no second copy of them.
  void KeepFinishedHashes(bool keep) { keep_finished_ = keep; }
  const CompactHashes& finished_hashes() const { return finished_; }
  void ReleaseFinishedHashes() { finished_.Clear(); }
  // Why the last Finish wrote a Bloom filter; empty when it did not.
  const std::string& fallback_reason() const { return fallback_reason_; }

  const FilterOptions& options() const { return options_; }
  // Test hook: the layers a build may use before it falls back.
  void TEST_SetMaxLayers(int max_layers) { max_layers_ = max_layers; }

 private:
  void ResetHashes();

  FilterOptions options_;
  size_t lead_bytes_ = 0;
  int extra_planes_ = kCompactExtraPlanes;
  bool mixed_ = true;
  int max_layers_ = 8;
  CompactHashes hashes_;
  bool keep_finished_ = false;
  CompactHashes finished_;
  std::string fallback_reason_;
};

// A non-owning view of a compact filter. Queries never allocate and never
// write, so one reader may be shared by any number of threads.
class CompactFilterReader {
 public:
  // An empty reader: answers "no" to every query.
  CompactFilterReader() = default;

  // Validates `bytes` (docs/FORMAT.md, section "Compact filter"; format
  // versions 3 to 8) and points `*reader` at them; the bytes must outlive
  // the reader. On failure `*reader` is unchanged.
  static ParseResult Parse(std::string_view bytes, CompactFilterReader* reader, const ParseOptions& options = {});

  // False only if `key` was certainly never added.
  bool MayContain(std::string_view key) const;
  bool MayContainHash(uint64_t hash) const;
  // Batched queries: hashes the keys and prefetches each one's first-layer
  // line, then answers, so the cache misses overlap. out[i] answers
  // keys[i] (hashes[i]); sizes must match.
  void MayContainBatch(std::span<const std::string_view> keys, std::span<bool> out) const;
  void MayContainHashBatch(std::span<const uint64_t> hashes, std::span<bool> out) const;

  int fingerprint_bits() const { return fingerprint_bits_; }
  int num_layers() const { return num_layers_; }
  // Lines of layer `layer` (0 <= layer < num_layers()).
  uint32_t num_lines(int layer) const { return layers_[layer].lines; }
  uint32_t seed() const { return seed_; }

 private:
  friend struct CompactQuery;
  struct Layer {
    const unsigned char* data = nullptr;
    uint32_t lines = 0;
  };
  static constexpr int kMaxLayers = 8;
  // What a first-layer query reads comes first, 56 bytes: with a vtable
  // pointer before them (the RocksDB plugin's readers, aligned to a cache
  // line), one cache line.
  uint32_t seed_ = 0;
  int fingerprint_bits_ = 0;
  // Where a key's first-layer line is: a key whose hash's low 32 bits are
  // below low_threshold_ (none where the filter is not mixed) at its line
  // among the low_lines_ of layer 0, any other among the high_lines_ after
  // them, from high_data_ (kept: a query selects it, not computes it).
  uint32_t low_threshold_ = 0;
  uint32_t low_lines_ = 0;
  uint32_t high_lines_ = 0;
  int num_layers_ = 0;           // 0: no key
  bool one_extra_plane_ = true;  // every form 4..7 has r + 1 planes, none is low
  bool wide_rows_ = false;       // some line's rows have more than 64 columns
  bool use_avx512_ = false;      // the CPU has the compact AVX-512 form
  bool use_avx2_ = false;        // the CPU has the compact AVX2 form
  bool use_vpclmul_ = false;     // and VPCLMULQDQ, which that form then uses
  const unsigned char* high_data_ = nullptr;
  // The planes, columns and row mask of a line by its form (section and
  // metadata byte), so that a query finds them without a branch on the
  // line: the table of this kind of filter (compact_line_forms.h).
  const internal::compact::LineForms* forms_ = nullptr;
  // layers_[0].data (a mixed filter's low section starts there) ends the
  // first 56 bytes.
  Layer layers_[kMaxLayers];
};

}  // namespace linebloom
