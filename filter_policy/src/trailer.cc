// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.

#include "trailer.h"

#include <cstring>

#include "key_hash.h"

namespace linebloom::internal {
namespace {

void PutLE32(unsigned char* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<unsigned char>(v >> (8 * i));
}

uint32_t GetLE32(const unsigned char* p) {
  return uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 | uint32_t{p[3]} << 24;
}

const unsigned char* TrailerStart(std::string_view filter) {
  return reinterpret_cast<const unsigned char*>(filter.data()) + filter.size() - kTrailerBytes;
}

}  // namespace

void EncodeTrailer(const Trailer& t, unsigned char* out, size_t body_size) {
  unsigned char* p = out + body_size;
  PutLE32(p, t.seed);
  p[4] = t.num_probes;
  p[5] = t.hash_scheme;
  p[6] = t.reserved;
  p[7] = t.version;
  std::memcpy(p + 8, kMagic, 4);
  uint64_t sum = Checksum64(out, body_size + kTrailerBytes - 4);
  PutLE32(p + 12, static_cast<uint32_t>(sum));
}

Trailer DecodeTrailer(std::string_view filter) {
  const unsigned char* p = TrailerStart(filter);
  Trailer t;
  t.seed = GetLE32(p);
  t.num_probes = p[4];
  t.hash_scheme = p[5];
  t.reserved = p[6];
  t.version = p[7];
  return t;
}

bool HasMagic(std::string_view filter) {
  return std::memcmp(TrailerStart(filter) + 8, kMagic, 4) == 0;
}

uint32_t StoredChecksum(std::string_view filter) { return GetLE32(TrailerStart(filter) + 12); }

uint32_t ComputeChecksum(std::string_view filter) {
  return static_cast<uint32_t>(Checksum64(filter.data(), filter.size() - 4));
}

}  // namespace linebloom::internal
