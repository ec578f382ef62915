// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.

#include "linebloom/filter_reader.h"

#include <algorithm>
#include <cassert>

#include "filter_query.h"
#include "kernel_state.h"
#include "key_hash.h"
#include "linebloom/filter_options.h"
#include "trailer.h"

namespace linebloom {

const char* ParseErrorMessage(ParseError error) {
  switch (error) {
    case ParseError::kOk: return "ok";
    case ParseError::kTooShort: return "filter shorter than its 16-byte trailer";
    case ParseError::kBadMagic: return "bad magic: not a linebloom filter";
    case ParseError::kUnsupportedVersion: return "unsupported linebloom format version";
    case ParseError::kBadProbes: return "number of probes out of range";
    case ParseError::kBadHashScheme: return "unknown hash scheme";
    case ParseError::kBadReservedField: return "reserved trailer field is not zero";
    case ParseError::kBadLeadBytes: return "more than 63 lead bytes before the first block";
    case ParseError::kBadSize: return "filter body is not a whole number of 64-byte blocks";
    case ParseError::kTooManyBlocks: return "more than 2^32-1 blocks";
    case ParseError::kChecksumMismatch: return "checksum mismatch: filter is corrupt";
    case ParseError::kBadFingerprintBits: return "compact filter: fingerprint bits out of range";
    case ParseError::kBadLayers: return "compact filter: bad layer table";
  }
  return "unknown parse error";
}

alignas(64) const unsigned char FilterReader::kEmptyBlock[64] = {};

ParseResult FilterReader::Parse(std::string_view bytes, FilterReader* reader, const ParseOptions& options) {
  auto fail = [](ParseError e) { return ParseResult{e}; };
  if (bytes.size() < kFilterTrailerBytes) return fail(ParseError::kTooShort);
  if (!internal::HasMagic(bytes)) return fail(ParseError::kBadMagic);
  // The version is checked before any other field: a future version may
  // give every other byte a new meaning.
  const internal::Trailer t = internal::DecodeTrailer(bytes);
  const bool has_lead = t.version == internal::kFormatVersionWithLead;
  if (t.version != internal::kFormatVersion && !has_lead) return fail(ParseError::kUnsupportedVersion);
  if (t.hash_scheme != internal::kHashSchemeXxh3Fastrange && t.hash_scheme != internal::kHashSchemeShortKeyMultiply) {
    return fail(ParseError::kBadHashScheme);
  }
  if (t.num_probes < kMinProbes || t.num_probes > kMaxProbes) return fail(ParseError::kBadProbes);
  if (!has_lead && t.lead_bytes != 0) return fail(ParseError::kBadReservedField);
  const size_t lead = t.lead_bytes;  // 0 in version 1
  if (lead > kMaxLeadBytes) return fail(ParseError::kBadLeadBytes);
  if (bytes.size() - kFilterTrailerBytes < lead) return fail(ParseError::kBadSize);
  const size_t body = bytes.size() - kFilterTrailerBytes - lead;
  if (body % kFilterBlockBytes != 0) return fail(ParseError::kBadSize);
  if (body / kFilterBlockBytes > kMaxFilterBlocks) return fail(ParseError::kTooManyBlocks);
  if (options.verify_checksum && internal::StoredChecksum(bytes) != internal::ComputeChecksum(bytes)) {
    return fail(ParseError::kChecksumMismatch);
  }
  reader->num_blocks_ = body / kFilterBlockBytes;
  reader->blocks_ =
      reader->num_blocks_ == 0 ? kEmptyBlock : reinterpret_cast<const unsigned char*>(bytes.data()) + lead;
  reader->num_probes_ = t.num_probes;
  reader->seed_ = t.seed;
  reader->hash_scheme_ = static_cast<KeyHashScheme>(t.hash_scheme);
  return {};
}

namespace {

using internal::PrefetchedChunk;

#if defined(__x86_64__)
// Out of line, so that MayContainHash is the kernel switch and one call.
__attribute__((target("avx2"), noinline)) bool MayContainHashAvx2(const unsigned char* blocks, size_t num_blocks,
                                                                  int num_probes, uint64_t hash) {
  return internal::QueryHash(blocks, num_blocks, num_probes, hash, internal::Avx2Probe{});
}

__attribute__((target("avx512f"), noinline)) bool MayContainHashAvx512(const unsigned char* blocks, size_t num_blocks,
                                                                       int num_probes, uint64_t hash) {
  return internal::QueryHash(blocks, num_blocks, num_probes, hash, internal::Avx512Probe{});
}
#endif

// Probes a staged chunk with the active kernel.
void ProbeChunkWithKernel(const PrefetchedChunk& chunk, size_t n, int num_probes, bool* out) {
#if defined(__x86_64__)
  switch (internal::CurrentKernel()) {
    case Kernel::kAvx512: return internal::ProbeChunkAvx512(chunk, n, num_probes, out);
    case Kernel::kAvx2: return internal::ProbeChunkAvx2(chunk, n, num_probes, out);
    case Kernel::kPortable: break;
  }
#endif
  internal::ProbeChunkPortable(chunk, n, num_probes, out);
}

}  // namespace

bool FilterReader::MayContainHash(uint64_t hash) const {
#if defined(__x86_64__)
  switch (internal::CurrentKernel()) {
    case Kernel::kAvx512: return MayContainHashAvx512(blocks_, num_blocks_, num_probes_, hash);
    case Kernel::kAvx2: return MayContainHashAvx2(blocks_, num_blocks_, num_probes_, hash);
    case Kernel::kPortable: break;
  }
#endif
  return internal::QueryHash(blocks_, num_blocks_, num_probes_, hash, internal::PortableProbe{});
}

bool FilterReader::MayContain(std::string_view key) const {
  // The scheme is tested after the kernel switch, so that each case is one
  // direct call, as with one scheme.
  constexpr KeyHashScheme kMultiply = KeyHashScheme::kShortKeyMultiply, kXxh3 = KeyHashScheme::kXxh3;
  const bool multiply = hash_scheme_ == kMultiply;
#if defined(__x86_64__)
  switch (internal::CurrentKernel()) {
    case Kernel::kAvx512:
      return multiply ? internal::MayContainKeyAvx512<kMultiply>(blocks_, num_blocks_, num_probes_, seed_, key)
                      : internal::MayContainKeyAvx512<kXxh3>(blocks_, num_blocks_, num_probes_, seed_, key);
    case Kernel::kAvx2:
      return multiply ? internal::MayContainKeyAvx2<kMultiply>(blocks_, num_blocks_, num_probes_, seed_, key)
                      : internal::MayContainKeyAvx2<kXxh3>(blocks_, num_blocks_, num_probes_, seed_, key);
    case Kernel::kPortable: break;
  }
#endif
  return multiply ? internal::MayContainKeyPortable<kMultiply>(blocks_, num_blocks_, num_probes_, seed_, key)
                  : internal::MayContainKeyPortable<kXxh3>(blocks_, num_blocks_, num_probes_, seed_, key);
}

void FilterReader::MayContainHashBatch(std::span<const uint64_t> hashes, std::span<bool> out) const {
  assert(hashes.size() == out.size());
  const int k = num_probes_;
  internal::QueryPipelined(
      blocks_, num_blocks_, hashes.size(), out.data(), [&](size_t i) { return hashes[i]; },
      [k](const PrefetchedChunk& chunk, size_t n, bool* o) { ProbeChunkWithKernel(chunk, n, k, o); });
}

void FilterReader::MayContainBatch(std::span<const std::string_view> keys, std::span<bool> out) const {
  assert(keys.size() == out.size());
  const int k = num_probes_;
  // The seed by value: read through `this` it would be reloaded for every
  // key, since the pipeline's stores might alias it.
  // One pipeline per scheme, the scheme a template argument of the hash.
  const auto run = [&]<KeyHashScheme kScheme>() {
    internal::QueryPipelined(
        blocks_, num_blocks_, keys.size(), out.data(),
        [keys, seed = seed_](size_t i) { return internal::HashKeyOf<kScheme>(keys[i], seed); },
        [k](const PrefetchedChunk& chunk, size_t n, bool* o) { ProbeChunkWithKernel(chunk, n, k, o); });
  };
  if (hash_scheme_ == KeyHashScheme::kShortKeyMultiply) return run.operator()<KeyHashScheme::kShortKeyMultiply>();
  run.operator()<KeyHashScheme::kXxh3>();
}

}  // namespace linebloom
