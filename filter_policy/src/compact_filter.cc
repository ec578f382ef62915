// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// CompactFilterBuilder and CompactFilterReader::Parse (compact_filter.h).

#include "linebloom/compact_filter.h"

#include "compact_build.h"
#include "compact_layout.h"
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
    case internal::kFormatVersionCompact: return FilterKind::kCompact;
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

size_t CompactFilterBuilder::EstimatedSize() const {
  if (hashes_.empty()) return kFilterTrailerBytes;
  CompactShape shape = CompactShapeFor(options_.bits_per_key, hashes_.size());
  CompactEstimate e = EstimateCompact(shape, hashes_.size());
  size_t first = CompactFirstLayerLines(hashes_.size(), shape.keys_per_line);
  size_t rest =
      CompactFirstLayerLines(static_cast<size_t>(e.bumped_key_share * hashes_.size()) + 1, shape.keys_per_line);
  return 64 * (first + rest) + 8 + kFilterTrailerBytes;
}

std::string CompactFilterBuilder::Finish() {
  fallback_reason_.clear();
  std::string out;
  if (hashes_.empty()) {
    internal::compact::BuildCompactFilter({}, CompactShapeFor(options_.bits_per_key, 0), options_.seed,
                                          internal::compact::kMaxLayers, &out);
    return out;
  }
  CompactShape shape = CompactShapeFor(options_.bits_per_key, hashes_.size());
  if (!internal::compact::BuildCompactFilter(hashes_, shape, options_.seed, max_layers_, &out)) {
    fallback_reason_ = "compact filter: keys still bumped after the last layer; wrote a Bloom filter";
    FilterOptions bloom = options_;
    bloom.num_probes = 0;
    FilterBuilder builder(bloom);
    builder.AddDistinctHashes(hashes_);
    out = builder.Finish();
  }
  hashes_.clear();
  return out;
}

ParseResult CompactFilterReader::Parse(std::string_view bytes, CompactFilterReader* reader,
                                       const ParseOptions& options) {
  namespace c = internal::compact;
  auto fail = [](ParseError e) { return ParseResult{e}; };
  if (bytes.size() < kFilterTrailerBytes) return fail(ParseError::kTooShort);
  if (!internal::HasMagic(bytes)) return fail(ParseError::kBadMagic);
  const internal::Trailer t = internal::DecodeTrailer(bytes);
  if (t.version != internal::kFormatVersionCompact) return fail(ParseError::kUnsupportedVersion);
  if (t.hash_scheme != internal::kHashSchemeCompact) return fail(ParseError::kBadHashScheme);
  if (t.num_probes < c::kMinFingerprintBits || t.num_probes > c::kMaxFingerprintBits) {
    return fail(ParseError::kBadFingerprintBits);
  }
  const size_t layers = t.lead_bytes;
  if (layers > static_cast<size_t>(c::kMaxLayers)) return fail(ParseError::kBadLayers);
  const size_t table = 4 * layers;
  if (bytes.size() < kFilterTrailerBytes + table) return fail(ParseError::kBadSize);
  const char* table_start = bytes.data() + bytes.size() - kFilterTrailerBytes - table;
  uint64_t total_lines = 0;
  for (size_t i = 0; i < layers; ++i) {
    uint32_t lines = DecodeFixed32(table_start + 4 * i);
    if (lines == 0) return fail(ParseError::kBadLayers);
    total_lines += lines;
  }
  if (total_lines * 64 != bytes.size() - kFilterTrailerBytes - table) return fail(ParseError::kBadSize);
  if (options.verify_checksum && internal::StoredChecksum(bytes) != internal::ComputeChecksum(bytes)) {
    return fail(ParseError::kChecksumMismatch);
  }
  const unsigned char* data = reinterpret_cast<const unsigned char*>(bytes.data());
  for (size_t i = 0; i < layers; ++i) {
    uint32_t lines = DecodeFixed32(table_start + 4 * i);
    reader->layers_[i] = {data, lines};
    data += size_t{64} * lines;
  }
  reader->num_layers_ = static_cast<int>(layers);
  reader->fingerprint_bits_ = t.num_probes;
  reader->columns_[0] = c::ColumnsFor(t.num_probes);
  reader->columns_[1] = c::ColumnsFor(t.num_probes + 1);
  for (int extra = 0; extra < 2; ++extra) {
    const c::Bits128 mask = c::LowMask(reader->columns_[extra]);
    reader->row_mask_[extra][0] = mask.lo;
    reader->row_mask_[extra][1] = mask.hi;
  }
  reader->seed_ = t.seed;
  reader->use_avx512_ = internal::compact::CompactAvx512Supported();
  return {};
}

}  // namespace linebloom
