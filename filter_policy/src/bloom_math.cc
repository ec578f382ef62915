// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.

#include "linebloom/bloom_math.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <mutex>

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
  // First term in log space, the rest by Pois(i+1) = Pois(i) * lambda/(i+1).
  // (ln lo! by summation, not std::lgamma: glibc's lgamma writes the global
  // signgam, a data race when several threads size filters at once.)
  double log_factorial = 0;
  for (int i = 2; i <= lo; ++i) log_factorial += std::log(static_cast<double>(i));
  double pmf = std::exp(lo * std::log(lambda) - lambda - log_factorial);
  for (int i = lo; i <= hi; ++i) {
    visit(i, pmf);
    pmf *= lambda / (i + 1);
  }
}

// x^n by repeated squaring (powl is needlessly slow for integer n).
long double PowInt(long double x, int n) {
  long double result = 1;
  for (; n > 0; n >>= 1, x *= x) {
    if (n & 1) result *= x;
  }
  return result;
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
    cover[t] = falling * stirling[k][t] / PowInt(B, k - t);
  }
  long double binom[kMaxProbes + 1][kMaxProbes + 1] = {};
  for (int t = 0; t <= k; ++t) {
    binom[t][0] = 1;
    for (int s = 1; s <= t; ++s) binom[t][s] = binom[t][s - 1] * (t - s + 1) / s;
  }
  // Swapping the two sums, hit = sum_s weight[s] * (1 - s/B)^(k i) with
  // weight[s] = (-1)^s sum_{t >= s} cover[t] C(t,s): O(k) per Poisson term.
  long double weight[kMaxProbes + 1] = {};
  for (int s = 0; s <= k; ++s) {
    for (int t = std::max(s, 1); t <= k; ++t) weight[s] += cover[t] * binom[t][s];
    if (s % 2) weight[s] = -weight[s];
  }
  // miss[s] = (1 - s/B)^(k i): the chance that k i throws all avoid s given
  // bits. Kept for the current i and advanced by one key's k throws per step.
  long double step[kMaxProbes + 1], miss[kMaxProbes + 1];
  int current_i = -1;
  long double fpr = 0;
  ForEachPoissonTerm(block_bits / bits_per_key, [&](int i, double pmf) {
    if (current_i < 0) {
      for (int s = 0; s <= k; ++s) {
        step[s] = PowInt(1 - s / B, k);
        miss[s] = PowInt(step[s], i);
      }
    } else {
      for (int s = 0; s <= k; ++s) miss[s] *= step[s];
    }
    current_i = i;
    long double hit = 0;
    for (int s = 0; s <= k; ++s) hit += weight[s] * miss[s];
    hit = std::max<long double>(0, hit);  // cancellation can leave -1e-19
    fpr += pmf * hit;
  });
  return static_cast<double>(fpr);
}

namespace {

// A k near the optimum: a little below the standard filter's c ln 2 (see
// bloom_math.h).
int NearOptimalProbes(double bits_per_key) {
  return std::clamp(static_cast<int>(0.6 * bits_per_key + 0.5), kMinProbes, kMaxProbes);
}

// The downhill search itself, a few BlockedFpr sums of ~150 Poisson terms.
int SearchOptimalBlockedProbes(double bits_per_key) {
  // FPR_blk is unimodal in k: walk downhill from near the optimum.
  auto fpr = [&](int k) { return BlockedFpr(bits_per_key, k); };
  int best = NearOptimalProbes(bits_per_key);
  double best_fpr = fpr(best);
  for (int step : {-1, +1}) {
    for (int k = best + step; k >= kMinProbes && k <= kMaxProbes; k += step) {
      const double f = fpr(k);
      if (f >= best_fpr) break;
      best = k;
      best_fpr = f;
    }
  }
  return best;
}

// The search costs more than building a filter of a few thousand keys
// (a few BlockedFpr sums), and every builder asks it again for the bits per
// key its filter has after rounding to whole blocks (ProbesFor): a value of
// its own for nearly every key count, and a store's files and partitions
// each have their own count; the level planner asks for every bits per key
// it weighs. But below kStepsBelow its answer is a step function of c: the
// optimum moves to k + 1 where BlockedFpr(c, k + 1) drops below
// BlockedFpr(c, k), as c grows, and only within a few doubles of that edge,
// where the two rates tie to rounding, can the search's answer flicker
// (2^20 random c below kStepsBelow checked; past it, near 150 bits per key,
// the rates of 23 and 24 probes agree to six digits and the answer
// flickers over wide ranges). So there the answer is read off the steps:
// each edge is found once per process, by bisection with the search
// itself down to a gap of 2^-24 of c, and a c inside that gap is searched.
// Every answer is the search's own. An edge costs about 27 searches, once.
// A c from kStepsBelow on (only a filter of two or more blocks at over 64
// bits per key has one; a one-block filter takes the standard filter's k,
// ProbesFor) is searched every time.
//   simple form: return SearchOptimalBlockedProbes(bits_per_key);
class ProbeSteps {
 public:
  static constexpr double kStepsBelow = 128.0;

  // c in [kMinBitsPerKey, kStepsBelow).
  int Get(double bits_per_key) {
    int k = NearOptimalProbes(bits_per_key);
    for (; k < kMaxProbes; ++k) {
      const Step& up = StepTo(k + 1);
      if (bits_per_key < up.at) {
        if (bits_per_key > up.below) return SearchOptimalBlockedProbes(bits_per_key);
        break;
      }
    }
    for (; k > kMinProbes; --k) {
      const Step& here = StepTo(k);
      if (bits_per_key > here.below) {
        if (bits_per_key < here.at) return SearchOptimalBlockedProbes(bits_per_key);
        break;
      }
    }
    return k;
  }

 private:
  // The search answers less than k at `below` and k or more from `at` on.
  struct Step {
    std::once_flag found;
    double below = 0, at = 0;
  };
  // The step to k (in (kMinProbes, kMaxProbes]), found on first use.
  const Step& StepTo(int k) {
    Step& step = steps_[k];
    std::call_once(step.found, [&step, k] { FindStep(k, &step); });
    return step;
  }
  // Positive doubles order as their bit patterns: the bisection halves a
  // range of patterns. The search answers 1 at kMinBitsPerKey and
  // kMaxProbes at kStepsBelow, so every step lies between.
  static void FindStep(int k, Step* step) {
    constexpr uint64_t kGap = uint64_t{1} << (52 - 24);
    uint64_t below = std::bit_cast<uint64_t>(kMinBitsPerKey), at = std::bit_cast<uint64_t>(kStepsBelow);
    while (at - below > kGap) {
      const uint64_t mid = below + (at - below) / 2;
      (SearchOptimalBlockedProbes(std::bit_cast<double>(mid)) >= k ? at : below) = mid;
    }
    step->below = std::bit_cast<double>(below);
    step->at = std::bit_cast<double>(at);
  }

  Step steps_[kMaxProbes + 1];
};

constinit ProbeSteps probe_steps;

}  // namespace

int OptimalBlockedProbes(double bits_per_key) {
  if (bits_per_key >= kMinBitsPerKey && bits_per_key < ProbeSteps::kStepsBelow) return probe_steps.Get(bits_per_key);
  return SearchOptimalBlockedProbes(bits_per_key);
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

double EstimateIntersectionSize(uint64_t set_bits_a, uint64_t set_bits_b, uint64_t set_bits_union, uint64_t total_bits,
                                int num_probes) {
  const double n_a = EstimateKeyCount(set_bits_a, total_bits, num_probes);
  const double n_b = EstimateKeyCount(set_bits_b, total_bits, num_probes);
  const double n_union = EstimateKeyCount(set_bits_union, total_bits, num_probes);
  return std::max(0.0, n_a + n_b - n_union);
}

}  // namespace linebloom
