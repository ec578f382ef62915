// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.

#include "trailer.h"

#include <cstring>

#include "key_hash.h"
#include "linebloom/foundation/coding.h"

namespace linebloom::internal {
namespace {

const char* TrailerStart(std::string_view filter) { return filter.data() + filter.size() - kFilterTrailerBytes; }

}  // namespace

void EncodeTrailer(const Trailer& t, unsigned char* out, size_t body_size) {
  unsigned char* p = out + body_size;
  EncodeFixed32(reinterpret_cast<char*>(p), t.seed);
  p[4] = t.num_probes;
  p[5] = t.hash_scheme;
  p[6] = t.lead_bytes;
  p[7] = t.version;
  std::memcpy(p + 8, kMagic, 4);
  uint64_t sum = Checksum64(out, body_size + kFilterTrailerBytes - 4);
  EncodeFixed32(reinterpret_cast<char*>(p + 12), static_cast<uint32_t>(sum));
}

Trailer DecodeTrailer(std::string_view filter) {
  const char* p = TrailerStart(filter);
  Trailer t;
  t.seed = DecodeFixed32(p);
  t.num_probes = static_cast<uint8_t>(p[4]);
  t.hash_scheme = static_cast<uint8_t>(p[5]);
  t.lead_bytes = static_cast<uint8_t>(p[6]);
  t.version = static_cast<uint8_t>(p[7]);
  return t;
}

bool HasMagic(std::string_view filter) { return std::memcmp(TrailerStart(filter) + 8, kMagic, 4) == 0; }

uint32_t StoredChecksum(std::string_view filter) { return DecodeFixed32(TrailerStart(filter) + 12); }

uint32_t ComputeChecksum(std::string_view filter) {
  return static_cast<uint32_t>(Checksum64(filter.data(), filter.size() - 4));
}

}  // namespace linebloom::internal
