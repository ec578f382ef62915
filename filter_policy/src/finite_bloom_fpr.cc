// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.

#include "linebloom/finite_bloom_fpr.h"

#include <algorithm>
#include <cmath>

namespace linebloom {

FiniteBloomFpr::Chain& FiniteBloomFpr::ChainFor(uint64_t bits, int probes, uint64_t keys) {
  auto [it, inserted] = chains_.try_emplace({bits, probes});
  Chain& c = it->second;
  const size_t m = static_cast<size_t>(bits);
  if (inserted) {
    c.law.assign(m + 1, 0.0);
    c.law[0] = 1.0;
    c.hit_power.resize(m + 1);
    for (size_t x = 0; x <= m; ++x) {
      c.hit_power[x] = std::pow(static_cast<double>(x) / static_cast<double>(m), probes);
    }
    c.fpr_given_keys.push_back(0.0);  // no key: no bit set, no match
  }
  const double dm = static_cast<double>(m);
  // One probe keeps X at x with probability x/m, else moves it to x + 1:
  //   simple form: next[x] = law[x - 1] (1 - (x - 1)/m) + law[x] x/m
  //   for every x, into a second array.
  // In place from the top down, each law[x] is rewritten after law[x + 1]
  // has read it, and only up to the highest state reached: X <= the number
  // of probes so far. (The same sums, term for term: the same values
  // where the compiler does not fuse a multiply and an add.)
  size_t top = std::min<size_t>(m, (c.fpr_given_keys.size() - 1) * static_cast<size_t>(probes));
  while (c.fpr_given_keys.size() <= keys) {
    for (int t = 0; t < probes; ++t) {
      top = std::min(m, top + 1);
      for (size_t x = top; x > 0; --x) {
        const double stay = static_cast<double>(x) / dm;
        const double up = 1 - static_cast<double>(x - 1) / dm;
        c.law[x] = c.law[x - 1] * up + c.law[x] * stay;
      }
      c.law[0] = 0;  // at least one probe: at least one bit set
    }
    double fpr = 0;
    for (size_t x = 0; x <= top; ++x) fpr += c.law[x] * c.hit_power[x];
    c.fpr_given_keys.push_back(fpr);
  }
  return c;
}

double FiniteBloomFpr::Standard(uint64_t bits, uint64_t keys, int probes) {
  if (keys == 0) return 0;
  if (bits == 0) return 1;
  return ChainFor(bits, probes, keys).fpr_given_keys[keys];
}

double FiniteBloomFpr::Mixture(uint64_t keys, double p, uint64_t bits, int probes) {
  if (p >= 1) return Standard(bits, keys, probes);
  // Binomial(n, p) terms over mean +- 15 sd (+ slack for small means); the
  // rest weighs less than 1e-40. The first term is taken in log space from
  // ln C(n, lo) = sum_{t=1..lo} ln((n - lo + t) / t) (no lgamma: glibc's
  // writes a global, a race between threads), the others by
  // Binom(i + 1) = Binom(i) (n - i) / (i + 1) * p / q.
  const double n = static_cast<double>(keys), q = 1 - p;
  const double mean = n * p, sd = std::sqrt(n * p * q);
  const uint64_t lo = static_cast<uint64_t>(std::max(0.0, std::floor(mean - 15 * sd - 5)));
  const uint64_t hi = std::min(keys, static_cast<uint64_t>(std::ceil(mean + 15 * sd + 20)));
  double log_pmf = static_cast<double>(lo) * std::log(p) + (n - static_cast<double>(lo)) * std::log1p(-p);
  for (uint64_t t = 1; t <= lo; ++t) {
    log_pmf += std::log((n - static_cast<double>(lo) + static_cast<double>(t)) / static_cast<double>(t));
  }
  double w = std::exp(log_pmf), sum = 0;
  for (uint64_t i = lo; i <= hi; ++i) {
    sum += w * Standard(bits, i, probes);
    w *= (n - static_cast<double>(i)) / static_cast<double>(i + 1) * p / q;
  }
  return sum;
}

double FiniteBloomFpr::Split(uint64_t keys, const std::vector<PartGroup>& groups, int probes) {
  uint64_t parts = 0;
  for (const PartGroup& g : groups) parts += g.parts;
  if (keys == 0) return 0;
  if (parts == 0) return 1;
  const double p = 1.0 / static_cast<double>(parts);
  double fpr = 0;
  for (const PartGroup& g : groups) {
    if (g.parts > 0) fpr += static_cast<double>(g.parts) * p * Mixture(keys, p, g.bits_per_part, probes);
  }
  return fpr;
}

double FiniteBloomFpr::SplitBySize(uint64_t keys, const std::vector<PartGroup>& groups, int probes) {
  double bits = 0;
  for (const PartGroup& g : groups) bits += static_cast<double>(g.parts) * static_cast<double>(g.bits_per_part);
  if (keys == 0) return 0;
  if (bits == 0) return 1;
  double fpr = 0;
  for (const PartGroup& g : groups) {
    if (g.parts == 0 || g.bits_per_part == 0) continue;
    const double p = static_cast<double>(g.bits_per_part) / bits;
    fpr += static_cast<double>(g.parts) * p * Mixture(keys, p, g.bits_per_part, probes);
  }
  return fpr;
}

}  // namespace linebloom
