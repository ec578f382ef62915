// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// Golden values for filter format versions 1 and 2 (version 1 with lead
// bytes before the blocks), under hash schemes 1 and 3. Filters on disk outlive the code
// that wrote them, so a change to where a key lands (the hash, the block
// choice, the probe sequence) or to the trailer must fail a test rather than
// quietly make old filters answer "no" for keys they hold.
//
// Each case pins two things, on every probe kernel the CPU has (portable,
// AVX2, AVX-512; the others are reported as skipped):
//   * the whole filter: XXH3-128 of its bytes, blocks and trailer, and that
//     those bytes equal the independent model of docs/FORMAT.md
//     (tests/support/reference_filter.h), so a golden value can only be
//     replaced by one the written format also produces;
//   * the reader: the indices of the first false positives in a fixed
//     sequence of absent queries, through the single, batch and hash paths.
// The golden values were computed once and checked against the model; a
// mismatch means the format changed, which needs a new format version (or
// hash-scheme id), not a new golden value.
//
// CTest runs this binary a second time with LINEBLOOM_HUGE_PAGES=0, where the
// filter above 1 MiB is built by the partitioned path; both paths must give
// the same golden bytes.

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <ostream>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "linebloom/filter_builder.h"
#include "linebloom/filter_options.h"
#include "linebloom/filter_reader.h"
#include "linebloom/kernel.h"
#include "linebloom/key_hash.h"
#include "support/golden_keys.h"
#include "support/reference_filter.h"

namespace linebloom {

// Names the kernel in GoogleTest's messages.
void PrintTo(Kernel kernel, std::ostream* os) { *os << KernelName(kernel); }

namespace {

using golden::Named;
using golden::RandomHashes;
using golden::Xxh128Hex;

// A filter built from string keys or from raw hashes (`raw_hashes`).
struct GoldenCase {
  const char* name;
  FilterOptions options;
  size_t num_keys;
  bool raw_hashes;
  const char* xxh128;                         // of the whole filter
  std::vector<size_t> first_false_positives;  // indices into the absent queries
  size_t lead_bytes = 0;                      // FilterBuilder::SetLeadBytes: version 2
  const char* key_prefix = "key";             // string keys: prefix + index
};

constexpr size_t kFalsePositivesPinned = 8;
constexpr size_t kMaxAbsentQueries = size_t{1} << 20;

const std::vector<GoldenCase>& Cases() {
  // One case per two lines, a table (so not left to clang-format).
  // clang-format off
  static const std::vector<GoldenCase> cases = {
      {"Empty", {.bits_per_key = 10}, 0, false,
       "15087cf8c9b8834061148594550ee77b", {}},
      // Two blocks give 10.24 bits per key, for which k = 7 is the optimum.
      {"HundredKeys", {.bits_per_key = 10}, 100, false,
       "7a3c3e102c56a9f90382d43daecf6d68", {145, 318, 497, 536, 750, 759, 813, 832}},
      {"TenThousandKeysSeeded", {.bits_per_key = 10, .seed = 0x5eed}, 10000, false,
       "a2dac4953dbdd6b4f29f13ccf98af364", {48, 149, 345, 595, 695, 814, 945, 1272}},
      {"FractionalBitsPerKey", {.bits_per_key = 7.3, .seed = 3}, 20000, false,
       "2b3c785d9ccb95e0345e4c1699184144", {1, 15, 33, 39, 52, 66, 75, 98}},
      {"ForOnePerMille", FilterOptions::ForFalsePositiveRate(0.001, 11), 3000, false,
       "bc208a2b79fbdf816a7ca8ad1c69b2a0", {350, 471, 1248, 1374, 1767, 2872, 4689, 4952}},
      {"OneProbe", {.bits_per_key = 4, .num_probes = 1, .seed = 1}, 5000, true,
       "e39377f15971bee3f553149ff6167342", {0, 2, 4, 5, 12, 13, 18, 26}},
      {"EightProbes", {.bits_per_key = 8, .num_probes = 8, .seed = 8}, 5000, true,
       "05b352c7ec532ddc5dd94f9e41412662", {9, 10, 42, 107, 175, 253, 267, 324}},
      {"SixteenProbes", {.bits_per_key = 16, .num_probes = 16, .seed = 16}, 5000, true,
       "490c09e934198ee8a748badd35aef4b6", {405, 1170, 1876, 2617, 2665, 2993, 3358, 3523}},
      {"TwentyFourProbes", {.bits_per_key = 24, .num_probes = 24, .seed = 24}, 5000, true,
       "b0ac8f0e0a7601b851c76143a8b237fe", {1910, 3748, 4091, 4376, 5258, 12154, 17213, 21517}},
      // Above 1 MiB: partitioned when huge pages are off (see the top).
      {"AboveOneMebibyte", {.bits_per_key = 10, .seed = 42}, 900000, false,
       "18d75d0b6f60b50f110e1419f6a7320c", {269, 1028, 1060, 1096, 1104, 1131, 1304, 1379}},
      // Version 2: the blocks of HundredKeys and AboveOneMebibyte after lead
      // bytes, so the same false positives.
      {"HundredKeysAfterLead48", {.bits_per_key = 10}, 100, false,
       "b17d24ec82e463dad378a6e948b12afa", {145, 318, 497, 536, 750, 759, 813, 832}, 48},
      {"AboveOneMebibyteAfterLead16", {.bits_per_key = 10, .seed = 42}, 900000, false,
       "ad73b861179f2a2e72b32a19890ce011", {269, 1028, 1060, 1096, 1104, 1131, 1304, 1379}, 16},
      // Hash scheme 3: keys of 10 to 13 bytes (and absent keys of 7 to 13)
      // by one multiply, keys of 32 to 35 bytes by XXH3; one after lead bytes.
      {"ShortKeyMultiply", {.bits_per_key = 10, .seed = 0x5eed, .hash_scheme = KeyHashScheme::kShortKeyMultiply},
       10000, false, "4304935840622d9e963c4fc1b96033f5", {137, 147, 347, 375, 517, 546, 645, 793}, 0, "user_key_"},
      {"ShortKeyMultiplyLongKeys", {.bits_per_key = 9, .seed = 7, .hash_scheme = KeyHashScheme::kShortKeyMultiply},
       3000, false, "baeb4b7b486a380db6aa4cf62f4ce60c", {64, 73, 220, 228, 261, 362, 504, 516}, 0, "a-key-longer-than-sixteen-bytes-"},
      {"ShortKeyMultiplyAfterLead48", {.bits_per_key = 10, .seed = 0x5eed,
       .hash_scheme = KeyHashScheme::kShortKeyMultiply}, 10000, false, "75552d082b6ce59ed93717fefef07969", {137, 147, 347, 375, 517, 546, 645, 793}, 48, "user_key_"},
  };
  // clang-format on
  return cases;
}

struct Built {
  std::string bytes;
  std::vector<uint64_t> hashes;  // what the model is built from
};

Built Build(const GoldenCase& c) {
  FilterBuilder builder(c.options);
  builder.SetLeadBytes(c.lead_bytes);
  Built built;
  if (c.raw_hashes) {
    built.hashes = RandomHashes(c.options.seed, c.num_keys);
    for (uint64_t h : built.hashes) builder.AddHash(h);
  } else {
    for (size_t i = 0; i < c.num_keys; ++i) {
      const std::string key = Named(c.key_prefix, i);
      builder.AddKey(key);
      built.hashes.push_back(reference::Hash(key, c.options.seed, static_cast<int>(c.options.hash_scheme)));
    }
  }
  built.bytes = builder.Finish();
  return built;
}

// The indices of the first kFalsePositivesPinned absent queries the reader
// answers "may contain", checked to be the same through every query path.
std::vector<size_t> FirstFalsePositives(const GoldenCase& c, const FilterReader& reader) {
  constexpr size_t kChunk = 4096;
  std::vector<size_t> found;
  for (size_t start = 0; start < kMaxAbsentQueries && found.size() < kFalsePositivesPinned; start += kChunk) {
    std::vector<std::string> keys;
    std::vector<std::string_view> views;
    std::vector<uint64_t> hashes;
    if (c.raw_hashes) {
      // Absent hashes: a different generator seed than the inserted ones.
      std::mt19937_64 rng(~uint64_t{c.options.seed});
      rng.discard(start);
      for (size_t i = 0; i < kChunk; ++i) hashes.push_back(rng());
    } else {
      for (size_t i = 0; i < kChunk; ++i) keys.push_back(Named("absent", start + i));
      for (const std::string& k : keys) {
        views.push_back(k);
        hashes.push_back(KeyHash(k, c.options.seed, c.options.hash_scheme));
      }
    }
    auto by_hash = std::make_unique<bool[]>(kChunk);
    reader.MayContainHashBatch(hashes, std::span<bool>(by_hash.get(), kChunk));
    auto by_key = std::make_unique<bool[]>(kChunk);
    if (!c.raw_hashes) reader.MayContainBatch(views, std::span<bool>(by_key.get(), kChunk));
    for (size_t i = 0; i < kChunk; ++i) {
      const bool single = c.raw_hashes ? reader.MayContainHash(hashes[i]) : reader.MayContain(keys[i]);
      const bool model =
          reference::MayContainHash(reader.blocks(), reader.num_blocks(), reader.num_probes(), hashes[i]);
      if (by_hash[i] != single || (!c.raw_hashes && by_key[i] != single) || model != single) {
        ADD_FAILURE() << "query paths or the model disagree at absent query " << start + i;
        return found;
      }
      if (single && found.size() < kFalsePositivesPinned) found.push_back(start + i);
    }
  }
  return found;
}

using GoldenParam = std::tuple<Kernel, size_t /*index into Cases()*/>;

class GoldenFilter : public ::testing::TestWithParam<GoldenParam> {
 protected:
  void SetUp() override {
    const Kernel kernel = std::get<0>(GetParam());
    if (!KernelSupported(kernel)) GTEST_SKIP() << "CPU lacks the " << KernelName(kernel) << " kernel";
    ASSERT_TRUE(ForceKernel(kernel));
  }
  void TearDown() override { ForceKernel(initial_); }
  Kernel initial_ = ActiveKernel();
};

TEST_P(GoldenFilter, WholeFilterBytesAndFirstFalsePositivesArePinned) {
  const GoldenCase& c = Cases()[std::get<1>(GetParam())];
  const Built built = Build(c);
  EXPECT_EQ(Xxh128Hex(built.bytes), c.xxh128) << built.bytes.size() << " bytes";
  FilterReader reader;
  ASSERT_TRUE(FilterReader::Parse(built.bytes, &reader).ok());
  // The model is given the size and k the filter states (the golden value
  // pins those choices); the bits and the trailer are its own.
  ASSERT_EQ(reader.hash_scheme(), c.options.hash_scheme);
  const std::string model = reference::Build(built.hashes, reader.num_blocks(), reader.num_probes(), c.options.seed,
                                             c.lead_bytes, static_cast<int>(c.options.hash_scheme));
  ASSERT_TRUE(built.bytes == model) << "the filter no longer matches docs/FORMAT.md's model";
  EXPECT_EQ(FirstFalsePositives(c, reader), c.first_false_positives);
}

INSTANTIATE_TEST_SUITE_P(EveryKernel, GoldenFilter,
                         ::testing::Combine(::testing::Values(Kernel::kPortable, Kernel::kAvx2, Kernel::kAvx512),
                                            ::testing::Range(size_t{0}, Cases().size())),
                         [](const ::testing::TestParamInfo<GoldenParam>& param_info) {
                           return std::string(Cases()[std::get<1>(param_info.param)].name) + "_" +
                                  KernelName(std::get<0>(param_info.param));
                         });

}  // namespace
}  // namespace linebloom
