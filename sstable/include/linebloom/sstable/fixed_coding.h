// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// The little-endian fixed-width integers of every on-disk format in the
// project: the micro-SSTable (docs/FORMAT.md) and the key-value store's log
// and MANIFEST (docs/KVSTORE.md). One definition, so the formats cannot
// drift apart on byte order.

#pragma once

#include <cstdint>
#include <string>

namespace linebloom::sstable {

inline void PutFixed32(std::string* dst, uint32_t v) {
  for (int i = 0; i < 4; ++i) dst->push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}

inline void PutFixed64(std::string* dst, uint64_t v) {
  for (int i = 0; i < 8; ++i) dst->push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}

inline uint32_t DecodeFixed32(const char* p) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= uint32_t{static_cast<unsigned char>(p[i])} << (8 * i);
  return v;
}

inline uint64_t DecodeFixed64(const char* p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= uint64_t{static_cast<unsigned char>(p[i])} << (8 * i);
  return v;
}

}  // namespace linebloom::sstable
