// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// Deterministic benchmark keys: key i is key_length bytes whose first 8 are a
// bijective mix of i (so distinct indices give distinct keys for
// key_length >= 8); the rest continue the mix. Stored contiguously, viewed
// as string_views, as an SST writer would hand them to a filter.

#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace linebloom::bench {

inline uint64_t Mix64(uint64_t x) {  // SplitMix64 finaliser: a bijection
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// Indices at or above this are never inserted: absent keys.
inline constexpr uint64_t kAbsentBase = uint64_t{1} << 62;

class KeySet {
 public:
  KeySet(std::span<const uint64_t> indices, size_t key_length) : bytes_(indices.size() * key_length, '\0') {
    views_.reserve(indices.size());
    for (size_t i = 0; i < indices.size(); ++i) {
      char* key = bytes_.data() + i * key_length;
      uint64_t word = Mix64(indices[i]);
      for (size_t b = 0; b < key_length; ++b) {
        if (b > 0 && b % 8 == 0) word = Mix64(word);
        key[b] = static_cast<char>(word >> (8 * (b % 8)));
      }
      views_.emplace_back(key, key_length);
    }
  }

  static KeySet Range(uint64_t first, size_t count, size_t key_length) {
    std::vector<uint64_t> indices(count);
    for (size_t i = 0; i < count; ++i) indices[i] = first + i;
    return KeySet(indices, key_length);
  }

  std::span<const std::string_view> views() const { return views_; }
  size_t size() const { return views_.size(); }

 private:
  std::string bytes_;
  std::vector<std::string_view> views_;
};

}  // namespace linebloom::bench
