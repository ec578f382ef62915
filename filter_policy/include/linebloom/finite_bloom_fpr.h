// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// The exact false-positive rate of finite Bloom filters: a standard Bloom
// filter of m bits holding exactly n keys, and a filter split into parts
// that each key picks uniformly (blocked Bloom filters, per-block filters).
//
// Standard filter, m bits, n distinct keys, k probes per key. Every probe
// is an independent uniform choice among the m bits (with replacement: two
// probes of a key may coincide, which is what hash-derived probes do). Let
// X_t be the number of distinct bits set after t probes. It is a Markov
// chain: X_{t+1} = X_t + 1 with probability (m - X_t)/m, else X_t. Its law
// after t = k n probes is computed exactly by dynamic programming over the
// states reached (O(k n min(m, k n)) operations). An absent key's k probes are
// independent of the filter and each hits a set bit with probability X/m,
// so
//     FPR_std(m, n, k) = E[(X_{kn} / m)^k] = sum_x P(X_{kn} = x) (x/m)^k.
// Unlike the textbook (1 - e^(-kn/m))^k this has no approximation: it
// counts the collisions among the kn probes exactly and averages the k-th
// power over X instead of taking the k-th power of the mean (Jensen: the
// textbook form is a lower bound).
//
// Split filter, parts j of m_j bits, n keys. Each key picks one part, part j
// with probability p_j (1/P for a uniform choice among P parts, m_j / m for a
// choice proportional to size), so the keys in part j are Binomial(n, p_j)
// (exactly, not Poisson: the total is n). An absent key picks part j with
// the same probability:
//     FPR_split = sum_j p_j sum_i Binom(i; n, p_j) FPR_std(m_j, i, k).
// Parts of equal size share the inner sum, so a filter of parts of a few
// sizes costs a few such sums.

#pragma once

#include <cstdint>
#include <map>
#include <utility>
#include <vector>

namespace linebloom {

class FiniteBloomFpr {
 public:
  // FPR_std above; 0 for n = 0, 1 for m = 0 (a filter without bits cannot
  // answer "no").
  double Standard(uint64_t bits, uint64_t keys, int probes);

  // Parts of equal size: `parts` parts of `bits_per_part` bits each.
  struct PartGroup {
    uint64_t parts = 0;
    uint64_t bits_per_part = 0;
  };
  // FPR_split above, a key choosing uniformly among all parts.
  double Split(uint64_t keys, const std::vector<PartGroup>& groups, int probes);
  // FPR_split above, a key choosing a part with probability proportional to
  // its bits.
  double SplitBySize(uint64_t keys, const std::vector<PartGroup>& groups, int probes);

 private:
  // The chain of one (m, k): the law of X after the keys added so far, and
  // FPR_std(m, i, k) for every i up to that count.
  struct Chain {
    std::vector<double> law;
    std::vector<double> hit_power;
    std::vector<double> fpr_given_keys;
  };
  Chain& ChainFor(uint64_t bits, int probes, uint64_t keys);
  // sum_i Binom(i; n, p) FPR_std(bits, i, k).
  double Mixture(uint64_t keys, double p, uint64_t bits, int probes);
  std::map<std::pair<uint64_t, int>, Chain> chains_;
};

}  // namespace linebloom
