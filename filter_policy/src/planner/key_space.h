// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// KeySpace: positions of keys in the range a tree's filters span, for
// estimating what fraction of lookups a file's key range catches. A key's
// position is the 8 bytes after the range's common prefix as a big-endian
// number (missing bytes are 0): uniform keys give fractions proportional to
// the keys between the bounds.

#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace linebloom::planner {

class KeySpace {
 public:
  KeySpace(std::string_view smallest, std::string_view largest)
      : prefix_(CommonPrefixLength(smallest, largest)),
        lo_(Position(smallest, prefix_)),
        hi_(Position(largest, prefix_)) {}

  // Whether the space has width (at least two distinct positions).
  bool HasWidth() const { return hi_ > lo_; }

  // The fraction of the space that smallest..largest spans, in [0, 1].
  // Only meaningful when HasWidth().
  double Fraction(std::string_view smallest, std::string_view largest) const {
    return std::clamp((Position(largest, prefix_) - Position(smallest, prefix_)) / (hi_ - lo_), 0.0, 1.0);
  }

 private:
  static size_t CommonPrefixLength(std::string_view a, std::string_view b) {
    const size_t n = std::min(a.size(), b.size());
    size_t i = 0;
    while (i < n && a[i] == b[i]) ++i;
    return i;
  }

  static double Position(std::string_view key, size_t prefix_length) {
    uint64_t x = 0;
    for (size_t i = 0; i < 8; ++i) {
      const size_t at = prefix_length + i;
      x = (x << 8) | (at < key.size() ? static_cast<unsigned char>(key[at]) : 0u);
    }
    return static_cast<double>(x);
  }

  size_t prefix_;
  double lo_, hi_;
};

}  // namespace linebloom::planner
