// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// Picks the hashes of a range out of an array, for gathering the keys of a
// group of lines (compact_build.cc): in the first layer a key's line
// floor(h L / 2^64) is monotone in its hash, so the keys of lines
// [a, b) are those with ceil(a 2^64 / L) <= h < ceil(b 2^64 / L). Internal
// header.

#pragma once

#include <cstddef>
#include <cstdint>

namespace linebloom::internal::compact {

// Copies the hashes h of hashes[0..count) with h - low <= last (mod 2^64),
// in order, to `out`, which must have room for count + 8; returns how many.
// AVX-512 (a compare and a compress per eight hashes) where the active
// kernel is the AVX-512 one, else a branch-free loop.
size_t PickRange(const uint64_t* hashes, size_t count, uint64_t low, uint64_t last, uint64_t* out);

// The least hash whose line among `lines` is at least `line` (line < lines).
inline uint64_t FirstHashOfLine(uint32_t line, uint32_t lines) {
  const unsigned __int128 scaled = static_cast<unsigned __int128>(line) << 64;
  return static_cast<uint64_t>((scaled + lines - 1) / lines);
}

}  // namespace linebloom::internal::compact
