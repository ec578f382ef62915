// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// The query of a filter whose blocks straddle two cache lines, major line
// first. Internal header.
//
// Filter bytes in a buffer that is not 64-byte aligned (RocksDB's new[] is
// 16-byte aligned) start at off = address % 64, the same for every block;
// when off != 0 each block ends its first line with 64 - off bytes and
// begins the next with off bytes. A negative answer needs one clear probe
// bit, so the probes in the line that holds more of the block (the major
// line: the first when off <= 32) are tested first, from that line alone,
// and the other (minor) line is read only when they are all set and some
// probe falls in it. It is the same set of probes tested in another order:
// the answer is AllProbesSet's.
//
// How often the minor line is read. The major line holds a share
// m = max(64 - off, off) / 64 of the block; with a fraction f of the bits
// set, a probe of a negative key lets the query go on past the major line
// when it falls in the minor line (1 - m) or on a set bit of the major line
// (m f). The minor line is read when all k probes do so and not all of them
// are in the major line:
//   P(minor) = (1 - m (1 - f))^k - (m f)^k.
// At 10 bits/key (k = 6, f = 1 - e^(-k/10) = 0.45): off = 16 or 48
// (m = 3/4) gives 0.040, off = 32 (m = 1/2) 0.146, and an odd offset near a
// line's edge (m = 63/64) 0.002. So a negative query reads 1.04-1.15 lines
// where a load of the whole block reads 2; a positive one reads both lines
// unless all its probes fall in the major line.
//
// Where the probes are. Probe bit b of a block is bit b + 8 off of its two
// lines' 1024 bits. Counted from the major line's first bit it is t = b +
// shift, shift = 8 off when the major line is the first and 8 off - 512
// when it is the second. The probe is in the major line when 0 <= t < 512,
// and otherwise in the minor line at bit t + 512 or t - 512. Taken as an
// unsigned 32-bit number, the probe's bit within whichever line holds it is
// t mod 512 in both cases (2^32 is a multiple of 512): its 32-bit word is
// bits 5..8 of t and its bit in the word t mod 32, and "in the major line"
// is t < 512, unsigned.

#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>

#include "block_probe.h"
#include "linebloom/filter_format.h"
#include "linebloom/filter_options.h"

namespace linebloom::internal {

// The major-line kernels load whole aligned lines, so they read the bytes of
// a straddled line that lie outside the filter's buffer (never outside its
// page: a line is within one page). No tested bit is among them, but
// AddressSanitizer reports the load; builds with it read whole blocks.
#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kMajorLineReads = false;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool kMajorLineReads = false;
#else
inline constexpr bool kMajorLineReads = true;
#endif
#else
inline constexpr bool kMajorLineReads = true;
#endif

inline size_t LineOffset(const void* bytes) { return reinterpret_cast<uintptr_t>(bytes) % kFilterBlockBytes; }

// A filter's blocks seen as major and minor lines (off != 0).
struct MajorLines {
  const unsigned char* first = nullptr;  // block 0's major line, 64-byte aligned
  int32_t minor_delta = 0;               // minor line - major line: +64 or -64
  int32_t shift = 0;                     // t - b above
};

inline MajorLines MajorLinesOf(const unsigned char* blocks) {
  constexpr int32_t kLine = kFilterBlockBytes;
  const int32_t off = static_cast<int32_t>(LineOffset(blocks));
  const bool second = off > kLine / 2;
  MajorLines lines;
  // In integers: blocks - off may precede the buffer.
  lines.first =
      reinterpret_cast<const unsigned char*>(reinterpret_cast<uintptr_t>(blocks) - off + (second ? kLine : 0));
  lines.minor_delta = second ? -kLine : kLine;
  lines.shift = 8 * off - (second ? 8 * kLine : 0);
  return lines;
}

inline bool LineBitSet(const unsigned char* line, uint32_t t) {
  const uint32_t bit = t % (8 * kFilterBlockBytes);
  return ((line[bit >> 3] >> (bit & 7)) & 1) != 0;
}

// AllProbesSet(block, a, k) for the block whose major line is `major`, as
//   for (j < k) if (!bit(t_j) in its line) return false;  return true;
// with the major line's probes first.
static_assert(kMaxProbes <= 32, "AllProbesSetMajorFirst keeps a bit per probe in 32 bits");
inline bool AllProbesSetMajorFirst(const unsigned char* major, const MajorLines& lines, uint32_t a, int num_probes) {
  uint32_t in_minor = 0;  // bit j: probe j is in the minor line
  for (int j = 0; j < num_probes; ++j) {
    const uint32_t t = ProbeBit(a, j) + static_cast<uint32_t>(lines.shift);
    if (t >= 8 * kFilterBlockBytes) {
      in_minor |= uint32_t{1} << j;
    } else if (!LineBitSet(major, t)) {
      return false;
    }
  }
  const unsigned char* const minor = major + lines.minor_delta;
  for (; in_minor != 0; in_minor &= in_minor - 1) {
    const int j = std::countr_zero(in_minor);
    if (!LineBitSet(minor, ProbeBit(a, j) + static_cast<uint32_t>(lines.shift))) return false;
  }
  return true;
}

}  // namespace linebloom::internal
