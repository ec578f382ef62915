// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// A non-owning, read-only view of a filter built by FilterBuilder. Parse
// validates the bytes once; queries never allocate and never write, so one
// reader may be shared by any number of threads.

#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "linebloom/key_hash.h"

namespace linebloom {

// Why a byte string is not a filter this reader can use.
enum class ParseError {
  kOk = 0,
  kTooShort,            // shorter than the 16-byte trailer
  kBadMagic,            // trailer does not end in the linebloom magic
  kUnsupportedVersion,  // written by a newer (or unknown) format version
  kBadProbes,           // k outside [kMinProbes, kMaxProbes]
  kBadHashScheme,       // unknown hash scheme id
  kBadReservedField,    // reserved trailer byte not zero (version 1)
  kBadLeadBytes,        // more than 63 lead bytes (version 2)
  kBadSize,             // after the lead, not a whole number of 64-byte blocks
  kTooManyBlocks,       // more than 2^32 - 1 blocks
  kChecksumMismatch,    // XXH3 checksum of body+trailer does not match
  kBadFingerprintBits,  // compact filter: fingerprint bits outside [5, 27]
  kBadLayers,           // compact filter: more than 8 layers, or a layer of 0 lines
};

// A short human-readable description of `error`, e.g. "bad magic".
const char* ParseErrorMessage(ParseError error);

class FilterReader;

struct ParseResult {
  ParseError error = ParseError::kOk;
  bool ok() const { return error == ParseError::kOk; }
  const char* message() const { return ParseErrorMessage(error); }
};

struct ParseOptions {
  // Verify the XXH3 checksum over the whole filter (one pass over it). A
  // flipped bit that clears a filter bit would otherwise be a false
  // negative. Turn off only when the container already checksums the bytes.
  bool verify_checksum = true;
};

class FilterReader {
 public:
  // An empty reader (0 blocks): answers "no" to every query.
  FilterReader() = default;

  // Validates `bytes` and, on success, points `*reader` at them. The bytes
  // must outlive the reader. On failure `*reader` is left unchanged.
  static ParseResult Parse(std::string_view bytes, FilterReader* reader, const ParseOptions& options = {});

  // False only if `key` was certainly never added.
  bool MayContain(std::string_view key) const;
  // `hash` is KeyHash(key, seed(), hash_scheme()).
  bool MayContainHash(uint64_t hash) const;

  // Batched queries: hashes all keys, prefetches every block, then probes,
  // so the cache misses overlap. out[i] answers keys[i]; sizes must match.
  void MayContainBatch(std::span<const std::string_view> keys, std::span<bool> out) const;
  void MayContainHashBatch(std::span<const uint64_t> hashes, std::span<bool> out) const;

  size_t num_blocks() const { return num_blocks_; }
  int num_probes() const { return num_probes_; }
  uint32_t seed() const { return seed_; }
  KeyHashScheme hash_scheme() const { return hash_scheme_; }
  // The 64-byte blocks (without the trailer).
  std::string_view blocks() const { return {reinterpret_cast<const char*>(blocks_), num_blocks_ * 64}; }

 private:
  // An empty filter points at one all-zero block, so queries need no
  // "is it empty?" branch: block 0 of 0 blocks is that block, and no bit in
  // it is set.
  static const unsigned char kEmptyBlock[64];
  const unsigned char* blocks_ = kEmptyBlock;
  size_t num_blocks_ = 0;
  int num_probes_ = 1;
  uint32_t seed_ = 0;
  KeyHashScheme hash_scheme_ = KeyHashScheme::kXxh3;
};

}  // namespace linebloom
