// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.

#include "linebloom/filter_reader.h"

#include <algorithm>
#include <cassert>

#include "block_probe.h"
#include "key_hash.h"
#include "kernel_state.h"
#include "probe_avx2.h"
#include "probe_avx512.h"
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
    case ParseError::kBadSize: return "filter body is not a whole number of 64-byte blocks";
    case ParseError::kTooManyBlocks: return "more than 2^32-1 blocks";
    case ParseError::kChecksumMismatch: return "checksum mismatch: filter is corrupt";
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
  if (t.version != internal::kFormatVersion) return fail(ParseError::kUnsupportedVersion);
  if (t.hash_scheme != internal::kHashSchemeXxh3Fastrange) return fail(ParseError::kBadHashScheme);
  if (t.num_probes < kMinProbes || t.num_probes > kMaxProbes) return fail(ParseError::kBadProbes);
  if (t.reserved != 0) return fail(ParseError::kBadReservedField);
  const size_t body = bytes.size() - kFilterTrailerBytes;
  if (body % kFilterBlockBytes != 0) return fail(ParseError::kBadSize);
  if (body / kFilterBlockBytes > kMaxFilterBlocks) return fail(ParseError::kTooManyBlocks);
  if (options.verify_checksum && internal::StoredChecksum(bytes) != internal::ComputeChecksum(bytes)) {
    return fail(ParseError::kChecksumMismatch);
  }
  reader->num_blocks_ = body / kFilterBlockBytes;
  reader->blocks_ = reader->num_blocks_ == 0 ? kEmptyBlock : reinterpret_cast<const unsigned char*>(bytes.data());
  reader->num_probes_ = t.num_probes;
  reader->seed_ = t.seed;
  return {};
}

namespace {

struct PortableProbe {
  bool operator()(const unsigned char* block, uint32_t a, int k) const { return internal::AllProbesSet(block, a, k); }
};

// One query from its hash: locate the block, probe it with the kernel.
template <typename Probe>
__attribute__((always_inline)) inline bool QueryHash(const unsigned char* blocks, size_t num_blocks, int num_probes,
                                                     uint64_t hash, Probe probe) {
  return probe(blocks + internal::BlockIndex(hash, num_blocks) * kFilterBlockBytes, internal::ProbeState(hash),
               num_probes);
}

// A chunk of a batch whose blocks have been located and prefetched.
constexpr size_t kChunk = 32;
struct PrefetchedChunk {
  const unsigned char* block[kChunk];
  uint32_t state[kChunk];
};

template <typename Probe>
__attribute__((always_inline)) inline void ProbeChunk(const PrefetchedChunk& chunk, size_t n, int num_probes, bool* out,
                                                      Probe probe) {
  for (size_t i = 0; i < n; ++i) out[i] = probe(chunk.block[i], chunk.state[i], num_probes);
}

#if defined(__x86_64__)
struct Avx2Probe {
  __attribute__((target("avx2"))) bool operator()(const unsigned char* block, uint32_t a, int k) const {
    return internal::AllProbesSetAvx2(block, a, k);
  }
};

__attribute__((target("avx2"), noinline)) bool MayContainHashAvx2(const unsigned char* blocks, size_t num_blocks,
                                                                  int num_probes, uint64_t hash) {
  return QueryHash(blocks, num_blocks, num_probes, hash, Avx2Probe{});
}

// Up to 8 probes (every filter up to ~14 bits/key) need one AVX2 round, so
// that loop has no per-key round count to test.
struct Avx2OneRoundProbe {
  __attribute__((target("avx2"))) bool operator()(const unsigned char* block, uint32_t a, int k) const {
    return internal::FirstRoundSetAvx2(block, a, k);
  }
};

__attribute__((target("avx2"), noinline)) void ProbeChunkAvx2(const PrefetchedChunk& chunk, size_t n, int num_probes,
                                                              bool* out) {
  if (num_probes <= 8) {
    ProbeChunk(chunk, n, num_probes, out, Avx2OneRoundProbe{});
  } else {
    ProbeChunk(chunk, n, num_probes, out, Avx2Probe{});
  }
}

struct Avx512Probe {
  internal::Avx512Lanes lanes;
  __attribute__((target("avx512f"))) bool operator()(const unsigned char* block, uint32_t a, int) const {
    return internal::AllProbesSetAvx512(block, a, lanes);
  }
};

__attribute__((target("avx512f"), noinline)) bool MayContainHashAvx512(const unsigned char* blocks, size_t num_blocks,
                                                                       int num_probes, uint64_t hash) {
  return QueryHash(blocks, num_blocks, num_probes, hash, Avx512Probe{internal::Avx512Lanes(num_probes)});
}

__attribute__((target("avx512f"), noinline)) void ProbeChunkAvx512(const PrefetchedChunk& chunk, size_t n,
                                                                   int num_probes, bool* out) {
  ProbeChunk(chunk, n, num_probes, out, Avx512Probe{internal::Avx512Lanes(num_probes)});
}
#endif

// Probes a staged chunk with the active kernel.
inline void ProbeChunkWithKernel(const PrefetchedChunk& chunk, size_t n, int num_probes, bool* out) {
#if defined(__x86_64__)
  switch (internal::CurrentKernel()) {
    case Kernel::kAvx512: return ProbeChunkAvx512(chunk, n, num_probes, out);
    case Kernel::kAvx2: return ProbeChunkAvx2(chunk, n, num_probes, out);
    case Kernel::kPortable: break;
  }
#endif
  ProbeChunk(chunk, n, num_probes, out, PortableProbe{});
}

// Answers n queries whose hashes hash_of(i) yields, software-pipelined in
// chunks: chunk c + 1 is hashed, located and prefetched -- each block as
// soon as its hash is known, so the misses start while later keys are still
// being hashed -- before chunk c is probed. About 2 * kChunk misses are in
// flight, and the probes of chunk c overlap the misses of chunk c + 1. The
// hashing stays in baseline code; only the probing runs in the kernel.
template <typename HashOf>
__attribute__((always_inline)) inline void QueryPipelined(const unsigned char* blocks, size_t num_blocks,
                                                          int num_probes, size_t n, bool* out, HashOf hash_of) {
  PrefetchedChunk ring[2];
  auto stage = [&](size_t start, PrefetchedChunk& chunk) {
    const size_t end = std::min(n, start + kChunk);
    for (size_t i = start; i < end; ++i) {
      const uint64_t hash = hash_of(i);
      chunk.block[i - start] = blocks + internal::BlockIndex(hash, num_blocks) * kFilterBlockBytes;
      internal::PrefetchBlock(chunk.block[i - start]);
      chunk.state[i - start] = internal::ProbeState(hash);
    }
  };
  // Step c stages chunk c and probes chunk c - 1.
  const size_t num_chunks = (n + kChunk - 1) / kChunk;
  for (size_t c = 0; c <= num_chunks; ++c) {
    if (c < num_chunks) stage(c * kChunk, ring[c & 1]);
    if (c == 0) continue;
    const size_t start = (c - 1) * kChunk;
    ProbeChunkWithKernel(ring[(c - 1) & 1], std::min(kChunk, n - start), num_probes, out + start);
  }
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
  return QueryHash(blocks_, num_blocks_, num_probes_, hash, PortableProbe{});
}

bool FilterReader::MayContain(std::string_view key) const { return MayContainHash(internal::HashKey(key, seed_)); }

void FilterReader::MayContainHashBatch(std::span<const uint64_t> hashes, std::span<bool> out) const {
  assert(hashes.size() == out.size());
  QueryPipelined(blocks_, num_blocks_, num_probes_, hashes.size(), out.data(), [&](size_t i) { return hashes[i]; });
}

void FilterReader::MayContainBatch(std::span<const std::string_view> keys, std::span<bool> out) const {
  assert(keys.size() == out.size());
  // The seed by value: read through `this` it would be reloaded for every
  // key, since the pipeline's stores might alias it.
  QueryPipelined(blocks_, num_blocks_, num_probes_, keys.size(), out.data(),
                 [keys, seed = seed_](size_t i) { return internal::HashKey(keys[i], seed); });
}

}  // namespace linebloom
