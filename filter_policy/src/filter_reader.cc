// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.

#include "linebloom/filter_reader.h"

#include <algorithm>
#include <cassert>

#include "block_probe.h"
#include "key_hash.h"
#include "linebloom/filter_options.h"
#include "trailer.h"

namespace linebloom {

using internal::kBlockBytes;
using internal::kTrailerBytes;

const char* ParseErrorMessage(ParseError error) {
  switch (error) {
    case ParseError::kOk: return "ok";
    case ParseError::kTooShort: return "filter shorter than its 16-byte trailer";
    case ParseError::kBadMagic: return "bad magic: not a linebloom filter";
    case ParseError::kUnsupportedVersion: return "unsupported linebloom format version";
    case ParseError::kBadProbes: return "number of probes out of range";
    case ParseError::kBadHashScheme: return "unknown hash scheme";
    case ParseError::kBadReservedField: return "reserved trailer field is not zero";
    case ParseError::kBadSize: return "filter body is not a whole number of 64-byte blocks";
    case ParseError::kTooManyBlocks: return "more than 2^32-1 blocks";
    case ParseError::kChecksumMismatch: return "checksum mismatch: filter is corrupt";
  }
  return "unknown parse error";
}

ParseResult FilterReader::Parse(std::string_view bytes, FilterReader* reader,
                                const ParseOptions& options) {
  auto fail = [](ParseError e) { return ParseResult{e}; };
  if (bytes.size() < kTrailerBytes) return fail(ParseError::kTooShort);
  if (!internal::HasMagic(bytes)) return fail(ParseError::kBadMagic);
  // The version is checked before any other field: a future version may
  // give every other byte a new meaning.
  const internal::Trailer t = internal::DecodeTrailer(bytes);
  if (t.version != internal::kFormatVersion) return fail(ParseError::kUnsupportedVersion);
  if (t.hash_scheme != internal::kHashSchemeXxh3Fastrange) return fail(ParseError::kBadHashScheme);
  if (t.num_probes < kMinProbes || t.num_probes > kMaxProbes) return fail(ParseError::kBadProbes);
  if (t.reserved != 0) return fail(ParseError::kBadReservedField);
  const size_t body = bytes.size() - kTrailerBytes;
  if (body % kBlockBytes != 0) return fail(ParseError::kBadSize);
  if (body / kBlockBytes > 0xFFFFFFFFu) return fail(ParseError::kTooManyBlocks);
  if (options.verify_checksum && internal::StoredChecksum(bytes) != internal::ComputeChecksum(bytes)) {
    return fail(ParseError::kChecksumMismatch);
  }
  reader->blocks_ = reinterpret_cast<const unsigned char*>(bytes.data());
  reader->num_blocks_ = body / kBlockBytes;
  reader->num_probes_ = t.num_probes;
  reader->seed_ = t.seed;
  return {};
}

bool FilterReader::MayContainHash(uint64_t hash) const {
  if (num_blocks_ == 0) return false;
  const unsigned char* block = blocks_ + internal::BlockIndex(hash, num_blocks_) * kBlockBytes;
  return internal::AllProbesSet(block, internal::ProbeState(hash), num_probes_);
}

bool FilterReader::MayContain(std::string_view key) const {
  return MayContainHash(internal::HashKey(key, seed_));
}

// Batches are processed in chunks of kChunk: compute and prefetch every block
// of the chunk, then probe them, so up to kChunk cache misses overlap.
static constexpr size_t kChunk = 32;

void FilterReader::MayContainHashBatch(std::span<const uint64_t> hashes,
                                       std::span<bool> out) const {
  assert(hashes.size() == out.size());
  if (num_blocks_ == 0) {
    std::fill(out.begin(), out.end(), false);
    return;
  }
  const unsigned char* blocks[kChunk];
  for (size_t start = 0; start < hashes.size(); start += kChunk) {
    const size_t n = std::min(kChunk, hashes.size() - start);
    for (size_t i = 0; i < n; ++i) {
      blocks[i] = blocks_ + internal::BlockIndex(hashes[start + i], num_blocks_) * kBlockBytes;
      internal::Prefetch(blocks[i]);
    }
    for (size_t i = 0; i < n; ++i) {
      out[start + i] = internal::AllProbesSet(blocks[i], internal::ProbeState(hashes[start + i]), num_probes_);
    }
  }
}

void FilterReader::MayContainBatch(std::span<const std::string_view> keys,
                                   std::span<bool> out) const {
  assert(keys.size() == out.size());
  uint64_t hashes[kChunk];
  for (size_t start = 0; start < keys.size(); start += kChunk) {
    const size_t n = std::min(kChunk, keys.size() - start);
    for (size_t i = 0; i < n; ++i) hashes[i] = internal::HashKey(keys[start + i], seed_);
    MayContainHashBatch(std::span<const uint64_t>(hashes, n), out.subspan(start, n));
  }
}

}  // namespace linebloom
