// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.

#include "linebloom/compact_math.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <cmath>
#include <vector>

#include "compact_layout.h"

namespace linebloom {
namespace {

using internal::compact::ColumnsFor;
using internal::compact::kMaxFingerprintBits;
using internal::compact::kMinFingerprintBits;
using internal::compact::kOrders;
using internal::compact::MaxExtraPlanes;

constexpr double kMaxBumpedKeyShare = 0.045;

// 2^e, exactly std::ldexp(1.0, e) for the normal range the model uses
// (e >= -504): the exponent field set directly, without ldexp's call,
// which the shape search would make hundreds of times per estimate.
double Pow2(int e) { return std::bit_cast<double>(static_cast<uint64_t>(1023 + e) << 52); }

// Probability that the i-th key (0-based) of a line of C columns and R
// planes does not fit, the i before it having fitted independently.
double MissProbability(int i, int columns, int planes) {
  double disagree = 1.0 - Pow2(-planes);
  return i < columns ? Pow2(i - columns) * disagree : disagree;
}

// The model's terms for one line of k keys (compact_math.h): A, B and the
// expected bumped keys.
struct LineTerms {
  double matched = 0;  // A: probability that a negative query matches here
  double bumped = 0;   // B: share of negative queries sent to the next layer
  double bumped_keys = 0;
};

// The terms of lines of up to `max_keys` keys at the filter's r with up to
// e extra planes, from prefix sums over the keys, so that each line size
// costs O(e):
//   fits[x][k] = prod_{i<k} (1 - q_i) at R = r + 1 + x (all k fit),
//   survive[k] = probability that the first k keys fit at R = r,
//   fail_j     = survive[j] q_j (key j is the first that does not),
//   f0[k] = sum_{j<k} fail_j,  f1[k] = sum_{j<k} j fail_j.
// With R = r the first key that does not fit, the (j+1)-th, bumps its
// order and above: about (k - j)/(k + 1) of the order range plus half an
// order for rounding down, so the bumped share of negative queries is
//   sum_j fail_j ((k - j)/(k + 1) + c) = (k f0 - f1)/(k + 1) + c f0,
// c = 1/(2 * 127) (the share never reaches 1 below k = 254 keys, far above
// any line's load); the keys of its order stored before it, about half an
// order's k / 127, leave too: k - j + k c keys bumped (k for j = 0).
class LineModel {
 public:
  LineModel(int r, int extra_planes)
      : r_(r),
        extra_planes_(extra_planes),
        fits_(static_cast<size_t>(extra_planes), std::vector<double>{1.0}),
        survive_{1.0},
        f0_{0.0},
        f1_{0.0} {}

  // Makes Terms(k) answerable for k <= max_keys. The prefix values and the
  // terms do not depend on how far they reach, so one model serves every
  // estimate at its r (ModelOf keeps one per r and thread).
  void Extend(int max_keys) {
    for (int i = static_cast<int>(survive_.size()) - 1; i < max_keys; ++i) {
      for (int x = 0; x < extra_planes_; ++x) {
        const int planes = r_ + 1 + x;
        fits_[x].push_back(fits_[x][i] * (1 - MissProbability(i, ColumnsFor(planes), planes)));
      }
      const double fail = survive_[i] * MissProbability(i, ColumnsFor(r_), r_);
      survive_.push_back(survive_[i] - fail);
      f0_.push_back(f0_[i] + fail);
      f1_.push_back(f1_[i] + i * fail);
    }
    for (int k = static_cast<int>(terms_.size()); k <= max_keys; ++k) terms_.push_back(ComputeTerms(k));
  }

  const LineTerms& Terms(int k) const { return terms_[static_cast<size_t>(k)]; }

 private:
  LineTerms ComputeTerms(int k) const {
    const double c = 0.5 / kOrders;
    // extra: probability that the line gets extra planes; extra_matched:
    // that and a negative query matching there. The most planes first.
    double extra = 0, extra_matched = 0;
    for (int x = extra_planes_ - 1; x >= 0; --x) {
      const int planes = r_ + 1 + x;
      if (k + 1 > ColumnsFor(planes)) continue;
      const double chosen = (1 - extra) * fits_[x][k];
      extra += chosen;
      extra_matched += chosen * Pow2(-planes);
    }
    const double sent = (k * f0_[k] - f1_[k]) / (k + 1.0) + c * f0_[k];
    const double answered = f0_[k] - sent + survive_[k];
    const double first_fail = k > 0 ? f0_[1] : 0.0;
    const double lost = k * f0_[k] - f1_[k] + k * c * (f0_[k] - first_fail);
    LineTerms t;
    t.matched = extra_matched + (1 - extra) * answered * Pow2(-r_);
    t.bumped = (1 - extra) * sent;
    t.bumped_keys = (1 - extra) * lost;
    return t;
  }

  int r_;
  int extra_planes_;
  std::vector<std::vector<double>> fits_;
  std::vector<double> survive_, f0_, f1_;
  std::vector<LineTerms> terms_;
};

// Shapes of at most this many keys per line are estimated with the kept
// models (ModelOf); the search's shapes hold about 100.
constexpr double kMaxKeptKeysPerLine = 1024;

// The model at r with up to e extra planes (1 <= e <= E(r)), kept per
// thread: a shape search estimates each candidate r several times, and a
// run of filters of different key counts (the partitions or files of a
// store) searches again for each. A model grows to the most keys per line
// asked of it, a few hundred.
LineModel& ModelOf(int r, int e) {
  thread_local std::vector<LineModel> models = [] {
    std::vector<LineModel> m;
    for (int planes = 0; planes <= kMaxFingerprintBits; ++planes) {
      for (int x = 1; x <= kCompactExtraPlanes; ++x) m.emplace_back(planes, x);
    }
    return m;
  }();
  return models[static_cast<size_t>(r * kCompactExtraPlanes + e - 1)];
}

// A shape's extra planes as its lines get them: within 1..E(r).
int EffectiveExtraPlanes(int r, int extra_planes) {
  return std::clamp(extra_planes, 1, std::max(1, MaxExtraPlanes(r)));
}

// ln of the Binomial(n, p) probability of k: ln C(n, k) by summation,
// ln C(n, k) = sum_{t=1..k} ln((n - k + t) / t), not std::lgamma, whose
// glibc form writes the global signgam (a data race when filters are sized
// on several threads). The callers step k up from there by the ratio of
// neighbours, pmf(k + 1) / pmf(k) = (n - k) / (k + 1) * p / (1 - p).
double LogBinomialPmf(size_t n, size_t k, double p) {
  double log_choose = 0;
  for (size_t t = 1; t <= k; ++t) log_choose += std::log(static_cast<double>(n - k + t) / static_cast<double>(t));
  return log_choose + static_cast<double>(k) * std::log(p) + static_cast<double>(n - k) * std::log1p(-p);
}

}  // namespace

size_t CompactFirstLayerLines(size_t num_keys, double keys_per_line) {
  double lines = std::ceil(static_cast<double>(num_keys) / keys_per_line);
  return static_cast<size_t>(std::clamp(lines, 1.0, 4294967295.0));
}

namespace {

// EstimateCompact with `model` at shape.fingerprint_bits, extended here as
// far as the key count needs.
CompactEstimate EstimateWith(LineModel& model, const CompactShape& shape, size_t num_keys) {
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
  model.Extend(static_cast<int>(hi));
  double matched = 0, bumped = 0, bumped_keys = 0;
  // The weights by the ratio of neighbours (LogBinomialPmf), in linear
  // space: one exp for the first, then a multiply per k (a log and an exp
  // per k would be most of a shape search's time). No underflow: the first
  // weight is at k = max(0, m - 12 sd - 24) for the mean load m, where the
  // weight is above about e^-200 for any m (e^-m at k = 0, m < 192).
  const double odds = lines == 1 ? 0 : p / (1 - p);
  double weight = lines == 1 ? 1 : std::exp(LogBinomialPmf(num_keys, lo, p));
  for (size_t k = lo; k <= hi; ++k) {
    if (k > lo) weight *= static_cast<double>(num_keys - k + 1) / static_cast<double>(k) * odds;
    if (weight < 1e-300) continue;
    const LineTerms& t = model.Terms(static_cast<int>(k));
    matched += weight * t.matched;
    bumped += weight * t.bumped;
    bumped_keys += weight * t.bumped_keys;
  }
  e.false_positive_rate = matched / (1 - std::min(bumped, 0.5));
  e.second_line_share = bumped;
  e.bumped_key_share = bumped_keys / mean;
  return e;
}

}  // namespace

CompactEstimate EstimateCompact(const CompactShape& shape, size_t num_keys) {
  // The thread's kept model for the shapes the search makes (at most about
  // 100 keys per line); a model of its own for any other shape, whose lines
  // could ask the model to grow without bound.
  const int r = shape.fingerprint_bits;
  const int e = EffectiveExtraPlanes(r, shape.extra_planes);
  if (r >= 0 && r <= kMaxFingerprintBits && shape.keys_per_line <= kMaxKeptKeysPerLine) {
    return EstimateWith(ModelOf(r, e), shape, num_keys);
  }
  LineModel model(r, e);
  return EstimateWith(model, shape, num_keys);
}

namespace {

// The r of lowest rate whose lines bump at most kMaxBumpedKeyShare, from
// the most planes down (the best is usually the first that passes).
CompactShape SearchShape(double bits_per_key, size_t num_keys, int extra_planes) {
  double keys_per_512 = 512.0 / bits_per_key;
  CompactShape best{kMinFingerprintBits, keys_per_512, EffectiveExtraPlanes(kMinFingerprintBits, extra_planes)};
  double best_fpr = 2;
  for (int r = kMaxFingerprintBits; r >= kMinFingerprintBits; --r) {
    // Lines of r planes hold about C_r - 1 keys; skip r far from the load.
    if (ColumnsFor(r) < 0.8 * keys_per_512 || ColumnsFor(r) > 2.0 * keys_per_512 + 4) continue;
    CompactShape shape{r, keys_per_512, EffectiveExtraPlanes(r, extra_planes)};
    LineModel& model = ModelOf(r, shape.extra_planes);
    CompactEstimate e;
    // The first layer holds (1 - bumped share) of the keys; the next
    // layers, as loaded, the rest: keys per line such that all layers
    // together spend bits_per_key. Each round loads the lines more (fewer
    // lines for the same keys), which raises the bumped share and the rate
    // alike: a shape over the cap, or not better than the best, after a
    // round stays so, and its last rounds are skipped.
    for (int round = 0; round < 4; ++round) {
      e = EstimateWith(model, shape, num_keys);
      if (e.bumped_key_share > kMaxBumpedKeyShare || !(e.false_positive_rate < best_fpr)) break;
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

CompactShape CompactShapeFor(double bits_per_key, size_t num_keys, int extra_planes) {
  bits_per_key = ClampBits(bits_per_key);
  extra_planes = std::clamp(extra_planes, 1, kCompactExtraPlanes);
  num_keys = std::max<size_t>(num_keys, 1);
  // Beyond 2^16 keys the line loads are Poisson to within the model's
  // precision: one shape serves every larger filter. A small per-thread
  // memo spares the search to a run of filters built alike (RocksDB's
  // partitions, a store's files).
  size_t model_keys = std::min<size_t>(num_keys, size_t{1} << 16);
  struct Entry {
    double bits = -1;
    size_t keys = 0;
    int extra_planes = 0;
    CompactShape shape;
  };
  thread_local std::array<Entry, 8> memo;
  thread_local size_t next = 0;
  for (const Entry& e : memo) {
    if (e.bits == bits_per_key && e.keys == model_keys && e.extra_planes == extra_planes) return e.shape;
  }
  CompactShape shape = SearchShape(bits_per_key, model_keys, extra_planes);
  memo[next++ % memo.size()] = {bits_per_key, model_keys, extra_planes, shape};
  return shape;
}

double CompactFpr(double bits_per_key, size_t num_keys, int extra_planes) {
  return EstimateCompact(CompactShapeFor(bits_per_key, num_keys, extra_planes), num_keys).false_positive_rate;
}

double CompactBitsPerKeyFor(double target_fpr, size_t num_keys, int extra_planes) {
  double lo = kMinCompactBitsPerKey, hi = kMaxCompactBitsPerKey;
  if (CompactFpr(lo, num_keys, extra_planes) <= target_fpr) return lo;
  while (hi - lo > 0.01) {
    double mid = (lo + hi) / 2;
    (CompactFpr(mid, num_keys, extra_planes) <= target_fpr ? hi : lo) = mid;
  }
  return hi;
}

}  // namespace linebloom
