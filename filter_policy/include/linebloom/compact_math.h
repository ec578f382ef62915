// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// The exact model of the compact filter (compact_filter.h): what a bits-per-
// key setting gives for a key count, and the bits per key a target
// false-positive rate needs.
//
// A compact filter of n keys at c bits per key is a first layer of L lines
// (n / L = lambda keys per line on average) and smaller layers of the same
// kind for the keys the first one bumps. A line of R planes has
// C_R = floor(504 / R) columns and holds its keys if their random rows are
// consistent: adding the i-th key (i = 0, 1, ...) to i independent rows
// fails with probability q_i = 2^(i - C) (1 - 2^-R) (the row falls in their
// span, and its fingerprint disagrees). With the filter's r and up to e
// extra planes (the shape's, at most E(r), compact_filter.h):
//   - a line of k keys gets the most planes R = r + e', e' = e down to 1,
//     with k <= C_R - 1 at which all k fit: all fit at R with probability
//     P_R(k) = prod_{i<k} (1 - q_i) at R, each R tried if those above
//     failed, so R is chosen with probability P_R(k) prod_{R' > R} (1 -
//     P_R'(k)), and P+(k) is the sum of these;
//   - otherwise R = r, and its keys are added by order until the first,
//     the (j+1)-th, does not fit (probability prod_{i<j}(1 - q_i) q_j at
//     R = r); the keys from that one's order up are bumped, and so is the
//     share of negative queries whose order falls there,
//     about (k - j) / (k + 1) of them.
// A negative query reads one line of the first layer; it matches with
// probability 2^-R there, or, in the bumped share B, goes on to the next
// layer, which behaves alike. So the false-positive rate is
//     F = A / (1 - B),   A = E[sum_R P(R) 2^-R + (1 - P+)(1 - b) 2^-r],
// averaged over k ~ Binomial(n, 1/L), b the bumped share of the line.
// B is also the share of negative queries that read a second line.
// A mixed shape's first layer is two such layers side by side: a share a
// of the keys (and of negative queries) in lines of r - 1 planes (A_1,
// B_1), the rest in lines of r (A_2, B_2); the next layers, of r planes at
// the second load, take both shares' bumped keys, so
//     F = a (A_1 + B_1 F_2) + (1 - a) (A_2 + B_2 F_2),   F_2 = A_2 / (1 - B_2).

#pragma once

#include <cstddef>
#include <cstdint>

namespace linebloom {

// Bits per key a compact filter may be built with; settings outside are
// clamped. Below the minimum, lines would bump more keys than 4.5 %; above
// the maximum, fingerprints would pass 28 bits.
inline constexpr double kMinCompactBitsPerKey = 5.5;
inline constexpr double kMaxCompactBitsPerKey = 30.0;

// `bits_per_key` clamped to [kMinCompactBitsPerKey, kMaxCompactBitsPerKey]
// (NaN -> 10), the setting every compact builder and model takes.
double EffectiveCompactBitsPerKey(double bits_per_key);

// The most planes a line may have above r: up to four from format version
// 5 on (within what r allows, compact_filter.h), one in versions 3 and 4.
inline constexpr int kCompactExtraPlanes = 4;
inline constexpr int kCompactExtraPlanesVersion3 = 1;

// The shape of a compact filter: its fingerprint bits r, the keys per line
// of its first layer, and the most planes a line gets above r. A mixed
// shape (format version 7) puts a share of the keys in lines of r - 1
// planes at their own load, the rest in lines of r: the false-positive rate
// and the bits per key are then the shares' averages, so two efficient
// settings (the lowest bits at which r - 1 and r bump at most 4.5 % of the
// keys) mixed reach any rate between theirs on the straight line joining
// them, below what one r at a load between the two gives.
struct CompactShape {
  int fingerprint_bits = 0;
  double keys_per_line = 0;
  int extra_planes = kCompactExtraPlanes;
  // Share of the keys in lines of r - 1 planes (0: not mixed), and those
  // lines' keys per line.
  double low_share = 0;
  double low_keys_per_line = 0;
};

// What the model expects of a shape for a key count.
struct CompactEstimate {
  double false_positive_rate = 0;
  // Share of negative queries that read a second line (the bumped share).
  double second_line_share = 0;
  // Share of keys bumped out of the first layer.
  double bumped_key_share = 0;
};

// The shape a compact filter of `num_keys` keys at `bits_per_key` is built
// with: of the shapes that spend `bits_per_key` in all layers together and
// whose lines bump at most 4.5 % of the keys, the one of lowest modeled
// false-positive rate -- one r at the load the bits give, or, with `mixed`
// and at least kMinMixedKeys keys, the mix of the efficient settings of
// r - 1 and r around them (those of Poisson line loads, a large filter's,
// for every key count). Lines get up to `extra_planes` planes above r
// (kCompactExtraPlanesVersion3: filters that readers from before format
// version 5 read; clamped to 1..4; mixed shapes need more than 1). Without
// `mixed`, filters stay readable by readers from before version 7.
CompactShape CompactShapeFor(double bits_per_key, size_t num_keys, int extra_planes = kCompactExtraPlanes,
                             bool mixed = true);

// Filters of fewer keys are not mixed: each share's lines round up on
// their own.
inline constexpr size_t kMinMixedKeys = 1024;

// Lines of the first layer: ceil(num_keys / keys_per_line), at least 1.
size_t CompactFirstLayerLines(size_t num_keys, double keys_per_line);
// Lines of a mixed filter's low section: num_keys / keys_per_line rounded
// to the nearest, at least 1 (the second section's count rounds up, as a
// filter's that is not mixed: one rounding up per filter).
size_t CompactLowSectionLines(size_t num_keys, double keys_per_line);

// The model above for a shape and key count.
CompactEstimate EstimateCompact(const CompactShape& shape, size_t num_keys);

// The modeled false-positive rate of a compact filter of `num_keys` keys
// at `bits_per_key`, its lines of up to `extra_planes` extra planes (as
// CompactShapeFor).
double CompactFpr(double bits_per_key, size_t num_keys, int extra_planes = kCompactExtraPlanes, bool mixed = true);

// The smallest bits per key (to 0.01) whose modeled rate at `num_keys` keys
// is at most `target_fpr`, within [kMinCompactBitsPerKey,
// kMaxCompactBitsPerKey].
double CompactBitsPerKeyFor(double target_fpr, size_t num_keys, int extra_planes = kCompactExtraPlanes,
                            bool mixed = true);

// The bytes a compact filter of `num_keys` keys at `bits_per_key` (clamped
// as the builder clamps it) takes on average, for budgets. Its lines spend
// the bits per key over all layers together (the shape's keys per line are
// set so), so num_keys * bits / 8 bytes, plus what does not scale with the
// keys (CompactOverheadBytes). Within about a line of a filter's real size;
// larger filters (over about 20,000 keys) have one or two more small
// layers, each a few more bytes, under 0.1 % of their size.
double ExpectedCompactBytes(size_t num_keys, double bits_per_key);
// The bytes beyond the bits: the trailer, the layer table of the two layers
// a filter of up to about 20,000 keys has (4 bytes each) and a mixed
// shape's 8 bytes of sections, and a line of rounding: the first layer's
// last line is half full on average, and so is the second layer's, whose
// few bumped keys take a whole line.
double CompactOverheadBytes(size_t num_keys);

}  // namespace linebloom
