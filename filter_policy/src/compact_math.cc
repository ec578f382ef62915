// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.

#include "linebloom/compact_math.h"

#include <algorithm>
#include <array>
#include <cmath>

#include "compact_layout.h"

namespace linebloom {
namespace {

using internal::compact::ColumnsFor;
using internal::compact::kMaxFingerprintBits;
using internal::compact::kMinFingerprintBits;
using internal::compact::kOrders;

constexpr double kMaxBumpedKeyShare = 0.045;

// Probability that the i-th key (0-based) of a line of C columns and R
// planes does not fit, the i before it having fitted independently.
double MissProbability(int i, int columns, int planes) {
  double disagree = 1.0 - std::ldexp(1.0, -planes);
  return i < columns ? std::ldexp(1.0, i - columns) * disagree : disagree;
}

// The model's terms for one line of k keys (compact_math.h): A, B and the
// expected bumped keys.
struct LineTerms {
  double matched = 0;  // A: probability that a negative query matches here
  double bumped = 0;   // B: share of negative queries sent to the next layer
  double bumped_keys = 0;
};

LineTerms TermsFor(int k, int r) {
  double extra = 0;
  if (k + 1 <= ColumnsFor(r + 1)) {
    extra = 1;
    for (int i = 0; i < k; ++i) extra *= 1.0 - MissProbability(i, ColumnsFor(r + 1), r + 1);
  }
  // R = r: the first key that does not fit, the (j+1)-th, bumps its order
  // and above: about (k - j)/(k + 1) of the order range, plus half an order
  // for rounding down; the keys of its order stored before it leave too.
  double survive = 1, answered = 0, sent = 0, lost = 0;
  for (int j = 0; j < k; ++j) {
    double fail = survive * MissProbability(j, ColumnsFor(r), r);
    double share = std::min(1.0, (k - j) / (k + 1.0) + 0.5 / kOrders);
    answered += fail * (1 - share);
    sent += fail * share;
    lost += fail * (k - std::max(0.0, j - 0.5 * k / kOrders));
    survive -= fail;
  }
  answered += survive;
  LineTerms t;
  t.matched = extra * std::ldexp(1.0, -(r + 1)) + (1 - extra) * answered * std::ldexp(1.0, -r);
  t.bumped = (1 - extra) * sent;
  t.bumped_keys = (1 - extra) * lost;
  return t;
}

double LogBinomialPmf(size_t n, size_t k, double p) {
  return std::lgamma(n + 1.0) - std::lgamma(k + 1.0) - std::lgamma(n - k + 1.0) + k * std::log(p) +
         (n - k) * std::log1p(-p);
}

}  // namespace

size_t CompactFirstLayerLines(size_t num_keys, double keys_per_line) {
  double lines = std::ceil(static_cast<double>(num_keys) / keys_per_line);
  return static_cast<size_t>(std::clamp(lines, 1.0, 4294967295.0));
}

CompactEstimate EstimateCompact(const CompactShape& shape, size_t num_keys) {
  CompactEstimate e;
  if (num_keys == 0) return e;
  size_t lines = CompactFirstLayerLines(num_keys, shape.keys_per_line);
  double p = 1.0 / static_cast<double>(lines);
  double mean = static_cast<double>(num_keys) * p;
  size_t lo = 0, hi = num_keys;
  if (lines > 1) {
    double spread = 12 * std::sqrt(mean) + 24;
    lo = static_cast<size_t>(std::max(0.0, mean - spread));
    hi = static_cast<size_t>(std::min<double>(static_cast<double>(num_keys), mean + spread));
  } else {
    lo = num_keys;
  }
  double matched = 0, bumped = 0, bumped_keys = 0;
  for (size_t k = lo; k <= hi; ++k) {
    double weight = lines == 1 ? 1.0 : std::exp(LogBinomialPmf(num_keys, k, p));
    if (weight < 1e-300) continue;
    LineTerms t = TermsFor(static_cast<int>(k), shape.fingerprint_bits);
    matched += weight * t.matched;
    bumped += weight * t.bumped;
    bumped_keys += weight * t.bumped_keys;
  }
  e.false_positive_rate = matched / (1 - std::min(bumped, 0.5));
  e.second_line_share = bumped;
  e.bumped_key_share = bumped_keys / mean;
  return e;
}

namespace {

CompactShape SearchShape(double bits_per_key, size_t num_keys) {
  double keys_per_512 = 512.0 / bits_per_key;
  CompactShape best{kMinFingerprintBits, keys_per_512};
  double best_fpr = 2;
  for (int r = kMinFingerprintBits; r <= kMaxFingerprintBits; ++r) {
    // Lines of r planes hold about C_r - 1 keys; skip r far from the load.
    if (ColumnsFor(r) < 0.8 * keys_per_512 || ColumnsFor(r) > 2.0 * keys_per_512 + 4) continue;
    CompactShape shape{r, keys_per_512};
    CompactEstimate e;
    // The first layer holds (1 - bumped share) of the keys; the next
    // layers, as loaded, the rest: keys per line such that all layers
    // together spend bits_per_key.
    for (int round = 0; round < 4; ++round) {
      e = EstimateCompact(shape, num_keys);
      shape.keys_per_line = keys_per_512 / (1 - e.bumped_key_share);
    }
    if (e.bumped_key_share <= kMaxBumpedKeyShare && e.false_positive_rate < best_fpr) {
      best = shape;
      best_fpr = e.false_positive_rate;
    }
  }
  return best;
}

double ClampBits(double bits_per_key) {
  if (!(bits_per_key >= kMinCompactBitsPerKey)) return std::isnan(bits_per_key) ? 10.0 : kMinCompactBitsPerKey;
  return std::min(bits_per_key, kMaxCompactBitsPerKey);
}

}  // namespace

CompactShape CompactShapeFor(double bits_per_key, size_t num_keys) {
  bits_per_key = ClampBits(bits_per_key);
  num_keys = std::max<size_t>(num_keys, 1);
  // Beyond 2^16 keys the line loads are Poisson to within the model's
  // precision: one shape serves every larger filter. A small per-thread
  // memo spares the search to a run of filters built alike (RocksDB's
  // partitions, a store's files).
  size_t model_keys = std::min<size_t>(num_keys, size_t{1} << 16);
  struct Entry {
    double bits = -1;
    size_t keys = 0;
    CompactShape shape;
  };
  thread_local std::array<Entry, 8> memo;
  thread_local size_t next = 0;
  for (const Entry& e : memo) {
    if (e.bits == bits_per_key && e.keys == model_keys) return e.shape;
  }
  CompactShape shape = SearchShape(bits_per_key, model_keys);
  memo[next++ % memo.size()] = {bits_per_key, model_keys, shape};
  return shape;
}

double CompactFpr(double bits_per_key, size_t num_keys) {
  return EstimateCompact(CompactShapeFor(bits_per_key, num_keys), num_keys).false_positive_rate;
}

double CompactBitsPerKeyFor(double target_fpr, size_t num_keys) {
  double lo = kMinCompactBitsPerKey, hi = kMaxCompactBitsPerKey;
  if (CompactFpr(lo, num_keys) <= target_fpr) return lo;
  while (hi - lo > 0.01) {
    double mid = (lo + hi) / 2;
    (CompactFpr(mid, num_keys) <= target_fpr ? hi : lo) = mid;
  }
  return hi;
}

}  // namespace linebloom
