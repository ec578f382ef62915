// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// Golden values for the compact filter, format versions 3, 5 and 7 (lines
// of one extra plane at most, of up to four, and a first layer in two
// sections of r - 1 and r planes). Filters on disk
// outlive the code that wrote them, so a change to where a key lands (the
// hash, h_i, the line or order), to what it reads there (row, fingerprint,
// planes), to the layer table or to the trailer must fail a test rather
// than quietly make old filters answer "no" for keys they hold.
//
// Each case (named keys "key<i>" or mt19937_64 hashes, whose sequence the
// C++ standard fixes, at several bits per key and key counts) pins:
//   * the whole filter: XXH3-128 of its bytes, its size and layer count;
//   * the reader: the indices of the first false positives in a fixed
//     sequence of absent queries (single and batch paths).
// and checks, against the independent model of docs/FORMAT.md
// (tests/support/reference_compact.h), that every stored key answers true
// and is answered before the last layer runs out, that the reader answers
// as the model for every stored key and the first absent queries, and
// that the layer table and the spare bits of each line are what FORMAT.md
// says a builder writes. The golden values are checked against the model.
// A mismatch means the format changed, which needs a new format version
// (or hash-scheme id), not a new golden value -- unless the builder now
// writes other planes that every reader reads the same way (which of the
// solutions it writes is FORMAT.md's "What the builder writes"): then the
// values are new, and checked against the model as these are.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <memory>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "linebloom/compact_filter.h"
#include "linebloom/compact_math.h"
#include "linebloom/filter_options.h"
#include "support/golden_keys.h"
#include "support/reference_compact.h"

namespace linebloom {
namespace {

namespace model = reference::compact;

using golden::Named;
using golden::RandomHashes;
using golden::Xxh128Hex;

struct GoldenCase {
  const char* name;
  double bits_per_key;
  uint32_t seed;
  size_t num_keys;
  bool raw_hashes;
  const char* xxh128;  // of the whole filter
  size_t size;
  int num_layers;
  std::vector<size_t> first_false_positives;  // indices into the absent queries
  // CompactFilterBuilder::SetExtraPlanes: version 3 (1) unless given.
  int extra_planes = kCompactExtraPlanesVersion3;
  // CompactFilterBuilder::SetMixed: versions 3 and 5 (false) unless given.
  bool mixed = false;
};

constexpr size_t kFalsePositivesPinned = 8;
constexpr size_t kMaxAbsentQueries = size_t{1} << 21;
// Absent queries the model answers too (it is slow: one bit at a time).
constexpr size_t kAbsentCheckedByModel = 4096;

const std::vector<GoldenCase>& Cases() {
  // One case per two lines, a table (so not left to clang-format).
  // clang-format off
  static const std::vector<GoldenCase> cases = {
      {"OneKey", 7.75, 1, 1, false,
       "ebd57d660656e5e1aa41964aee7732c9", 84, 1, {749, 833, 1688, 2424, 2463, 2755, 3822, 4537}},
      {"FiftyKeysAt6", 6, 2, 50, false,
       "f3685dced10dfcd6808d1d24e4660906", 84, 1, {88, 175, 629, 694, 855, 949, 1065, 1155}},
      {"FiftyHashesAt11_5", 11.5, 3, 50, true,
       "02292a6cae547152d4c5839a6868e59f", 148, 1, {65030, 132763, 148150, 174205, 224147, 308614, 339975, 340022}},
      {"FiveThousandKeysAt6", 6, 4, 5000, false,
       "d43a4efff921bead8d7d8d915c8e402a", 3864, 2, {28, 67, 181, 197, 205, 333, 379, 392}},
      {"FiveThousandKeysAt7_75", 7.75, 5, 5000, false,
       "2a4bfb35a5bfc6964ddd6fc0c3cc659a", 4956, 3, {88, 99, 147, 293, 334, 389, 432, 538}},
      {"FiveThousandHashesAt11_5", 11.5, 6, 5000, true,
       "20d8e5f78a342bed8dee4ec22fcb0d6c", 7256, 2, {949, 2209, 2405, 3159, 3409, 3763, 3964, 7133}},
      {"FiveThousandKeysAt16", 16, 7, 5000, false,
       "51aacad6d6f0ca76665ba9971a9c7741", 10204, 3, {6607, 7289, 7968, 13655, 13679, 17079, 39018, 73789}},
      {"TwoHundredThousandHashesAt6", 6, 8, 200000, true,
       "7610f5e5ed389f448d289b320925a339", 150108, 3, {48, 96, 170, 203, 224, 332, 401, 474}},
      {"TwoHundredThousandKeysAt7_75", 7.75, 9, 200000, false,
       "fc5335e7dde3ce4a9ccf467e84ede511", 194012, 3, {286, 444, 592, 617, 997, 1085, 1321, 1710}},
      {"TwoHundredThousandKeysAt11_5", 11.5, 0x5eed, 200000, false,
       "514dd02ba3f454b4190127c5e8caaec8", 287904, 4, {383, 1327, 2830, 3770, 3807, 4031, 5579, 10848}},
      {"TwoHundredThousandHashesAt16", 16, 10, 200000, true,
       "76e24d95a476b7176f88cc887bf9e4e6", 400736, 4, {7618, 15142, 17209, 23512, 23609, 26742, 38913, 56288}},
      // Version 5: up to E(r) extra planes (r = 5: 3; r = 7: 1, so the
      // bytes are version 3's; r = 8..12: 4).
      {"V5FiftyHashesAt11_5", 11.5, 3, 50, true,
       "d2791c8923234fff1207d18039364eee", 148, 1, {65030, 148150, 174205, 224147, 308614, 339975, 397666, 619565}, 4},
      {"V5FiveThousandKeysAt6", 6, 4, 5000, false,
       "6639af681b6b3bf4c3e844d9c0485d04", 3864, 2, {28, 67, 181, 197, 205, 333, 379, 392}, 4},
      {"V5FiveThousandKeysAt7_75", 7.75, 5, 5000, false,
       "2a4bfb35a5bfc6964ddd6fc0c3cc659a", 4956, 3, {88, 99, 147, 293, 334, 389, 432, 538}, 4},
      {"V5FiveThousandKeysAt9_5", 9.5, 11, 5000, false,
       "7cbe3841d92070118b07afeab3dbb6f2", 5976, 2, {268, 340, 741, 1019, 1948, 3234, 3651, 3885}, 4},
      {"V5FiveThousandHashesAt11_5", 11.5, 6, 5000, true,
       "43815bf0ce85226d549e7eca717c7277", 7256, 2, {949, 2209, 2405, 3159, 3409, 3763, 3964, 7133}, 4},
      {"V5FiveThousandKeysAt16", 16, 7, 5000, false,
       "b8140b8bc7f1bedf260f8c1ab088af08", 10204, 3, {6607, 7289, 13655, 13679, 39018, 76071, 79325, 110610}, 4},
      {"V5TwoHundredThousandKeysAt9_75", 9.75, 12, 200000, false,
       "e8840310d5e4575144c651c0d7ed2589", 243932, 3, {63, 2152, 2326, 2359, 2391, 2766, 2967, 2999}, 4},
      {"V5TwoHundredThousandKeysAt11_5", 11.5, 0x5eed, 200000, false,
       "2fc8accf36b9c8e8ef50498932edfbda", 287904, 4, {383, 1327, 2830, 3770, 3807, 5579, 11327, 12364}, 4},
      {"V5TwoHundredThousandHashesAt16", 16, 10, 200000, true,
       "f7acef444dddd911568f2c7779eafcb1", 400736, 4, {7618, 15142, 17209, 23512, 23609, 26742, 38913, 56288}, 4},
      // Version 7: mixed shapes (r - 1 = 5, the lowest; r = 7 over wide
      // rows; r = 8, whose low lines of r - 1 = 7 have wide rows; r = 9, 10
      // and 13).
      {"V7FiveThousandKeysAt6", 6, 13, 5000, false,
       "e03f8599f064f3b5e0b3af51b783edc9", 3808, 2, {69, 91, 252, 300, 358, 359, 456, 636}, 4, true},
      {"V7FiveThousandKeysAt7_25", 7.25, 14, 5000, false,
       "b2748fc79eab2c3ca8b39371a9032a68", 4640, 2, {355, 410, 686, 896, 967, 1064, 1075, 1234}, 4, true},
      {"V7FiveThousandHashesAt8_5", 8.5, 15, 5000, true,
       "353c28bf1dde618f6d4a28e09b807e40", 5408, 2, {96, 121, 268, 323, 710, 718, 1174, 1652}, 4, true},
      {"V7FiveThousandKeysAt11", 11, 16, 5000, false,
       "731308e5ad30b59583d62a650e79fb46", 6944, 2, {7, 563, 2707, 2713, 2722, 3428, 4182, 9457}, 4, true},
      {"V7TwoHundredThousandKeysAt7_26", 7.26, 17, 200000, false,
       "7f3d77759d7403bf2be17ce4849a66e4", 181736, 4, {43, 67, 130, 275, 546, 575, 737, 773}, 4, true},
      {"V7TwoHundredThousandHashesAt9_25", 9.25, 18, 200000, true,
       "14e796038c5deca02149364018813534", 231592, 4, {789, 1481, 1924, 2140, 2920, 5349, 5515, 6108}, 4, true},
      {"V7TwoHundredThousandKeysAt15", 15, 19, 200000, false,
       "3dd5f8281ca0619273b8cb5f1682c234", 375784, 4, {4532, 12158, 37936, 65397, 75178, 80827, 84469, 88922}, 4, true},
  };
  // clang-format on
  return cases;
}

struct Built {
  std::string bytes;
  std::vector<uint64_t> hashes;
};

Built Build(const GoldenCase& c) {
  CompactFilterBuilder builder({.bits_per_key = c.bits_per_key, .seed = c.seed});
  builder.SetExtraPlanes(c.extra_planes);
  builder.SetMixed(c.mixed);
  Built built;
  if (c.raw_hashes) {
    built.hashes = RandomHashes(c.seed, c.num_keys);
    for (uint64_t h : built.hashes) builder.AddHash(h);
  } else {
    for (size_t i = 0; i < c.num_keys; ++i) {
      const std::string key = Named("key", i);
      builder.AddKey(key);
      built.hashes.push_back(reference::Hash(key, c.seed));
    }
  }
  built.bytes = builder.Finish();
  EXPECT_EQ(builder.fallback_reason(), "");
  return built;
}

// One chunk of the absent queries, from `start`: keys "absent<i>", or
// hashes from mt19937_64 seeded with ~seed.
struct AbsentChunk {
  std::vector<std::string> keys;
  std::vector<uint64_t> hashes;
};

AbsentChunk Absent(const GoldenCase& c, size_t start, size_t n) {
  AbsentChunk chunk;
  if (c.raw_hashes) {
    std::mt19937_64 rng(~uint64_t{c.seed});
    rng.discard(start);
    for (size_t i = 0; i < n; ++i) chunk.hashes.push_back(rng());
  } else {
    for (size_t i = 0; i < n; ++i) {
      chunk.keys.push_back(Named("absent", start + i));
      chunk.hashes.push_back(reference::Hash(chunk.keys.back(), c.seed));
    }
  }
  return chunk;
}

// The indices of the first kFalsePositivesPinned absent queries the reader
// answers "may contain"; single and batch paths must agree, and the model
// must agree on the first kAbsentCheckedByModel queries and on every hit.
std::vector<size_t> FirstFalsePositives(const GoldenCase& c, const CompactFilterReader& reader,
                                        const model::Filter& f) {
  constexpr size_t kChunk = 4096;
  std::vector<size_t> found;
  for (size_t start = 0; start < kMaxAbsentQueries && found.size() < kFalsePositivesPinned; start += kChunk) {
    const AbsentChunk chunk = Absent(c, start, kChunk);
    auto batch = std::make_unique<bool[]>(kChunk);
    if (!c.raw_hashes) {
      const std::vector<std::string_view> views(chunk.keys.begin(), chunk.keys.end());
      reader.MayContainBatch(views, std::span<bool>(batch.get(), kChunk));
    }
    for (size_t i = 0; i < kChunk; ++i) {
      const bool single = c.raw_hashes ? reader.MayContainHash(chunk.hashes[i]) : reader.MayContain(chunk.keys[i]);
      const bool by_hash = reader.MayContainHash(chunk.hashes[i]);
      if (by_hash != single || (!c.raw_hashes && batch[i] != single)) {
        ADD_FAILURE() << "query paths disagree at absent query " << start + i;
        return found;
      }
      if ((start + i < kAbsentCheckedByModel || single) && model::MayContainHash(f, chunk.hashes[i]) != single) {
        ADD_FAILURE() << "the reader and the model disagree at absent query " << start + i;
        return found;
      }
      if (single && found.size() < kFalsePositivesPinned) found.push_back(start + i);
    }
  }
  return found;
}

// Every stored key: true from every path and from the model, answered by a
// layer (never bumped out of the last). Returns the keys that reach each
// layer (n_0 = all of them, n_i = those bumped out of layer i - 1).
std::vector<size_t> CheckStoredKeys(const GoldenCase& c, const Built& built, const CompactFilterReader& reader,
                                    const model::Filter& f) {
  std::vector<size_t> reaching(f.lines.size() + 1, 0);
  std::vector<std::string> keys;
  for (size_t i = 0; i < built.hashes.size(); ++i) {
    const uint64_t h = built.hashes[i];
    const model::Answer a = model::Query(f, h);
    EXPECT_TRUE(a.may_contain) << "the model misses stored key " << i;
    EXPECT_LT(a.layer, static_cast<int>(f.lines.size())) << "stored key " << i << " bumped out of the last layer";
    for (int layer = 0; layer <= a.layer; ++layer) ++reaching[layer];
    EXPECT_TRUE(reader.MayContainHash(h)) << "false negative, stored key " << i;
    if (!c.raw_hashes) keys.push_back(Named("key", i));
  }
  if (!c.raw_hashes) {
    const std::vector<std::string_view> views(keys.begin(), keys.end());
    auto batch = std::make_unique<bool[]>(keys.size() + 1);
    reader.MayContainBatch(views, std::span<bool>(batch.get(), keys.size()));
    for (size_t i = 0; i < keys.size(); ++i) {
      EXPECT_TRUE(reader.MayContain(keys[i])) << "false negative, key " << keys[i];
      EXPECT_TRUE(batch[i]) << "false negative (batch), key " << keys[i];
    }
  }
  reaching.pop_back();
  return reaching;
}

// FORMAT.md, "What the builder writes": the first layer has
// ceil(n / lambda) lines, each next one ceil(n_i / lambda); r and lambda
// from CompactShapeFor. A mixed shape's first layer: H = round(a 2^32),
// L_low = round(n_low / lambda_low) for the n_low keys below H, and
// ceil((n - n_low) / lambda) lines after them.
void CheckLayerTable(const GoldenCase& c, const Built& built, const model::Filter& f,
                     const std::vector<size_t>& reaching) {
  if (c.num_keys == 0) {
    EXPECT_TRUE(f.lines.empty());
    return;
  }
  const CompactShape shape = CompactShapeFor(c.bits_per_key, c.num_keys, c.extra_planes, c.mixed);
  EXPECT_EQ(f.r, shape.fingerprint_bits);
  EXPECT_EQ(f.many_planes, shape.extra_planes > 1) << "version 5 iff lines may have several extra planes";
  EXPECT_EQ(f.low_threshold != 0, shape.low_share > 0) << "version 7 iff the shape is mixed";
  EXPECT_EQ(f.low_threshold != 0, c.mixed) << "every mixed case has a mixed shape";
  size_t low_keys = 0;
  if (shape.low_share > 0) {
    EXPECT_EQ(f.low_threshold, static_cast<uint32_t>(std::llround(shape.low_share * 4294967296.0)));
    for (uint64_t h : built.hashes) low_keys += (h & 0xFFFFFFFFu) < f.low_threshold;
    EXPECT_EQ(f.low_lines, CompactLowSectionLines(low_keys, shape.low_keys_per_line));
  }
  for (size_t i = 0; i < f.lines.size(); ++i) {
    const size_t low_lines = i == 0 ? f.low_lines : 0;
    EXPECT_EQ(f.lines[i] - low_lines,
              CompactFirstLayerLines(reaching[i] - (i == 0 ? low_keys : 0), shape.keys_per_line))
        << "layer " << i;
  }
}

// The bits after plane R - 1 (up to bit 504) of every line are 0.
void CheckSpareBitsAreZero(const model::Filter& f) {
  uint64_t total_lines = 0;
  for (uint32_t lines : f.lines) total_lines += lines;
  for (uint64_t i = 0; i < total_lines; ++i) {
    const unsigned char* line = f.bytes + i * model::kLineBytes;
    const int planes = model::PlanesOf(line, f);
    for (int bit = planes * (504 / planes); bit < 504; ++bit) {
      ASSERT_FALSE(model::Bit(line, static_cast<size_t>(bit))) << "line " << i << " bit " << bit;
    }
  }
}

class CompactGolden : public ::testing::TestWithParam<size_t> {};

TEST_P(CompactGolden, WholeFilterAndFirstFalsePositivesArePinned) {
  const GoldenCase& c = Cases()[GetParam()];
  const Built built = Build(c);
  EXPECT_EQ(Xxh128Hex(built.bytes), c.xxh128);
  EXPECT_EQ(built.bytes.size(), c.size);
  ASSERT_EQ(DetectFilterKind(built.bytes), FilterKind::kCompact);
  CompactFilterReader reader;
  ASSERT_TRUE(CompactFilterReader::Parse(built.bytes, &reader).ok());
  model::Filter f;
  ASSERT_EQ(model::Parse(built.bytes, /*verify_checksum=*/true, &f), 0) << "the model rejects the filter";
  EXPECT_EQ(reader.num_layers(), c.num_layers);
  ASSERT_EQ(static_cast<int>(f.lines.size()), reader.num_layers());
  EXPECT_EQ(reader.fingerprint_bits(), f.r);
  EXPECT_EQ(reader.seed(), f.seed);
  for (int i = 0; i < reader.num_layers(); ++i) EXPECT_EQ(reader.num_lines(i), f.lines[i]);

  CheckLayerTable(c, built, f, CheckStoredKeys(c, built, reader, f));
  CheckSpareBitsAreZero(f);
  EXPECT_EQ(FirstFalsePositives(c, reader, f), c.first_false_positives);
}

// A filter of no keys: 0 layers, and like every filter a trailer that
// passes FORMAT.md's checks (r in 5..27 included). It answers "no" to
// everything. Its bytes are pinned with the other cases once this holds.
TEST(CompactGoldenEmpty, EmptyFilterParsesAndAnswersNo) {
  CompactFilterBuilder builder({.bits_per_key = 10});
  const std::string bytes = builder.Finish();
  EXPECT_EQ(bytes.size(), model::kTrailerBytes);
  EXPECT_EQ(DetectFilterKind(bytes), FilterKind::kCompact);
  model::Filter f;
  EXPECT_EQ(model::Parse(bytes, /*verify_checksum=*/true, &f), 0) << "FORMAT.md's checks reject the empty filter";
  CompactFilterReader reader;
  const ParseResult result = CompactFilterReader::Parse(bytes, &reader);
  ASSERT_TRUE(result.ok()) << result.message();
  EXPECT_EQ(reader.num_layers(), 0);
  for (uint64_t i = 0; i < 1000; ++i) {
    const std::string key = Named("absent", i);
    EXPECT_FALSE(reader.MayContain(key)) << key;
    EXPECT_FALSE(model::MayContain(f, key)) << key;
  }
}

INSTANTIATE_TEST_SUITE_P(Versions3To7, CompactGolden, ::testing::Range(size_t{0}, Cases().size()),
                         [](const ::testing::TestParamInfo<size_t>& param_info) {
                           return std::string(Cases()[param_info.param].name);
                         });

}  // namespace
}  // namespace linebloom
