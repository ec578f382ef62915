// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.

#include "linebloom/compact_math.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <cmath>
#include <memory>
#include <vector>

#include "compact_layout.h"
#include "linebloom/filter_format.h"

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
  int r() const { return r_; }
  int extra_planes() const { return extra_planes_; }

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

size_t CompactLowSectionLines(size_t num_keys, double keys_per_line) {
  double lines = std::round(static_cast<double>(num_keys) / keys_per_line);
  return static_cast<size_t>(std::clamp(lines, 1.0, 4294967295.0));
}

namespace {

// The first layer's terms of a (section of a) filter: A, B and the share
// of its keys bumped, averaged over the line loads.
struct FirstLayer {
  double matched = 0;
  double bumped = 0;
  double bumped_key_share = 0;
};

// The terms of `num_keys` keys in `lines` lines with `model`, extended
// here as far as the key count needs.
FirstLayer ComputeFirstLayer(LineModel& model, size_t lines, size_t num_keys) {
  FirstLayer f;
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
  double bumped_keys = 0;
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
    f.matched += weight * t.matched;
    f.bumped += weight * t.bumped;
    bumped_keys += weight * t.bumped_keys;
  }
  f.bumped_key_share = bumped_keys / mean;
  return f;
}

// ComputeFirstLayer for the lines `keys_per_line` gives (a low section's
// rounded, any other layer's rounded up), kept per thread in a table of
// 256 slots, one layer per slot (the last asked of those that map there).
// The terms depend only on r, the extra planes, the line count and the key
// count, and a shape search asks for few line counts: its rounds and
// candidate settings round to the same lines, and so do the nearby bits
// per key a level-aware policy gives files of one key count.
FirstLayer FirstLayerWith(LineModel& model, double keys_per_line, size_t num_keys, bool low_section = false) {
  if (num_keys == 0) return {};
  const size_t lines =
      low_section ? CompactLowSectionLines(num_keys, keys_per_line) : CompactFirstLayerLines(num_keys, keys_per_line);
  struct Entry {
    size_t num_keys = 0;  // 0: empty
    size_t lines = 0;
    int r = 0;
    int extra_planes = 0;
    FirstLayer first;
  };
  thread_local std::array<Entry, 256> kept;
  const uint64_t key = (num_keys * 0x9E3779B97F4A7C15u) ^ (lines * 0xC2B2AE3D27D4EB4Fu) ^
                       (static_cast<uint64_t>(model.r() * 8 + model.extra_planes()) * 0x165667B19E3779F9u);
  Entry& e = kept[(key >> 32) % kept.size()];
  if (e.num_keys != num_keys || e.lines != lines || e.r != model.r() || e.extra_planes != model.extra_planes()) {
    e = {num_keys, lines, model.r(), model.extra_planes(), ComputeFirstLayer(model, lines, num_keys)};
  }
  return e.first;
}

// The rate of a filter whose first layer is `f` and whose next layers
// behave alike: F = A / (1 - B).
double LayeredRate(const FirstLayer& f) { return f.matched / (1 - std::min(f.bumped, 0.5)); }

// EstimateCompact of a shape that is not mixed, with `model` at its r.
CompactEstimate EstimateWith(LineModel& model, const CompactShape& shape, size_t num_keys) {
  CompactEstimate e;
  if (num_keys == 0) return e;
  const FirstLayer f = FirstLayerWith(model, shape.keys_per_line, num_keys);
  e.false_positive_rate = LayeredRate(f);
  e.second_line_share = f.bumped;
  e.bumped_key_share = f.bumped_key_share;
  return e;
}

// The keys of a mixed filter's low share.
size_t LowKeys(double low_share, size_t num_keys) {
  return static_cast<size_t>(std::llround(std::clamp(low_share, 0.0, 1.0) * static_cast<double>(num_keys)));
}

// A model at r for a shape's extra planes: the thread's kept one for the
// shapes the search makes (at most about 100 keys per line), else `own`,
// whose lines could ask the model to grow without bound.
LineModel& ModelFor(int r, int extra_planes, double keys_per_line, std::unique_ptr<LineModel>& own) {
  const int e = EffectiveExtraPlanes(r, extra_planes);
  if (r >= 0 && r <= kMaxFingerprintBits && keys_per_line <= kMaxKeptKeysPerLine) return ModelOf(r, e);
  own = std::make_unique<LineModel>(r, e);
  return *own;
}

}  // namespace

CompactEstimate EstimateCompact(const CompactShape& shape, size_t num_keys) {
  const int r = shape.fingerprint_bits;
  std::unique_ptr<LineModel> own_high, own_low;
  LineModel& high = ModelFor(r, shape.extra_planes, shape.keys_per_line, own_high);
  if (!(shape.low_share > 0) || r - 1 < kMinFingerprintBits) return EstimateWith(high, shape, num_keys);
  CompactEstimate e;
  if (num_keys == 0) return e;
  const size_t low_keys = LowKeys(shape.low_share, num_keys);
  const double a = static_cast<double>(low_keys) / static_cast<double>(num_keys);
  LineModel& low = ModelFor(r - 1, shape.extra_planes, shape.low_keys_per_line, own_low);
  const FirstLayer f1 = FirstLayerWith(low, shape.low_keys_per_line, low_keys, true);
  const FirstLayer f2 = FirstLayerWith(high, shape.keys_per_line, num_keys - low_keys);
  const double later = LayeredRate(f2);
  e.false_positive_rate = a * (f1.matched + f1.bumped * later) + (1 - a) * (f2.matched + f2.bumped * later);
  e.second_line_share = a * f1.bumped + (1 - a) * f2.bumped;
  e.bumped_key_share = a * f1.bumped_key_share + (1 - a) * f2.bumped_key_share;
  return e;
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

// Beyond this many keys the line loads are Poisson to within the model's
// precision: one shape serves every larger filter.
constexpr size_t kPoissonKeys = size_t{1} << 16;

// The efficient setting of r: the most keys per line at which its lines
// bump at most kMaxBumpedKeyShare, to 1/1024 of a key (bisection; the
// bumped share rises with the load), and its first layer there, for
// Poisson line loads (kPoissonKeys). One setting per r serves every key
// count: a store's files and partitions, each of its own count, mix
// without a bisection each (a smaller filter's bumped share moves a
// little either way: its sections' lines round to whole lines). Kept per
// thread for the last few (r, extra planes).
struct Vertex {
  double keys_per_line = 0;
  FirstLayer first;
};
Vertex VertexOf(int r, int extra_planes) {
  struct Entry {
    int r = -1;
    int extra_planes = 0;
    Vertex vertex;
  };
  thread_local std::array<Entry, 16> memo;
  thread_local size_t next = 0;
  for (const Entry& m : memo) {
    if (m.r == r && m.extra_planes == extra_planes) return m.vertex;
  }
  constexpr size_t num_keys = kPoissonKeys;
  LineModel& model = ModelOf(r, EffectiveExtraPlanes(r, extra_planes));
  double lo = 0.5 * ColumnsFor(r), hi = ColumnsFor(r) + 8.0;
  while (hi - lo > 1.0 / 1024) {
    const double mid = (lo + hi) / 2;
    (FirstLayerWith(model, mid, num_keys).bumped_key_share <= kMaxBumpedKeyShare ? lo : hi) = mid;
  }
  const Vertex v{lo, FirstLayerWith(model, lo, num_keys)};
  memo[next++ % memo.size()] = {r, extra_planes, v};
  return v;
}

// The mix of the efficient settings of r - 1 and r that spends
// `bits_per_key` (compact_math.h), if the bits lie between theirs: a share
// a of the keys in the low lines, each costing 512 / lambda_1 bits there
// and its bumped share s_1 of keys in the next layers at the high lines'
// 512 / (lambda_2 (1 - s_2)) = X_2 each; the others X_2. Spending the
// bits: a X_1 + (1 - a) X_2 = bits, X_1 = 512 / lambda_1 + s_1 X_2.
bool MixFor(double bits_per_key, int r, int extra_planes, CompactShape* shape) {
  const Vertex low = VertexOf(r - 1, extra_planes);
  const Vertex high = VertexOf(r, extra_planes);
  const double x2 = 512.0 / (high.keys_per_line * (1 - high.first.bumped_key_share));
  const double x1 = 512.0 / low.keys_per_line + low.first.bumped_key_share * x2;
  if (!(x1 < bits_per_key && bits_per_key < x2)) return false;
  const double a = (x2 - bits_per_key) / (x2 - x1);
  // The setting, not clipped to E(r): each share's lines clip it to their own.
  *shape = {r, high.keys_per_line, extra_planes, a, low.keys_per_line};
  return true;
}

// SearchShape, or the mix of lower rate.
CompactShape SearchMixedShape(double bits_per_key, size_t num_keys, int extra_planes) {
  CompactShape best = SearchShape(bits_per_key, num_keys, extra_planes);
  double best_fpr = EstimateCompact(best, num_keys).false_positive_rate;
  const double keys_per_512 = 512.0 / bits_per_key;
  for (int r = kMaxFingerprintBits; r > kMinFingerprintBits; --r) {
    // The mixes around the load: r - 1 holds more keys per line, r fewer.
    if (ColumnsFor(r) > 1.2 * keys_per_512 + 4 || ColumnsFor(r - 1) < 0.8 * keys_per_512) continue;
    CompactShape shape;
    if (!MixFor(bits_per_key, r, extra_planes, &shape)) continue;
    // The rate of the shares' own key counts (and line roundings).
    const double fpr = EstimateCompact(shape, num_keys).false_positive_rate;
    if (fpr < best_fpr) {
      best = shape;
      best_fpr = fpr;
    }
  }
  return best;
}

}  // namespace

double EffectiveCompactBitsPerKey(double bits_per_key) {
  if (std::isnan(bits_per_key)) return 10.0;
  return std::clamp(bits_per_key, kMinCompactBitsPerKey, kMaxCompactBitsPerKey);
}

CompactShape CompactShapeFor(double bits_per_key, size_t num_keys, int extra_planes, bool mixed) {
  bits_per_key = EffectiveCompactBitsPerKey(bits_per_key);
  extra_planes = std::clamp(extra_planes, 1, kCompactExtraPlanes);
  num_keys = std::max<size_t>(num_keys, 1);
  mixed = mixed && extra_planes > 1 && num_keys >= kMinMixedKeys;
  // One shape serves every filter of kPoissonKeys keys or more. A per-thread
  // memo spares the search to a run of filters built alike (RocksDB's
  // partitions, a store's files). It keeps 64 shapes: a level-aware last
  // level's files share a key count (an engine cuts them at a target size)
  // but take their bits in steps that dither between a dozen or more
  // settings, which a few entries taken in turn would keep evicting.
  size_t model_keys = std::min(num_keys, kPoissonKeys);
  struct Entry {
    double bits = -1;
    size_t keys = 0;
    int extra_planes = 0;
    bool mixed = false;
    CompactShape shape;
  };
  thread_local std::array<Entry, 64> memo;
  thread_local size_t next = 0;
  for (const Entry& e : memo) {
    if (e.bits == bits_per_key && e.keys == model_keys && e.extra_planes == extra_planes && e.mixed == mixed) {
      return e.shape;
    }
  }
  CompactShape shape = mixed ? SearchMixedShape(bits_per_key, model_keys, extra_planes)
                             : SearchShape(bits_per_key, model_keys, extra_planes);
  memo[next++ % memo.size()] = {bits_per_key, model_keys, extra_planes, mixed, shape};
  return shape;
}

double CompactFpr(double bits_per_key, size_t num_keys, int extra_planes, bool mixed) {
  return EstimateCompact(CompactShapeFor(bits_per_key, num_keys, extra_planes, mixed), num_keys).false_positive_rate;
}

double CompactBitsPerKeyFor(double target_fpr, size_t num_keys, int extra_planes, bool mixed) {
  double lo = kMinCompactBitsPerKey, hi = kMaxCompactBitsPerKey;
  if (CompactFpr(lo, num_keys, extra_planes, mixed) <= target_fpr) return lo;
  while (hi - lo > 0.01) {
    double mid = (lo + hi) / 2;
    (CompactFpr(mid, num_keys, extra_planes, mixed) <= target_fpr ? hi : lo) = mid;
  }
  return hi;
}

double CompactOverheadBytes(size_t num_keys) {
  if (num_keys == 0) return kFilterTrailerBytes;
  const double sections = num_keys >= kMinMixedKeys ? 8 : 0;
  return kFilterTrailerBytes + sections + 2 * 4 + internal::compact::kLineBytes;
}

double ExpectedCompactBytes(size_t num_keys, double bits_per_key) {
  if (num_keys == 0) return kFilterTrailerBytes;
  return static_cast<double>(num_keys) * EffectiveCompactBitsPerKey(bits_per_key) / 8 + CompactOverheadBytes(num_keys);
}

}  // namespace linebloom
