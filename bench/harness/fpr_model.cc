// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.

#include "fpr_model.h"

#include <algorithm>
#include <cmath>

namespace linebloom::harness {
namespace {
constexpr int kBits = 512;
}  // namespace

BlockedFprModel::Chain& BlockedFprModel::ChainFor(int num_probes) {
  auto [it, inserted] = chains_.try_emplace(num_probes);
  Chain& c = it->second;
  if (inserted) {
    c.bits_set.assign(kBits + 1, 0.0);
    c.bits_set[0] = 1.0;
    c.hit_power.resize(kBits + 1);
    for (int x = 0; x <= kBits; ++x) c.hit_power[x] = std::pow(static_cast<double>(x) / kBits, num_probes);
    c.fpr_given.push_back(0.0);  // an empty block matches nothing
  }
  return c;
}

// Advances the chain key by key (k throws each) up to `keys_in_block`.
void BlockedFprModel::Extend(Chain& c, int num_probes, uint64_t keys_in_block) {
  std::vector<double> next(kBits + 1);
  while (c.fpr_given.size() <= keys_in_block) {
    for (int t = 0; t < num_probes; ++t) {
      std::fill(next.begin(), next.end(), 0.0);
      for (int x = 0; x <= kBits; ++x) {
        const double p = c.bits_set[x];
        if (p == 0) continue;
        next[x] += p * x / kBits;
        if (x < kBits) next[x + 1] += p * (kBits - x) / kBits;
      }
      c.bits_set.swap(next);
    }
    double fpr = 0;
    for (int x = 0; x <= kBits; ++x) fpr += c.bits_set[x] * c.hit_power[x];
    c.fpr_given.push_back(fpr);
  }
}

double BlockedFprModel::BlockFpr(uint64_t keys_in_block, int num_probes) {
  Chain& c = ChainFor(num_probes);
  Extend(c, num_probes, keys_in_block);
  return c.fpr_given[keys_in_block];
}

double BlockedFprModel::Fpr(uint64_t num_keys, uint64_t num_blocks, int num_probes) {
  if (num_keys == 0 || num_blocks == 0) return 0;
  if (num_blocks == 1) return BlockFpr(num_keys, num_probes);
  // Binomial(n, p) occupancy, summed over mean +- 15 sd (the rest is < 1e-40).
  const double n = static_cast<double>(num_keys);
  const double p = 1.0 / static_cast<double>(num_blocks);
  const double mean = n * p, sd = std::sqrt(n * p * (1 - p));
  const uint64_t lo = static_cast<uint64_t>(std::max(0.0, std::floor(mean - 15 * sd - 5)));
  const uint64_t hi = static_cast<uint64_t>(std::min(n, std::ceil(mean + 15 * sd + 20)));
  const double log_p = std::log(p), log_q = std::log1p(-p), lg_n1 = std::lgamma(n + 1);
  double fpr = 0;
  for (uint64_t i = lo; i <= hi; ++i) {
    const double di = static_cast<double>(i);
    const double log_pmf = lg_n1 - std::lgamma(di + 1) - std::lgamma(n - di + 1) + di * log_p + (n - di) * log_q;
    fpr += std::exp(log_pmf) * BlockFpr(i, num_probes);
  }
  return fpr;
}

}  // namespace linebloom::harness
