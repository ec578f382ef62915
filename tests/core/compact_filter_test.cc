// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// The compact filter answers every key it holds, spends the bits per key it
// is asked for, and matches its model (compact_math.h): the false-positive
// rate and the share of negative queries that read a second line.
//
// Statistics: Q absent queries at true rate p give Binomial(Q, p) false
// positives, standard deviation sqrt(Q p (1 - p)); the checks allow 4 of
// them (the seeds are fixed, so each test is deterministic anyway).

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "linebloom/compact_filter.h"
#include "linebloom/compact_math.h"
#include "linebloom/filter_reader.h"
#include "linebloom/kernel.h"
#include "linebloom/key_hash.h"

#include "compact_planes.h"
#include "support/golden_keys.h"

namespace linebloom {
namespace {

std::string BuildFromHashes(const std::vector<uint64_t>& hashes, double bits_per_key, bool mixed = true) {
  CompactFilterBuilder builder({.bits_per_key = bits_per_key, .seed = 7});
  builder.SetMixed(mixed);
  for (uint64_t h : hashes) builder.AddHash(h);
  std::string bytes = builder.Finish();
  EXPECT_EQ(builder.fallback_reason(), "");
  return bytes;
}

struct SizeCase {
  size_t keys;
  double bits_per_key;
};

class CompactHoldsEveryKey : public ::testing::TestWithParam<SizeCase> {};

TEST_P(CompactHoldsEveryKey, NoFalseNegativeAndTheBitsAsked) {
  const auto [keys, bits] = GetParam();
  const std::vector<uint64_t> hashes = golden::RandomHashes(keys * 31 + 5, keys);
  const std::string bytes = BuildFromHashes(hashes, bits);
  CompactFilterReader reader;
  ASSERT_TRUE(CompactFilterReader::Parse(bytes, &reader).ok());
  EXPECT_EQ(DetectFilterKind(bytes), FilterKind::kCompact);
  size_t missed = 0;
  for (uint64_t h : hashes) missed += !reader.MayContainHash(h);
  EXPECT_EQ(missed, 0u);
  // Whole lines round a small filter up; from 10,000 keys on, the bytes
  // are those asked within 2 %.
  if (keys >= 10'000) {
    EXPECT_NEAR(bytes.size() * 8.0 / keys, bits, 0.02 * bits);
  }
}

INSTANTIATE_TEST_SUITE_P(SizesAndBits, CompactHoldsEveryKey,
                         ::testing::Values(SizeCase{1, 10}, SizeCase{2, 6}, SizeCase{7, 7.75}, SizeCase{60, 8},
                                           SizeCase{61, 16}, SizeCase{500, 5.5}, SizeCase{3'000, 9},
                                           SizeCase{10'000, 7.75}, SizeCase{50'000, 11.5}, SizeCase{100'000, 20},
                                           SizeCase{200'000, 30}, SizeCase{200'000, 6.3}));

TEST(CompactFilter, KeysAndHashesAgreeAndRepeatsAreDropped) {
  CompactFilterBuilder builder({.bits_per_key = 8, .seed = 3});
  std::vector<std::string> keys;
  for (int i = 0; i < 2'000; ++i) keys.push_back("user" + std::to_string(i));
  for (const std::string& k : keys) {
    builder.AddKey(k);
    builder.AddKey(k);  // an adjacent repeat counts once
  }
  EXPECT_EQ(builder.NumKeys(), keys.size());
  const std::string bytes = builder.Finish();
  EXPECT_EQ(builder.NumKeys(), 0u);
  CompactFilterReader reader;
  ASSERT_TRUE(CompactFilterReader::Parse(bytes, &reader).ok());
  EXPECT_EQ(reader.seed(), 3u);
  std::vector<std::string_view> views(keys.begin(), keys.end());
  std::vector<char> out(views.size());
  std::span<bool> answers(reinterpret_cast<bool*>(out.data()), out.size());
  reader.MayContainBatch(views, answers);
  for (size_t i = 0; i < keys.size(); ++i) {
    EXPECT_TRUE(reader.MayContain(keys[i])) << keys[i];
    EXPECT_TRUE(answers[i]) << keys[i];
    EXPECT_TRUE(reader.MayContainHash(KeyHash(keys[i], 3))) << keys[i];
  }
}

TEST(CompactFilter, EmptyFilterAnswersNo) {
  CompactFilterBuilder builder;
  const std::string bytes = builder.Finish();
  EXPECT_EQ(bytes.size(), 16u);
  CompactFilterReader reader;
  ASSERT_TRUE(CompactFilterReader::Parse(bytes, &reader).ok());
  EXPECT_EQ(reader.num_layers(), 0);
  EXPECT_FALSE(reader.MayContain("anything"));
  CompactFilterReader unparsed;
  EXPECT_FALSE(unparsed.MayContainHash(12345));
}

// Keys still bumped after the last layer allowed: the builder writes a
// Bloom filter of the same bits per key, says why, and loses no key.
TEST(CompactFilter, BuildThatCannotFinishWritesABloomFilter) {
  const std::vector<uint64_t> hashes = golden::RandomHashes(77, 20'000);
  CompactFilterBuilder builder({.bits_per_key = 7.75});
  builder.TEST_SetMaxLayers(1);  // a first layer alone bumps some keys
  for (uint64_t h : hashes) builder.AddHash(h);
  const std::string bytes = builder.Finish();
  EXPECT_NE(builder.fallback_reason(), "");
  EXPECT_EQ(DetectFilterKind(bytes), FilterKind::kBloom);
  FilterReader reader;
  ASSERT_TRUE(FilterReader::Parse(bytes, &reader).ok());
  for (uint64_t h : hashes) ASSERT_TRUE(reader.MayContainHash(h));
  CompactFilterReader compact;
  EXPECT_EQ(CompactFilterReader::Parse(bytes, &compact).error, ParseError::kUnsupportedVersion);
}

// Lines answer through the portable loop, the AVX2 form or the AVX-512
// form (chosen by the process-wide kernel); all read the same bits, for
// every plane count:
// the settings below give r from 5 to 27, and lines of r and r + 1 planes,
// mixed filters among them (7.26: r = 7 and 6; 8.5: r = 8, whose low lines
// of 7 planes have rows of more than 64 columns; 13.5: r = 12 and 11).
// The kernel and the VPCLMULQDQ switch as they were, when a test ends or
// returns early.
class KernelAndVpclmulRestorer {
 public:
  ~KernelAndVpclmulRestorer() {
    internal::compact::EnableCompactVpclmulForTesting(true);
    ForceKernel(before_);
  }

 private:
  Kernel before_ = ActiveKernel();
};

// Whether the AVX2 kernel's form with (vpclmul) or without VPCLMULQDQ can
// run here; the switch set for the readers parsed next. Logs a skip.
bool UseVpclmulForm(Kernel kernel, bool vpclmul) {
  internal::compact::EnableCompactVpclmulForTesting(vpclmul);
  if (!vpclmul || internal::compact::CompactVpclmulSupported()) return true;
  GTEST_LOG_(INFO) << KernelName(kernel) << " with VPCLMULQDQ not supported here: skipped";
  return false;
}

// The AVX2 kernel's form is the one with VPCLMULQDQ where the CPU has it
// when a reader is parsed: both are checked where it does.
TEST(CompactFilter, KernelsAnswerAlike) {
  KernelAndVpclmulRestorer restore;
  for (auto [kernel, vpclmul] : {std::pair{Kernel::kAvx2, false}, {Kernel::kAvx2, true}, {Kernel::kAvx512, false}}) {
    if (!KernelSupported(kernel)) {
      GTEST_LOG_(INFO) << KernelName(kernel) << " not supported here: skipped";
      continue;
    }
    if (!UseVpclmulForm(kernel, vpclmul)) continue;
    for (double bits : {5.5, 6.5, 7.26, 7.75, 8.5, 9.0, 11.5, 13.5, 14.0, 18.0, 24.0, 30.0}) {
      const std::string bytes = BuildFromHashes(golden::RandomHashes(static_cast<uint64_t>(bits * 10), 20'000), bits);
      CompactFilterReader reader;
      ASSERT_TRUE(CompactFilterReader::Parse(bytes, &reader).ok());
      std::mt19937_64 absent(5);
      size_t positives = 0;
      for (int q = 0; q < 200'000; ++q) {
        const uint64_t h = absent();
        ASSERT_TRUE(ForceKernel(Kernel::kPortable));
        const bool portable = reader.MayContainHash(h);
        ASSERT_TRUE(ForceKernel(kernel));
        ASSERT_EQ(reader.MayContainHash(h), portable)
            << KernelName(kernel) << " vpclmul " << vpclmul << " bits " << bits << " query " << q;
        positives += portable;
      }
      // Some absent keys match up to 14 bits per key (a rate of about 2^-13
      // or more): the answers compared are not all "no".
      if (bits <= 14) {
        EXPECT_GT(positives, 0u) << KernelName(kernel) << " bits " << bits;
      }
    }
  }
}

// Under every kernel the CPU has (the AVX2 kernel with VPCLMULQDQ and
// without), so each form's batch is checked.
TEST(CompactFilter, BatchesOfAnySizeAnswerAsSingleQueries) {
  const std::vector<uint64_t> keys = golden::RandomHashes(8, 30'000);
  const std::string bytes = BuildFromHashes(keys, 7.75);
  std::vector<uint64_t> queries = golden::RandomHashes(9, 2'000);
  queries.insert(queries.end(), keys.begin(), keys.begin() + 2'000);  // stored keys among them
  KernelAndVpclmulRestorer restore;
  for (auto [kernel, vpclmul] :
       {std::pair{Kernel::kPortable, false}, {Kernel::kAvx2, false}, {Kernel::kAvx2, true}, {Kernel::kAvx512, false}}) {
    if (!ForceKernel(kernel) || !UseVpclmulForm(kernel, vpclmul)) continue;
    CompactFilterReader reader;
    ASSERT_TRUE(CompactFilterReader::Parse(bytes, &reader).ok());
    std::mt19937_64 rng(10);
    for (size_t begin = 0; begin < queries.size();) {
      const size_t n = std::min<size_t>(1 + rng() % 100, queries.size() - begin);
      std::vector<char> answers(n);
      std::span<bool> out(reinterpret_cast<bool*>(answers.data()), n);
      reader.MayContainHashBatch(std::span<const uint64_t>(queries).subspan(begin, n), out);
      for (size_t i = 0; i < n; ++i) {
        ASSERT_EQ(out[i], reader.MayContainHash(queries[begin + i]))
            << KernelName(kernel) << " vpclmul " << vpclmul << " " << begin + i;
      }
      begin += n;
    }
  }
}

struct ModelCase {
  double bits_per_key;
  size_t keys;
  bool mixed = true;  // CompactShapeFor's: mixed shapes where they do better
};

class CompactMatchesModel : public ::testing::TestWithParam<ModelCase> {};

// The model is an expectation over builds: a small filter's few lines have
// loads of their own, so small filters are measured as many filters of the
// same size (200,000 keys in all), the queries spread over them.
TEST_P(CompactMatchesModel, FalsePositivesAndSecondLines) {
  const auto [bits, keys, mixed] = GetParam();
  const CompactEstimate model = EstimateCompact(CompactShapeFor(bits, keys, kCompactExtraPlanes, mixed), keys);
  const double p = model.false_positive_rate;
  const size_t filters = std::max<size_t>(1, 200'000 / keys);
  const size_t queries_per_filter = std::max<size_t>(400'000, static_cast<size_t>(400.0 / p)) / filters + 1;
  std::mt19937_64 absent(1234);
  size_t positives = 0;
  for (size_t f = 0; f < filters; ++f) {
    const std::string bytes = BuildFromHashes(golden::RandomHashes(bits * 100 + f, keys), bits, mixed);
    CompactFilterReader reader;
    ASSERT_TRUE(CompactFilterReader::Parse(bytes, &reader).ok());
    for (size_t q = 0; q < queries_per_filter; ++q) positives += reader.MayContainHash(absent());
  }
  const double queries = static_cast<double>(filters * queries_per_filter);
  const double sd = std::sqrt(queries * p * (1 - p));
  RecordProperty("measured_fpr", std::to_string(positives / queries));
  RecordProperty("model_fpr", std::to_string(p));
  EXPECT_NEAR(static_cast<double>(positives), queries * p, 4 * sd)
      << "bits " << bits << " keys " << keys << " mixed " << mixed;
  // At most 5 % of negative queries read a second line.
  EXPECT_LE(model.second_line_share, 0.05);
}

INSTANTIATE_TEST_SUITE_P(Shapes, CompactMatchesModel,
                         ::testing::Values(ModelCase{5.5, 200'000}, ModelCase{7.0, 200'000}, ModelCase{7.75, 200'000},
                                           ModelCase{8.5, 200'000}, ModelCase{11.5, 200'000}, ModelCase{14, 100'000},
                                           ModelCase{7.75, 3'000}, ModelCase{10, 300}, ModelCase{9.75, 200'000},
                                           ModelCase{7.26, 200'000}, ModelCase{11.09, 50'000}, ModelCase{9.3, 5'000},
                                           ModelCase{7.0, 200'000, false}, ModelCase{9.75, 200'000, false}));

TEST(CompactMath, BitsForARateReachIt) {
  for (double target : {0.02, 0.01, 0.001, 0.0005}) {
    const double bits = CompactBitsPerKeyFor(target, 1'000'000);
    EXPECT_LE(CompactFpr(bits, 1'000'000), target);
    EXPECT_GT(CompactFpr(bits - 0.02, 1'000'000), target * 0.999) << target;
  }
}

// The model (compact_math.h) computed the plain way, as a check of the
// library's prefix sums and its weights by neighbour ratios: each line load
// k's binomial weight from lgamma, each load's terms summed over the key
// that first fails to fit.
// E(r), the most extra planes a line of r may get: up to the next
// multiple of 8 planes above r, at most 4.
int MostExtraPlanes(int r) {
  int groups = 1;
  while (8 * groups < r + 1) ++groups;
  return std::min(4, 8 * groups - r);
}

// The first layer's terms of n keys in `lines` lines of base r: A, B and
// the share of the keys bumped.
CompactEstimate PlainFirstLayer(int r, int extra_planes, double lines, size_t n) {
  const int most_extra = std::clamp(extra_planes, 1, MostExtraPlanes(r));
  const double p = 1 / lines;
  auto miss = [](int i, int planes) {
    const double disagree = 1 - std::pow(2.0, -planes);
    const int columns = 504 / planes;
    return i < columns ? std::pow(2.0, i - columns) * disagree : disagree;
  };
  const double c = 0.5 / 127;
  double matched = 0, bumped = 0, bumped_keys = 0;
  for (size_t k = 0; k <= std::min<size_t>(n, 400); ++k) {
    const double weight =
        lines == 1 ? (k == n ? 1.0 : 0.0)
                   : std::exp(std::lgamma(n + 1.0) - std::lgamma(k + 1.0) - std::lgamma(n - k + 1.0) +
                              static_cast<double>(k) * std::log(p) + static_cast<double>(n - k) * std::log1p(-p));
    // The line tries r + most_extra planes down to r + 1, each where its
    // columns hold k + 1, until all k keys fit.
    double extra = 0, extra_matched = 0;
    for (int planes = r + most_extra; planes > r; --planes) {
      if (static_cast<int>(k) + 1 > 504 / planes) continue;
      double fit = 1;
      for (size_t i = 0; i < k; ++i) fit *= 1 - miss(static_cast<int>(i), planes);
      extra_matched += (1 - extra) * fit * std::pow(2.0, -planes);
      extra += (1 - extra) * fit;
    }
    double survive = 1, sent = 0, failed = 0, lost = 0;
    for (size_t j = 0; j < k; ++j) {
      const double fail = survive * miss(static_cast<int>(j), r);
      survive -= fail;
      failed += fail;
      sent += fail * (static_cast<double>(k - j) / (k + 1.0) + c);
      lost += fail * (static_cast<double>(k - j) + (j > 0 ? static_cast<double>(k) * c : 0.0));
    }
    const double answered = failed - sent + survive;
    matched += weight * (extra_matched + (1 - extra) * answered * std::pow(2.0, -r));
    bumped += weight * (1 - extra) * sent;
    bumped_keys += weight * (1 - extra) * lost;
  }
  return {matched, bumped, bumped_keys / (static_cast<double>(n) * p)};
}

// A shape's rate: F = A / (1 - B); for a mixed one, the share a of the
// keys (round(a n) of them) in round(n_low / lambda_low) lines of r - 1,
// the others in ceil lines of r, the next layers behaving as those of r.
CompactEstimate PlainModel(const CompactShape& shape, size_t n) {
  const int r = shape.fingerprint_bits;
  if (shape.low_share == 0) {
    const CompactEstimate f = PlainFirstLayer(r, shape.extra_planes, std::ceil(n / shape.keys_per_line), n);
    return {f.false_positive_rate / (1 - std::min(f.second_line_share, 0.5)), f.second_line_share, f.bumped_key_share};
  }
  const auto low_keys = static_cast<size_t>(std::llround(shape.low_share * static_cast<double>(n)));
  const double a = static_cast<double>(low_keys) / static_cast<double>(n);
  const CompactEstimate low = PlainFirstLayer(r - 1, shape.extra_planes,
                                              std::max(1.0, std::round(low_keys / shape.low_keys_per_line)), low_keys);
  const CompactEstimate high =
      PlainFirstLayer(r, shape.extra_planes, std::ceil((n - low_keys) / shape.keys_per_line), n - low_keys);
  const double later = high.false_positive_rate / (1 - std::min(high.second_line_share, 0.5));
  return {a * (low.false_positive_rate + low.second_line_share * later) +
              (1 - a) * (high.false_positive_rate + high.second_line_share * later),
          a * low.second_line_share + (1 - a) * high.second_line_share,
          a * low.bumped_key_share + (1 - a) * high.bumped_key_share};
}

TEST(CompactMath, EstimateIsThePlainModel) {
  for (const ModelCase& m : {ModelCase{7.75, 3'000}, ModelCase{11.5, 200'000}, ModelCase{10, 300},
                             ModelCase{5.5, 50'000}, ModelCase{20, 40}, ModelCase{8, 1}, ModelCase{9.5, 100'000},
                             ModelCase{7.26, 100'000}, ModelCase{8.5, 5'000}, ModelCase{11.1, 2'000}}) {
    for (int extra : {kCompactExtraPlanesVersion3, kCompactExtraPlanes}) {
      const CompactShape shape = CompactShapeFor(m.bits_per_key, m.keys, extra);
      // The mixed cases (above 1,024 keys, between two efficient settings).
      if (extra > 1 && m.keys > 1'024 && m.bits_per_key < 7.7) {
        EXPECT_GT(shape.low_share, 0) << m.bits_per_key;
      }
      const CompactEstimate got = EstimateCompact(shape, m.keys);
      const CompactEstimate want = PlainModel(shape, m.keys);
      EXPECT_NEAR(got.false_positive_rate, want.false_positive_rate, 1e-9 * want.false_positive_rate) << m.bits_per_key;
      EXPECT_NEAR(got.second_line_share, want.second_line_share, 1e-9 * want.second_line_share + 1e-300) << m.keys;
      EXPECT_NEAR(got.bumped_key_share, want.bumped_key_share, 1e-9 * want.bumped_key_share + 1e-300) << m.keys;
    }
  }
}

// CompactShapeFor against its definition searched in full: every r from 5
// to 27 whose lines' C = 504 / r columns are within 0.8 to 2 times the keys
// per 512 bits (plus 4), each with its four rounds of keys per line, the
// lowest rate among those bumping at most 4.5 %, the most planes first
// among equal rates (the search prunes r it can tell lose); with up to
// E(r) extra planes per line, and with one.
TEST(CompactMath, ShapeIsTheFullSearch) {
  for (size_t keys : {size_t{50}, size_t{2'000}, size_t{65'536}}) {
    for (double bits = 5.6; bits < 30; bits += 0.53) {
      for (int extra : {kCompactExtraPlanesVersion3, kCompactExtraPlanes}) {
        const double keys_per_512 = 512.0 / bits;
        CompactShape want{};
        double best = 2;
        for (int r = 27; r >= 5; --r) {
          const int columns = 504 / r;
          if (columns < 0.8 * keys_per_512 || columns > 2.0 * keys_per_512 + 4) continue;
          CompactShape shape{r, keys_per_512, std::min(extra, MostExtraPlanes(r))};
          CompactEstimate e;
          for (int round = 0; round < 4; ++round) {
            e = EstimateCompact(shape, keys);
            shape.keys_per_line = keys_per_512 / (1 - e.bumped_key_share);
          }
          if (e.bumped_key_share <= 0.045 && e.false_positive_rate < best) {
            want = shape;
            best = e.false_positive_rate;
          }
        }
        const CompactShape got = CompactShapeFor(bits, keys, extra, /*mixed=*/false);
        ASSERT_EQ(got.fingerprint_bits, want.fingerprint_bits) << bits << " bits/key, " << keys << " keys";
        ASSERT_EQ(got.keys_per_line, want.keys_per_line) << bits << " bits/key, " << keys << " keys";
        ASSERT_EQ(got.extra_planes, want.extra_planes) << bits << " bits/key, " << keys << " keys";
      }
    }
  }
}

// A mixed shape is what compact_math.h defines: each share at its r's
// efficient setting (its keys per line the most, to 1/512 of a key, at
// which its lines bump at most 4.5 % of their keys, with Poisson line
// loads: 2^16 keys, whatever the filter's count), together spending the
// bits asked (a X_1 + (1 - a) X_2), at a modeled rate below the unmixed
// shape's; a setting at an efficient one is not mixed.
TEST(CompactMath, MixedShapeIsTheMixOfTwoEfficientSettings) {
  const auto bumped = [](int r, double keys_per_line) {
    return EstimateCompact(CompactShape{r, keys_per_line, kCompactExtraPlanes}, size_t{1} << 16).bumped_key_share;
  };
  size_t mixed = 0;
  for (size_t keys : {size_t{2'000}, size_t{65'536}}) {
    for (double bits = 5.6; bits < 20; bits += 0.37) {
      const CompactShape got = CompactShapeFor(bits, keys);
      const double unmixed = CompactFpr(bits, keys, kCompactExtraPlanes, false);
      const double rate = EstimateCompact(got, keys).false_positive_rate;
      EXPECT_LE(rate, unmixed) << bits << " bits/key, " << keys << " keys";
      if (got.low_share == 0) continue;
      ++mixed;
      const int r = got.fingerprint_bits;
      for (const auto& [section_r, lambda] :
           {std::pair{r - 1, got.low_keys_per_line}, std::pair{r, got.keys_per_line}}) {
        EXPECT_LE(bumped(section_r, lambda), 0.045) << bits << " r " << section_r;
        EXPECT_GT(bumped(section_r, lambda + 1.0 / 512), 0.045) << bits << " r " << section_r;
      }
      const double s1 = bumped(r - 1, got.low_keys_per_line), s2 = bumped(r, got.keys_per_line);
      const double x2 = 512 / (got.keys_per_line * (1 - s2));
      const double x1 = 512 / got.low_keys_per_line + s1 * x2;
      EXPECT_NEAR(got.low_share * x1 + (1 - got.low_share) * x2, bits, 1e-9) << bits << " bits/key";
    }
  }
  EXPECT_GT(mixed, 40u);
  // Small filters are not mixed; nor are filters without extra planes.
  EXPECT_EQ(CompactShapeFor(7.26, kMinMixedKeys - 1).low_share, 0);
  EXPECT_EQ(CompactShapeFor(7.26, 100'000, kCompactExtraPlanesVersion3).low_share, 0);
  EXPECT_GT(CompactShapeFor(7.26, 100'000).low_share, 0);
}

// A shape loaded far beyond what CompactShapeFor gives (1,000 keys per
// line, where a line holds about 70): the model's weights, stepped from
// 12 sd below the mean load, still see the lines and their bumping.
TEST(CompactMath, OverloadedShapeIsModeled) {
  const CompactEstimate e = EstimateCompact(CompactShape{7, 1000.0}, 100'000);
  EXPECT_GT(e.false_positive_rate, 0.0);
  EXPECT_GT(e.bumped_key_share, 0.5);
  EXPECT_TRUE(std::isfinite(e.false_positive_rate));
}

// The model's per-line terms are kept per thread and grown as far as an
// estimate asks, and each first layer's terms are kept per thread by r,
// extra planes, lines and keys: the same estimates on a thread that asks
// them in the opposite order, its models grown another way and its layers
// kept in another order, to the last bit. Some shapes of one and of four
// extra planes share r and line counts, which the kept layers tell apart.
TEST(CompactMath, EstimatesDoNotDependOnWhatWasAskedBefore) {
  std::vector<std::pair<CompactShape, size_t>> asks;
  for (size_t keys : {size_t{1}, size_t{40}, size_t{2'000}, size_t{70'000}, size_t{1'000'000}}) {
    for (double bits = 5.6; bits < 30; bits += 1.7) {
      asks.emplace_back(CompactShapeFor(bits, keys), keys);
      asks.emplace_back(CompactShapeFor(bits, keys, kCompactExtraPlanesVersion3), keys);
    }
  }
  asks.emplace_back(CompactShape{7, 1000.0}, 100'000);  // beyond the kept models
  auto estimates = [&asks](bool reversed) {
    std::vector<CompactEstimate> out(asks.size());
    for (size_t n = 0; n < asks.size(); ++n) {
      const size_t i = reversed ? asks.size() - 1 - n : n;
      out[i] = EstimateCompact(asks[i].first, asks[i].second);
    }
    return out;
  };
  std::vector<CompactEstimate> forward, backward;
  std::thread([&] { forward = estimates(false); }).join();
  std::thread([&] { backward = estimates(true); }).join();
  ASSERT_EQ(forward.size(), backward.size());
  for (size_t i = 0; i < forward.size(); ++i) {
    EXPECT_EQ(forward[i].false_positive_rate, backward[i].false_positive_rate) << i;
    EXPECT_EQ(forward[i].second_line_share, backward[i].second_line_share) << i;
    EXPECT_EQ(forward[i].bumped_key_share, backward[i].bumped_key_share) << i;
  }
}

// The expected bytes a budget prices a compact filter at: the mean size of
// real filters within a line, or 0.2 % of a larger filter (its few more
// small layers).
TEST(CompactMath, ExpectedBytesAreTheMeanOfRealFilters) {
  for (size_t keys : {300, 2'179, 5'000, 40'000}) {
    for (double bits : {6.0, 9.3, 12.0, 16.0}) {
      constexpr int kFilters = 12;
      double sum = 0;
      for (int f = 0; f < kFilters; ++f) {
        sum += static_cast<double>(BuildFromHashes(golden::RandomHashes(keys + f * 1000 + 1, keys), bits).size());
      }
      const double expected = ExpectedCompactBytes(keys, bits);
      EXPECT_NEAR(sum / kFilters, expected, std::max(64.0, 0.002 * expected)) << keys << " keys at " << bits;
    }
  }
  EXPECT_EQ(ExpectedCompactBytes(0, 10), 16.0);
  // Clamped as the builder clamps: below the least bits, the least.
  EXPECT_EQ(ExpectedCompactBytes(1000, 2), ExpectedCompactBytes(1000, kMinCompactBitsPerKey));
  EXPECT_EQ(ExpectedCompactBytes(1000, 10) - ExpectedCompactBytes(1000, 9), 125.0);
}

TEST(CompactMath, SettingsAreClamped) {
  EXPECT_EQ(CompactShapeFor(1.0, 1000).fingerprint_bits, CompactShapeFor(kMinCompactBitsPerKey, 1000).fingerprint_bits);
  EXPECT_EQ(CompactShapeFor(500, 1000).fingerprint_bits, CompactShapeFor(kMaxCompactBitsPerKey, 1000).fingerprint_bits);
  EXPECT_GT(CompactShapeFor(std::nan(""), 1000).fingerprint_bits, 0);
  EXPECT_EQ(EffectiveCompactBitsPerKey(1.0), kMinCompactBitsPerKey);
  EXPECT_EQ(EffectiveCompactBitsPerKey(500), kMaxCompactBitsPerKey);
  EXPECT_EQ(EffectiveCompactBitsPerKey(-std::numeric_limits<double>::infinity()), kMinCompactBitsPerKey);
  EXPECT_EQ(EffectiveCompactBitsPerKey(std::nan("")), 10.0);
  EXPECT_EQ(EffectiveCompactBitsPerKey(7.25), 7.25);
  // A NaN setting is the 10 bits/key setting everywhere.
  EXPECT_EQ(CompactShapeFor(std::nan(""), 1000).keys_per_line, CompactShapeFor(10.0, 1000).keys_per_line);
  EXPECT_EQ(ExpectedCompactBytes(1000, std::nan("")), ExpectedCompactBytes(1000, 10.0));
}

}  // namespace
}  // namespace linebloom
