// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// Little-endian fixed-width integers and LEB128 varints, and a bounds-checked
// decoder over untrusted bytes: every Get* returns false instead of reading
// past the end, so a corrupt length can never walk off a buffer.
// Internal header.

#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "linebloom/sstable/fixed_coding.h"

namespace linebloom::sstable::internal {

using sstable::DecodeFixed32;
using sstable::DecodeFixed64;
using sstable::PutFixed32;
using sstable::PutFixed64;

// 7 bits per byte, least significant group first, high bit = "more follows".
inline void PutVarint64(std::string* dst, uint64_t v) {
  while (v >= 0x80) {
    dst->push_back(static_cast<char>((v & 0x7F) | 0x80));
    v >>= 7;
  }
  dst->push_back(static_cast<char>(v));
}

inline size_t VarintLength(uint64_t v) {
  size_t n = 1;
  for (; v >= 0x80; v >>= 7) ++n;
  return n;
}

inline void PutLengthPrefixed(std::string* dst, std::string_view bytes) {
  PutVarint64(dst, bytes.size());
  dst->append(bytes);
}

class Decoder {
 public:
  explicit Decoder(std::string_view in) : in_(in) {}

  bool empty() const { return in_.empty(); }
  size_t remaining() const { return in_.size(); }

  // Rejects encodings longer than 10 bytes and values above 2^64 - 1.
  bool GetVarint64(uint64_t* v) {
    uint64_t result = 0;
    for (int shift = 0, i = 0; i < 10; ++i, shift += 7) {
      if (in_.empty()) return false;
      const uint64_t byte = static_cast<unsigned char>(in_.front());
      in_.remove_prefix(1);
      if (i == 9 && byte > 1) return false;  // would overflow 64 bits
      result |= (byte & 0x7F) << shift;
      if ((byte & 0x80) == 0) {
        *v = result;
        return true;
      }
    }
    return false;
  }

  // A varint that must not exceed `max`.
  bool GetBoundedVarint(uint64_t max, uint64_t* v) { return GetVarint64(v) && *v <= max; }

  bool GetByte(uint8_t* v) {
    if (in_.empty()) return false;
    *v = static_cast<unsigned char>(in_.front());
    in_.remove_prefix(1);
    return true;
  }

  bool GetBytes(uint64_t n, std::string_view* out) {
    if (n > in_.size()) return false;
    *out = in_.substr(0, static_cast<size_t>(n));
    in_.remove_prefix(static_cast<size_t>(n));
    return true;
  }

  bool GetLengthPrefixed(uint64_t max, std::string_view* out) {
    uint64_t n;
    return GetBoundedVarint(max, &n) && GetBytes(n, out);
  }

 private:
  std::string_view in_;
};

}  // namespace linebloom::sstable::internal
