// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// The integer and byte-string encodings of every on-disk format in the
// project (the filter trailer, the micro-SSTable, the key-value store's log
// and MANIFEST): little-endian fixed-width integers, LEB128 varints and
// length-prefixed strings, and one bounds-checked Decoder over untrusted
// bytes. One definition, so the formats cannot drift apart on byte order,
// and every Get* returns false instead of reading past the end, so a corrupt
// length can never walk off a buffer.

#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace linebloom {

// Least significant byte first, whatever the host's byte order.
inline void EncodeFixed32(char* dst, uint32_t v) {
  for (int i = 0; i < 4; ++i) dst[i] = static_cast<char>((v >> (8 * i)) & 0xFF);
}

inline void EncodeFixed64(char* dst, uint64_t v) {
  for (int i = 0; i < 8; ++i) dst[i] = static_cast<char>((v >> (8 * i)) & 0xFF);
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

// Most significant byte first: two such words order as their bytes do
// (std::string_view's order), which bytewise key comparisons use.
// One load and a byte swap on a little-endian host (the byte loop of
// DecodeFixed64, reversed, is not fused into one by every compiler).
inline uint64_t DecodeBigEndian64(const char* p) {
  uint64_t v;
  std::memcpy(&v, p, sizeof v);
  if constexpr (std::endian::native == std::endian::little) v = __builtin_bswap64(v);
  return v;
}

inline void PutFixed32(std::string* dst, uint32_t v) {
  char buf[4];
  EncodeFixed32(buf, v);
  dst->append(buf, sizeof buf);
}

inline void PutFixed64(std::string* dst, uint64_t v) {
  char buf[8];
  EncodeFixed64(buf, v);
  dst->append(buf, sizeof buf);
}

// 7 bits per byte, least significant group first, high bit = "more follows".
inline void PutVarint64(std::string* dst, uint64_t v) {
  while (v >= 0x80) {
    dst->push_back(static_cast<char>((v & 0x7F) | 0x80));
    v >>= 7;
  }
  dst->push_back(static_cast<char>(v));
}

// A varint length, then the bytes.
inline void PutLengthPrefixed(std::string* dst, std::string_view bytes) {
  PutVarint64(dst, bytes.size());
  dst->append(bytes);
}

// A fixed 32-bit length, then the bytes (`bytes` must be shorter than 4 GiB).
inline void PutFixed32LengthPrefixed(std::string* dst, std::string_view bytes) {
  PutFixed32(dst, static_cast<uint32_t>(bytes.size()));
  dst->append(bytes);
}

// Reads the encodings above from the front of a byte string. Views returned
// by GetBytes and the GetLengthPrefixed* point into the input.
class Decoder {
 public:
  explicit Decoder(std::string_view in) : in_(in) {}

  bool empty() const { return in_.empty(); }
  size_t remaining() const { return in_.size(); }

  bool GetByte(uint8_t* v) {
    if (in_.empty()) return false;
    *v = static_cast<unsigned char>(in_.front());
    in_.remove_prefix(1);
    return true;
  }

  bool GetFixed32(uint32_t* v) {
    if (in_.size() < 4) return false;
    *v = DecodeFixed32(in_.data());
    in_.remove_prefix(4);
    return true;
  }

  bool GetFixed64(uint64_t* v) {
    if (in_.size() < 8) return false;
    *v = DecodeFixed64(in_.data());
    in_.remove_prefix(8);
    return true;
  }

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

  bool GetBytes(uint64_t n, std::string_view* out) {
    if (n > in_.size()) return false;
    *out = in_.substr(0, static_cast<size_t>(n));
    in_.remove_prefix(static_cast<size_t>(n));
    return true;
  }

  // A varint length of at most `max`, then that many bytes.
  bool GetLengthPrefixed(uint64_t max, std::string_view* out) {
    uint64_t n;
    return GetBoundedVarint(max, &n) && GetBytes(n, out);
  }

  // A fixed 32-bit length of at most `max`, then that many bytes.
  bool GetFixed32LengthPrefixed(uint64_t max, std::string_view* out) {
    uint32_t n;
    return GetFixed32(&n) && n <= max && GetBytes(n, out);
  }

 private:
  std::string_view in_;
};

}  // namespace linebloom
