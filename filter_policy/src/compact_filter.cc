// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// CompactFilterBuilder and CompactFilterReader::Parse (compact_filter.h).

#include "linebloom/compact_filter.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <utility>

#include "compact_build.h"
#include "compact_layout.h"
#include "compact_line_forms.h"
#include "compact_planes.h"
#include "key_hash.h"
#include "linebloom/filter_builder.h"
#include "linebloom/foundation/coding.h"
#include "trailer.h"

namespace linebloom {

FilterKind DetectFilterKind(std::string_view bytes) {
  if (bytes.size() < kFilterTrailerBytes || !internal::HasMagic(bytes)) return FilterKind::kUnknown;
  switch (internal::DecodeTrailer(bytes).version) {
    case internal::kFormatVersion:
    case internal::kFormatVersionWithLead: return FilterKind::kBloom;
    case internal::kFormatVersionCompact:
    case internal::kFormatVersionCompactWithLead:
    case internal::kFormatVersionCompactPlanes:
    case internal::kFormatVersionCompactPlanesWithLead:
    case internal::kFormatVersionCompactMixed:
    case internal::kFormatVersionCompactMixedWithLead: return FilterKind::kCompact;
    default: return FilterKind::kUnknown;
  }
}

CompactFilterBuilder::CompactFilterBuilder(const FilterOptions& options) : options_(options) {}

void CompactFilterBuilder::AddKey(std::string_view key) { AddHash(internal::HashKeyTiered(key, options_.seed)); }

void CompactFilterBuilder::AddHash(uint64_t hash) {
  if (!hashes_.empty() && hashes_.back() == hash) return;
  hashes_.push_back(hash);
}

void CompactFilterBuilder::SetBitsPerKey(double bits_per_key) { options_.bits_per_key = bits_per_key; }

void CompactFilterBuilder::SetExtraPlanes(int extra_planes) {
  extra_planes_ = std::clamp(extra_planes, 1, kCompactExtraPlanes);
}

void CompactFilterBuilder::SetLeadBytes(size_t lead_bytes) {
  if (lead_bytes > kMaxLeadBytes) throw std::invalid_argument("CompactFilterBuilder: more than 63 lead bytes");
  lead_bytes_ = lead_bytes;
}

size_t CompactFilterBuilder::EstimatedSize() const {
  if (hashes_.empty()) return kFilterTrailerBytes;
  const size_t n = hashes_.size();
  CompactShape shape = CompactShapeFor(options_.bits_per_key, n, extra_planes_, mixed_);
  CompactEstimate e = EstimateCompact(shape, n);
  const auto low_keys = static_cast<size_t>(shape.low_share * static_cast<double>(n));
  size_t first = CompactFirstLayerLines(n - low_keys, shape.keys_per_line);
  if (shape.low_share > 0) first += CompactLowSectionLines(low_keys, shape.low_keys_per_line);
  size_t rest = CompactFirstLayerLines(static_cast<size_t>(e.bumped_key_share * n) + 1, shape.keys_per_line);
  return lead_bytes_ + 64 * (first + rest) + 16 + kFilterTrailerBytes;
}

namespace {

class StringSink final : public internal::compact::FilterSink {
 public:
  explicit StringSink(std::string* out) : out_(*out) {}
  size_t size() const override { return out_.size(); }
  void Reserve(size_t bytes) override { out_.reserve(bytes); }
  char* Resize(size_t bytes) override {
    out_.resize(bytes);
    return out_.data();
  }

 private:
  std::string& out_;
};

// A new[] buffer that grows (with a copy) only beyond its reservation.
class BufferSink final : public internal::compact::FilterSink {
 public:
  size_t size() const override { return size_; }
  void Reserve(size_t bytes) override {
    if (bytes <= capacity_) return;
    std::unique_ptr<char[]> bigger(new char[bytes]);
    if (size_ > 0) std::memcpy(bigger.get(), data_.get(), size_);
    data_ = std::move(bigger);
    capacity_ = bytes;
  }
  char* Resize(size_t bytes) override {
    if (bytes > capacity_) Reserve(std::max(bytes, capacity_ + capacity_ / 8));
    size_ = bytes;
    return data_.get();
  }
  std::unique_ptr<char[]> Release() { return std::move(data_); }

 private:
  std::unique_ptr<char[]> data_;
  size_t size_ = 0;
  size_t capacity_ = 0;
};

// The compact filter of `hashes`, or the Bloom filter of the same bits per
// key if the layers run out; `*fallback_reason` says which. Either gets
// `lead_bytes`, unless there are no keys.
void BuildInto(CompactHashes& hashes, const FilterOptions& options, int extra_planes, bool mixed, int max_layers,
               size_t lead_bytes, internal::compact::FilterSink* out, std::string* fallback_reason) {
  fallback_reason->clear();
  const CompactShape shape = CompactShapeFor(options.bits_per_key, hashes.size(), extra_planes, mixed);
  if (hashes.empty()) {
    max_layers = internal::compact::kMaxLayers;
    lead_bytes = 0;
  }
  if (internal::compact::BuildCompactFilter(hashes, shape, options.seed, max_layers, lead_bytes, out)) return;
  *fallback_reason = "compact filter: keys still bumped after the last layer; wrote a Bloom filter";
  FilterOptions bloom = options;
  bloom.num_probes = 0;
  // The compact filter's hashes are XXH3 of every key: hash scheme 1's.
  bloom.hash_scheme = KeyHashScheme::kXxh3;
  FilterBuilder builder(bloom);
  builder.SetLeadBytes(lead_bytes);
  // Every hash counts as a key, as in the compact filter: the build's order
  // may have made two repeats of a key adjacent, which the order they were
  // added in did not.
  hashes.ForEachSpan([&](std::span<const uint64_t> span) { builder.AddDistinctHashes(span); });
  const std::string bytes = builder.Finish();
  std::memcpy(out->Resize(bytes.size()), bytes.data(), bytes.size());
}

}  // namespace

void CompactFilterBuilder::ResetHashes() {
  if (keep_finished_) finished_ = std::move(hashes_);
  hashes_.Clear();
}

std::string CompactFilterBuilder::Finish() {
  std::string out;
  StringSink sink(&out);
  BuildInto(hashes_, options_, extra_planes_, mixed_, max_layers_, lead_bytes_, &sink, &fallback_reason_);
  ResetHashes();
  return out;
}

std::unique_ptr<char[]> CompactFilterBuilder::FinishBuffer(size_t* size) {
  BufferSink sink;
  BuildInto(hashes_, options_, extra_planes_, mixed_, max_layers_, lead_bytes_, &sink, &fallback_reason_);
  ResetHashes();
  *size = sink.size();
  return sink.Release();
}

namespace {

namespace c = internal::compact;

// A mixed filter's sections (the 8 bytes before the layer table at
// `table_start`), or none; false if they are not valid: layer 0 must have
// lines of both, and r - 1 planes must be a valid r.
bool ReadSections(const char* table_start, size_t layers, int r, bool mixed, c::Sections* out) {
  c::Sections s;
  if (layers > 0) s.high_lines = DecodeFixed32(table_start);
  if (mixed) {
    s.low_lines = DecodeFixed32(table_start - 8);
    s.low_threshold = DecodeFixed32(table_start - 4);
    if (layers == 0 || r - 1 < c::kMinFingerprintBits || s.low_threshold == 0 || s.low_lines == 0 ||
        s.low_lines >= s.high_lines) {
      return false;
    }
    s.high_lines -= s.low_lines;
  }
  *out = s;
  return true;
}

}  // namespace

ParseResult CompactFilterReader::Parse(std::string_view bytes, CompactFilterReader* reader,
                                       const ParseOptions& options) {
  auto fail = [](ParseError e) { return ParseResult{e}; };
  if (bytes.size() < kFilterTrailerBytes) return fail(ParseError::kTooShort);
  if (!internal::HasMagic(bytes)) return fail(ParseError::kBadMagic);
  const internal::Trailer t = internal::DecodeTrailer(bytes);
  const bool mixed =
      t.version == internal::kFormatVersionCompactMixed || t.version == internal::kFormatVersionCompactMixedWithLead;
  const bool has_lead = t.version == internal::kFormatVersionCompactWithLead ||
                        t.version == internal::kFormatVersionCompactPlanesWithLead ||
                        t.version == internal::kFormatVersionCompactMixedWithLead;
  const bool many_planes = mixed || t.version == internal::kFormatVersionCompactPlanes ||
                           t.version == internal::kFormatVersionCompactPlanesWithLead;
  if (t.version != internal::kFormatVersionCompact && t.version != internal::kFormatVersionCompactPlanes &&
      t.version != internal::kFormatVersionCompactMixed && !has_lead) {
    return fail(ParseError::kUnsupportedVersion);
  }
  if (t.hash_scheme != internal::kHashSchemeCompact) return fail(ParseError::kBadHashScheme);
  if (t.num_probes < c::kMinFingerprintBits || t.num_probes > c::kMaxFingerprintBits) {
    return fail(ParseError::kBadFingerprintBits);
  }
  const size_t layers = t.lead_bytes;
  if (layers > static_cast<size_t>(c::kMaxLayers)) return fail(ParseError::kBadLayers);
  // A mixed filter's sections (8 bytes) come before its layer table.
  const size_t table = 4 * layers + (mixed ? 8 : 0);
  if (bytes.size() < kFilterTrailerBytes + table) return fail(ParseError::kBadSize);
  const char* table_start = bytes.data() + bytes.size() - kFilterTrailerBytes - 4 * layers;
  uint64_t total_lines = 0;
  for (size_t i = 0; i < layers; ++i) {
    uint32_t lines = DecodeFixed32(table_start + 4 * i);
    if (lines == 0) return fail(ParseError::kBadLayers);
    total_lines += lines;
  }
  c::Sections sections;
  if (!ReadSections(table_start, layers, t.num_probes, mixed, &sections)) return fail(ParseError::kBadLayers);
  // The lines end where the table starts; what is before them is the lead
  // (at most 8 (2^32 - 1) lines: 64 times that fits in 64 bits).
  const uint64_t after_lead = total_lines * 64 + table + kFilterTrailerBytes;
  if (bytes.size() < after_lead) return fail(ParseError::kBadSize);
  const size_t lead = bytes.size() - after_lead;
  if (lead != 0 && !has_lead) return fail(ParseError::kBadSize);
  if (lead > kMaxLeadBytes) return fail(ParseError::kBadLeadBytes);
  if (options.verify_checksum && internal::StoredChecksum(bytes) != internal::ComputeChecksum(bytes)) {
    return fail(ParseError::kChecksumMismatch);
  }
  const unsigned char* data = reinterpret_cast<const unsigned char*>(bytes.data()) + lead;
  for (size_t i = 0; i < layers; ++i) {
    uint32_t lines = DecodeFixed32(table_start + 4 * i);
    reader->layers_[i] = {data, lines};
    data += size_t{64} * lines;
  }
  reader->num_layers_ = static_cast<int>(layers);
  reader->fingerprint_bits_ = t.num_probes;
  reader->low_threshold_ = sections.low_threshold;
  reader->low_lines_ = sections.low_lines;
  reader->high_lines_ = sections.high_lines;
  reader->high_data_ = layers > 0 ? reader->layers_[0].data + size_t{64} * sections.low_lines : nullptr;
  const int low_r = mixed ? t.num_probes - 1 : t.num_probes;
  reader->wide_rows_ = c::ColumnsFor(low_r) > 64;
  reader->one_extra_plane_ = !mixed && (!many_planes || c::MaxExtraPlanes(t.num_probes) == 1);
  reader->forms_ = c::LineFormsFor(t.num_probes, mixed, many_planes);
  reader->seed_ = t.seed;
  reader->use_avx512_ = internal::compact::CompactAvx512Supported();
  reader->use_avx2_ = internal::compact::CompactAvx2Supported();
  reader->use_vpclmul_ = internal::compact::CompactVpclmulSupported();
  return {};
}

}  // namespace linebloom
