// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.

#include "linebloom/bloom_math.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "linebloom/filter_options.h"

namespace linebloom {

double StandardFpr(double bits_per_key, int num_probes) {
  return std::pow(1.0 - std::exp(-num_probes / bits_per_key), num_probes);
}

int OptimalStandardProbes(double bits_per_key) {
  return std::max(1, static_cast<int>(std::lround(bits_per_key * std::log(2.0))));
}

double StandardBitsPerKeyForFpr(double target_fpr) {
  const double ln2 = std::log(2.0);
  return -std::log(target_fpr) / (ln2 * ln2);
}

namespace {

// Visits (i, Pois(i; lambda)) over every i whose pmf is not negligible. The
// pmf is negligible (< 1e-30) more than ~12 standard deviations from the
// mean, and is evaluated in log space so that large lambda (few bits per
// key) does not underflow e^-lambda.
template <typename Visit>
void ForEachPoissonTerm(double lambda, Visit visit) {
  const double spread = 12.0 * std::sqrt(lambda) + 20.0;
  const int lo = static_cast<int>(std::max(0.0, std::floor(lambda - spread)));
  const int hi = static_cast<int>(std::ceil(lambda + spread));
  const double log_lambda = std::log(lambda);
  for (int i = lo; i <= hi; ++i) visit(i, std::exp(i * log_lambda - lambda - std::lgamma(i + 1.0)));
}

}  // namespace

double BlockedFprClassic(double bits_per_key, int num_probes, int block_bits) {
  const double bit_stays_zero = 1.0 - 1.0 / block_bits;
  double fpr = 0.0;
  ForEachPoissonTerm(block_bits / bits_per_key, [&](int i, double pmf) {
    const double bit_set = 1.0 - std::pow(bit_stays_zero, static_cast<double>(num_probes) * i);
    fpr += pmf * std::pow(bit_set, num_probes);
  });
  return fpr;
}

double BlockedFpr(double bits_per_key, int num_probes, int block_bits) {
  const int k = std::clamp(num_probes, kMinProbes, kMaxProbes);
  const long double B = block_bits;
  // cover[t] = B!/(B-t)! * S(k,t) / B^k: the chance that k probes land on
  // exactly t distinct bits. S(k,t) by the recurrence S(n,t) = t S(n-1,t) +
  // S(n-1,t-1); S(24,t) < 1e24, well inside long double.
  long double stirling[kMaxProbes + 1][kMaxProbes + 1] = {};
  stirling[0][0] = 1;
  for (int n = 1; n <= k; ++n) {
    for (int t = 1; t <= n; ++t) stirling[n][t] = t * stirling[n - 1][t] + stirling[n - 1][t - 1];
  }
  long double cover[kMaxProbes + 1] = {};
  for (int t = 1; t <= k; ++t) {
    long double falling = 1;  // B (B-1) ... (B-t+1) / B^t
    for (int r = 0; r < t; ++r) falling *= (B - r) / B;
    cover[t] = falling * stirling[k][t] / std::pow(B, static_cast<long double>(k - t));
  }
  long double binom[kMaxProbes + 1][kMaxProbes + 1] = {};
  for (int t = 0; t <= k; ++t) {
    binom[t][0] = 1;
    for (int s = 1; s <= t; ++s) binom[t][s] = binom[t][s - 1] * (t - s + 1) / s;
  }
  // miss[s] = (1 - s/B)^(k i): the chance that k i throws all avoid s given
  // bits. Kept for the current i and advanced by one key's k throws per step.
  long double step[kMaxProbes + 1], miss[kMaxProbes + 1];
  int current_i = -1;
  long double fpr = 0;
  ForEachPoissonTerm(block_bits / bits_per_key, [&](int i, double pmf) {
    if (current_i < 0) {
      for (int s = 0; s <= k; ++s) {
        step[s] = std::pow(1 - s / B, static_cast<long double>(k));
        miss[s] = std::pow(step[s], static_cast<long double>(i));
      }
    } else {
      for (int s = 0; s <= k; ++s) miss[s] *= step[s];
    }
    current_i = i;
    long double hit = 0;
    for (int t = 1; t <= k; ++t) {
      long double all_set = 0;  // inclusion-exclusion over which of t bits stay zero
      for (int s = 0; s <= t; ++s) all_set += (s % 2 ? -1 : 1) * binom[t][s] * miss[s];
      hit += cover[t] * std::max<long double>(0, all_set);
    }
    fpr += pmf * hit;
  });
  return static_cast<double>(fpr);
}

int OptimalBlockedProbes(double bits_per_key) {
  // FPR_blk is unimodal in k: walk up from k = 1 until it stops falling.
  int best = kMinProbes;
  double best_fpr = BlockedFpr(bits_per_key, best);
  for (int k = kMinProbes + 1; k <= kMaxProbes; ++k) {
    const double fpr = BlockedFpr(bits_per_key, k);
    if (fpr >= best_fpr) break;
    best = k;
    best_fpr = fpr;
  }
  return best;
}

static double BestBlockedFpr(double bits_per_key) {
  return BlockedFpr(bits_per_key, OptimalBlockedProbes(bits_per_key));
}

double BlockedBitsPerKeyForFpr(double target_fpr) {
  double lo = kMinBitsPerKey, hi = kMaxBitsPerKey;
  if (!(target_fpr < BestBlockedFpr(lo))) return lo;
  if (target_fpr <= BestBlockedFpr(hi)) return hi;
  // Invariant: BestBlockedFpr(lo) > target >= BestBlockedFpr(hi).
  while (hi - lo > 1e-4) {
    const double mid = 0.5 * (lo + hi);
    (BestBlockedFpr(mid) > target_fpr ? lo : hi) = mid;
  }
  return hi;
}

double EstimateKeyCount(uint64_t set_bits, uint64_t total_bits, int num_probes) {
  if (total_bits == 0) return 0.0;
  if (set_bits >= total_bits) return std::numeric_limits<double>::infinity();
  const double m = static_cast<double>(total_bits);
  return -(m / num_probes) * std::log1p(-static_cast<double>(set_bits) / m);
}

double EstimateIntersectionSize(uint64_t set_bits_a, uint64_t set_bits_b,
                                uint64_t set_bits_union, uint64_t total_bits,
                                int num_probes) {
  const double n_a = EstimateKeyCount(set_bits_a, total_bits, num_probes);
  const double n_b = EstimateKeyCount(set_bits_b, total_bits, num_probes);
  const double n_union = EstimateKeyCount(set_bits_union, total_bits, num_probes);
  return std::max(0.0, n_a + n_b - n_union);
}

}  // namespace linebloom
