// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// Little-endian fixed-width integers and a bounds-checked reader over
// untrusted bytes (the log, the MANIFEST): every Read* returns false rather
// than step past the end. Internal header.

#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "linebloom/sstable/fixed_coding.h"

namespace linebloom::kvstore::internal {

using sstable::DecodeFixed32;
using sstable::DecodeFixed64;
using sstable::PutFixed32;
using sstable::PutFixed64;

// u32 length, then the bytes.
inline void PutBytes32(std::string* dst, std::string_view bytes) {
  PutFixed32(dst, static_cast<uint32_t>(bytes.size()));
  dst->append(bytes);
}

class ByteReader {
 public:
  explicit ByteReader(std::string_view in) : in_(in) {}
  bool empty() const { return in_.empty(); }
  size_t remaining() const { return in_.size(); }

  bool ReadU8(uint8_t* v) {
    if (in_.empty()) return false;
    *v = static_cast<unsigned char>(in_.front());
    in_.remove_prefix(1);
    return true;
  }
  bool ReadU32(uint32_t* v) {
    if (in_.size() < 4) return false;
    *v = DecodeFixed32(in_.data());
    in_.remove_prefix(4);
    return true;
  }
  bool ReadU64(uint64_t* v) {
    if (in_.size() < 8) return false;
    *v = DecodeFixed64(in_.data());
    in_.remove_prefix(8);
    return true;
  }
  // A u32 length (at most `max`) and that many bytes, as a view into the input.
  bool ReadBytes32(size_t max, std::string_view* out) {
    uint32_t n = 0;
    if (!ReadU32(&n) || n > max || n > in_.size()) return false;
    *out = in_.substr(0, n);
    in_.remove_prefix(n);
    return true;
  }

 private:
  std::string_view in_;
};

}  // namespace linebloom::kvstore::internal
