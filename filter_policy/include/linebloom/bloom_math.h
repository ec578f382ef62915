// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// The false-positive arithmetic of standard and blocked Bloom filters.
//
// Notation: c = bits per key, k = probes per key, m = bits, n = keys,
// B = bits per block (512 for a 64-byte cache line).
//
// Standard Bloom filter. After n keys each set k of m bits uniformly, a given
// bit is still zero with probability (1 - 1/m)^(kn) ~= e^(-kn/m) = e^(-k/c).
// An absent key is a false positive when all k of its bits are set:
//     FPR_std(c, k) = (1 - e^(-k/c))^k.
// d/dk of ln FPR is zero at k = c ln 2, giving FPR = 2^(-k) = 0.6185^c, so
// for a target p: c = -ln p / (ln 2)^2 and k = -log2 p.
//
// Blocked Bloom filter. A key chooses one of m/B blocks, so the number of keys
// i in a given block is Binomial(n, B/m) ~= Poisson(lambda = B/c). Inside a
// block with i keys a bit is still zero with probability (1 - 1/B)^(k i).
// Putze, Sanders and Singler (2007) plug that expected fill into the standard
// formula ("classic" below):
//     FPR_blk ~= sum_i Pois(i; B/c) * (1 - (1 - 1/B)^(k i))^k.
// That is a lower bound, not the rate: with X set bits in the block, a query
// succeeds with probability E[(X/B)^k] >= (E[X]/B)^k (Jensen), and the gap
// grows like k(k-1)/2 * Var(X)/E[X]^2 -- +1.2 % at 10 bits/key, +3.3 % at 20.
// The exact rate for k independent probes per key (with replacement, which
// is what any hash-derived probe sequence does) is, with m = k i throws:
//     P(k query probes all hit set bits | m throws)
//       = sum_{t=1..k} P(the k probes cover exactly t distinct bits)
//                      * P(t given bits are all set by m throws)
//       = sum_t [B!/(B-t)! * S(k,t) / B^k]
//               * sum_{s=0..t} (-1)^s C(t,s) (1 - s/B)^m        (inclusion-exclusion)
// where S(k,t) is a Stirling number of the second kind. BlockedFpr is this
// exact rate mixed over Pois(i; B/c); BlockedFprClassic is the bound.
//
// Crowded blocks (i above the mean) contribute more than sparse ones save,
// so FPR_blk > FPR_std, and the k that minimises FPR_blk is *smaller* than
// c ln 2 (10 bits/key: 6 probes, not 7; 20 bits/key: 11, not 14): the
// textbook k over-fills the crowded blocks. We therefore choose k by
// minimising the exact FPR_blk directly.

#pragma once

#include <cstddef>
#include <cstdint>

#include "linebloom/filter_format.h"

namespace linebloom {

// (1 - e^(-k/c))^k.
double StandardFpr(double bits_per_key, int num_probes);
// round(c ln 2), at least 1.
int OptimalStandardProbes(double bits_per_key);
// -ln p / ln^2 2.
double StandardBitsPerKeyForFpr(double target_fpr);

// The exact Poisson mixture above, with B = block_bits (k <= kMaxProbes).
double BlockedFpr(double bits_per_key, int num_probes, int block_bits = kFilterBlockBits);
// The classic approximation (a lower bound on BlockedFpr).
double BlockedFprClassic(double bits_per_key, int num_probes, int block_bits = kFilterBlockBits);
// argmin_k BlockedFpr(c, k) over k in [kMinProbes, kMaxProbes].
int OptimalBlockedProbes(double bits_per_key);
// The least c (to 1e-4) with min_k BlockedFpr(c, k) <= p; found by bisection
// because FPR_blk has no closed-form inverse.
double BlockedBitsPerKeyForFpr(double target_fpr);

// Swamidass & Baldi (2007): with X of m bits set after n insertions of k
// probes, E[X] = m (1 - (1 - 1/m)^(kn)); solving for n,
//     n ~= -(m / k) ln(1 - X / m).
// Returns +infinity when every bit is set.
double EstimateKeyCount(uint64_t set_bits, uint64_t total_bits, int num_probes);

// |A u B| is estimated by EstimateKeyCount on the popcount of A OR B (the OR
// is exactly the filter of A u B). |A n B| follows by inclusion-exclusion:
//     |A n B| ~= n(A) + n(B) - n(A OR B)
// (not from the AND filter, which over-counts: bits set by different keys of
// A and B collide). Clamped at 0.
double EstimateIntersectionSize(uint64_t set_bits_a, uint64_t set_bits_b, uint64_t set_bits_union, uint64_t total_bits,
                                int num_probes);

}  // namespace linebloom
