// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// The plugin's readers are bound to the probe kernel active when RocksDB
// asks for them, and hash keys of 9 to 16 and of 17 to 32 bytes on paths
// of their own.
// Every kernel's reader must answer exactly as linebloom's API reader does,
// for keys of every length class XXH3 distinguishes, single and batched, at
// probe counts each SIMD kernel takes in one round and in more.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include "linebloom/compact_filter.h"
#include "linebloom/filter_builder.h"
#include "linebloom/filter_options.h"
#include "linebloom/filter_reader.h"
#include "linebloom/kernel.h"
#include "linebloom/rocksdb/testing/policy_filter_builder.h"
#include "linebloom/rocksdb/linebloom_filter_policy.h"

#include "compact_planes.h"

namespace linebloom::rocksdb_plugin {
namespace {

// Keys of 0 to 300 bytes: XXH3's paths are 0, 1-3, 4-8, 9-16, 17-128,
// 129-240 and longer. `salt` makes the present and absent sets disjoint.
std::vector<std::string> KeysOfEveryLength(char salt, size_t per_length) {
  std::vector<std::string> keys;
  for (size_t length = 0; length <= 300; length += (length < 20 ? 1 : 7)) {
    for (size_t i = 0; i < per_length; ++i) {
      std::string key(length, salt);
      for (size_t b = 0; b < length; ++b) key[b] = static_cast<char>(salt + 31 * i + 7 * b + (i >> (b % 8)));
      keys.push_back(std::move(key));
    }
  }
  return keys;
}

std::string_view View(const ::rocksdb::Slice& s) { return {s.data(), s.size()}; }

// The Slices of the present then the absent keys, and pointers to them, as
// MayMatch(num_keys, ...) takes them.
struct KeySlices {
  KeySlices(const std::vector<std::string>& present, const std::vector<std::string>& absent) {
    for (const auto* keys : {&present, &absent}) {
      for (const std::string& key : *keys) slices.emplace_back(key);
    }
    for (::rocksdb::Slice& slice : slices) pointers.push_back(&slice);
  }
  KeySlices(const KeySlices&) = delete;
  std::vector<::rocksdb::Slice> slices;
  std::vector<::rocksdb::Slice*> pointers;
};

class KernelRestorer {
 public:
  ~KernelRestorer() { ForceKernel(saved_); }

 private:
  Kernel saved_ = ActiveKernel();
};

// 4 bits/key: 3 probes, one AVX2 round (and many positives to compare);
// 24 bits/key: more than 8 probes, the readers' other path. Each under hash
// schemes 3 (the policy's default) and 1.
class PluginReaderKernels : public ::testing::TestWithParam<std::tuple<double, int>> {
 protected:
  double Bits() const { return std::get<0>(GetParam()); }
  std::shared_ptr<const LinebloomFilterPolicy> Policy() const {
    LinebloomPolicyOptions options;
    options.bits_per_key = Bits();
    options.hash_scheme = std::get<1>(GetParam());
    return NewLinebloomFilterPolicy(options);
  }
};

TEST_P(PluginReaderKernels, EveryKernelAnswersAsTheApiReader) {
  KernelRestorer restore;
  const auto present = KeysOfEveryLength('a', 40);
  const auto absent = KeysOfEveryLength('q', 400);
  std::vector<std::string_view> present_views(present.begin(), present.end());
  std::vector<std::string_view> absent_views(absent.begin(), absent.end());
  auto policy = Policy();
  const PolicyFilter built = BuildPolicyFilter(*policy, present_views);
  FilterReader api;
  ASSERT_TRUE(FilterReader::Parse(built.bytes(), &api).ok());

  size_t kernels_checked = 0;
  size_t api_positives = 0;
  for (Kernel kernel : {Kernel::kPortable, Kernel::kAvx2, Kernel::kAvx512}) {
    if (!ForceKernel(kernel)) continue;
    ++kernels_checked;
    // A reader made now is bound to this kernel.
    const PolicyFilter filter = PolicyFilter::FromBytes(*policy, built.bytes());
    for (std::string_view key : present_views) {
      ASSERT_TRUE(filter.MayMatch(key)) << KernelName(kernel) << " lost a key of " << key.size() << " bytes";
    }
    std::unique_ptr<bool[]> batch(new bool[absent_views.size()]);
    filter.MayMatchBatch(absent_views, std::span<bool>(batch.get(), absent_views.size()));
    api_positives = 0;
    for (size_t i = 0; i < absent_views.size(); ++i) {
      const bool expected = api.MayContain(absent_views[i]);
      api_positives += expected;
      ASSERT_EQ(filter.MayMatch(absent_views[i]), expected)
          << KernelName(kernel) << ", single, key of " << absent_views[i].size() << " bytes";
      ASSERT_EQ(batch[i], expected) << KernelName(kernel) << ", batch, key of " << absent_views[i].size() << " bytes";
    }
    std::unique_ptr<bool[]> present_batch(new bool[present_views.size()]);
    filter.MayMatchBatch(present_views, std::span<bool>(present_batch.get(), present_views.size()));
    for (size_t i = 0; i < present_views.size(); ++i) ASSERT_TRUE(present_batch[i]) << KernelName(kernel);
  }
  EXPECT_GE(kernels_checked, 1u);
  EXPECT_LT(api_positives, absent.size() / 2);
  EXPECT_EQ(static_cast<int>(api.hash_scheme()), std::get<1>(GetParam()));
  if (Bits() == 4) {
    EXPECT_EQ(api.num_probes(), 3);
    EXPECT_GT(api_positives, absent.size() / 100);  // positives to compare
  } else if (Bits() == 24) {
    EXPECT_GT(api.num_probes(), 8);  // past AVX2's one round
    EXPECT_LE(api.num_probes(), 16);
  } else {
    EXPECT_GT(api.num_probes(), 16);  // past AVX-512's one round
  }
}

INSTANTIATE_TEST_SUITE_P(OneRoundAndMore, PluginReaderKernels,
                         ::testing::Combine(::testing::Values(4.0, 24.0, 48.0), ::testing::Values(3, 1)));

// MayMatch(num_keys, ...) straight on a reader, with batches of every size
// up to and past RocksDB's 32: a batch of at most 32 keys and a larger one
// take different paths (bits_readers.cc), and each must answer as single
// queries do, in every position of the batch.
TEST_P(PluginReaderKernels, BatchesOfAnySizeAnswerAsSingleQueries) {
  KernelRestorer restore;
  const auto present = KeysOfEveryLength('c', 3);
  const auto absent = KeysOfEveryLength('x', 12);
  std::vector<std::string_view> present_views(present.begin(), present.end());
  auto policy = Policy();
  const PolicyFilter built = BuildPolicyFilter(*policy, present_views);
  const ::rocksdb::Slice contents(built.bytes().data(), built.bytes().size());
  KeySlices keys(present, absent);
  const std::vector<::rocksdb::Slice>& slices = keys.slices;
  ::rocksdb::Slice** const pointers = keys.pointers.data();
  for (Kernel kernel : {Kernel::kPortable, Kernel::kAvx2, Kernel::kAvx512}) {
    if (!ForceKernel(kernel)) continue;
    std::unique_ptr<::rocksdb::FilterBitsReader> reader(policy->GetFilterBitsReader(contents));
    std::vector<bool> single;
    for (const ::rocksdb::Slice& slice : slices) single.push_back(reader->MayMatch(slice));
    for (size_t i = 0; i < present.size(); ++i) ASSERT_TRUE(single[i]) << KernelName(kernel);
    for (int batch : {1, 2, 7, 8, 31, 32, 33, 64, 100}) {
      std::unique_ptr<bool[]> answers(new bool[batch]);
      for (size_t start = 0; start + batch <= slices.size(); start += batch) {
        reader->MayMatch(batch, pointers + start, answers.get());
        for (int i = 0; i < batch; ++i) {
          ASSERT_EQ(answers[i], single[start + i]) << KernelName(kernel) << ", batch of " << batch << ", key " << i;
        }
      }
    }
    bool untouched = true;
    reader->MayMatch(0, pointers, &untouched);
    EXPECT_TRUE(untouched) << KernelName(kernel);
  }
}

// The filter bytes wherever RocksDB's buffer puts them: at any offset from
// a cache line but 0 the blocks straddle two lines. Every kernel's reader,
// single and batched, must answer as the API's reader of the filter as
// built.
TEST_P(PluginReaderKernels, FilterAtAnyOffsetFromALineAnswersAsTheApiReader) {
  KernelRestorer restore;
  const auto present = KeysOfEveryLength('e', 8);
  const auto absent = KeysOfEveryLength('z', 60);
  std::vector<std::string_view> present_views(present.begin(), present.end());
  auto policy = Policy();
  const PolicyFilter built = BuildPolicyFilter(*policy, present_views);
  FilterReader api;
  ASSERT_TRUE(FilterReader::Parse(built.bytes(), &api).ok());
  KeySlices keys(present, absent);
  const std::vector<::rocksdb::Slice>& slices = keys.slices;
  ::rocksdb::Slice** const pointers = keys.pointers.data();
  std::vector<char> buffer(built.bytes().size() + 2 * 64);
  const size_t to_line = (64 - reinterpret_cast<uintptr_t>(buffer.data()) % 64) % 64;
  for (size_t off : {0, 1, 15, 16, 17, 31, 32, 33, 47, 48, 63}) {
    char* const at = buffer.data() + to_line + off;
    std::copy(built.bytes().begin(), built.bytes().end(), at);
    const ::rocksdb::Slice contents(at, built.bytes().size());
    for (Kernel kernel : {Kernel::kPortable, Kernel::kAvx2, Kernel::kAvx512}) {
      if (!ForceKernel(kernel)) continue;
      std::unique_ptr<::rocksdb::FilterBitsReader> reader(policy->GetFilterBitsReader(contents));
      std::vector<bool> expected;
      for (const ::rocksdb::Slice& slice : slices) expected.push_back(api.MayContain(View(slice)));
      for (size_t i = 0; i < slices.size(); ++i) {
        ASSERT_EQ(reader->MayMatch(slices[i]), expected[i])
            << KernelName(kernel) << ", offset " << off << ", key " << i;
      }
      for (int batch : {8, 32, 100}) {
        std::unique_ptr<bool[]> answers(new bool[batch]);
        for (size_t start = 0; start + batch <= slices.size(); start += batch) {
          reader->MayMatch(batch, pointers + start, answers.get());
          for (int i = 0; i < batch; ++i) {
            ASSERT_EQ(answers[i], expected[start + i])
                << KernelName(kernel) << ", offset " << off << ", batch of " << batch << ", key " << start + i;
          }
        }
      }
    }
  }
}

// A filter of several MiB in a plain heap buffer, as RocksDB holds it: the
// reader collapses its whole 2 MiB pages into huge pages where it is created
// (huge_pages.h). The bytes must not change, and the reader must answer as
// the API's reader does on the filter as built.
TEST(PluginReaderLargeFilter, HugePagesCollapsedWhereRocksDbHoldsItChangeNoAnswer) {
  constexpr size_t kKeys = 6'000'000;  // ~7.2 MiB at 10 bits/key: 2+ whole huge pages
  std::vector<std::string> present(kKeys);
  for (size_t i = 0; i < kKeys; ++i) present[i].append("k").append(std::to_string(i));  // short: no heap per key
  std::vector<std::string_view> views(present.begin(), present.end());
  auto policy = NewLinebloomFilterPolicy(10);
  const PolicyFilter built = BuildPolicyFilter(*policy, views);
  ASSERT_GT(built.bytes().size(), size_t{6} << 20);
  FilterReader api;
  ASSERT_TRUE(FilterReader::Parse(built.bytes(), &api).ok());

  const PolicyFilter held = PolicyFilter::FromBytes(*policy, built.bytes());
  ASSERT_EQ(held.bytes(), built.bytes());  // the same bytes after the reader was made
  for (size_t i = 0; i < kKeys; i += 7) ASSERT_TRUE(held.MayMatch(views[i])) << "lost key " << i;
  size_t positives = 0;
  for (size_t i = 0; i < 200'000; ++i) {
    const std::string absent = std::string("a").append(std::to_string(i));
    const bool expected = api.MayContain(absent);
    positives += expected;
    ASSERT_EQ(held.MayMatch(absent), expected) << absent;
  }
  EXPECT_LT(positives, 200'000u / 50);  // ~1 % at 10 bits/key
}

// The readers of filters with seed 0 (every filter the plugin writes) hash
// with the seed as a constant; a filter built with another seed (by
// linebloom's API) takes the reader that loads it. Both kinds, every
// kernel, single and batched: the answers are the API reader's, and a
// filter of one seed must not be read with the other (the checks below
// would then lose present keys).
template <typename Builder, typename ApiReader>
void ExpectPluginAnswersAsApiForSeed(uint32_t seed, double bits_per_key, KeyHashScheme scheme = KeyHashScheme::kXxh3) {
  KernelRestorer restore;
  const auto present = KeysOfEveryLength('s', 20);
  const auto absent = KeysOfEveryLength('k', 200);
  FilterOptions options;
  options.bits_per_key = bits_per_key;
  options.seed = seed;
  options.hash_scheme = scheme;  // the Bloom filter's; the compact kind has its own
  Builder builder(options);
  for (const std::string& key : present) builder.AddKey(key);
  const std::string bytes = builder.Finish();
  ApiReader api;
  ASSERT_TRUE(ApiReader::Parse(bytes, &api).ok());
  ASSERT_EQ(api.seed(), seed);
  KeySlices keys(present, absent);
  std::vector<bool> expected;
  for (const ::rocksdb::Slice& slice : keys.slices) expected.push_back(api.MayContain(View(slice)));
  for (size_t i = 0; i < present.size(); ++i) ASSERT_TRUE(expected[i]);
  auto policy = NewLinebloomFilterPolicy(bits_per_key);
  const ::rocksdb::Slice contents(bytes.data(), bytes.size());
  size_t kernels_checked = 0;
  for (Kernel kernel : {Kernel::kPortable, Kernel::kAvx2, Kernel::kAvx512}) {
    if (!ForceKernel(kernel)) continue;
    ++kernels_checked;
    std::unique_ptr<::rocksdb::FilterBitsReader> reader(policy->GetFilterBitsReader(contents));
    for (size_t i = 0; i < keys.slices.size(); ++i) {
      ASSERT_EQ(reader->MayMatch(keys.slices[i]), expected[i])
          << KernelName(kernel) << ", seed " << seed << ", key " << i;
    }
    constexpr int kBatch = 32;
    bool answers[kBatch];
    for (size_t start = 0; start + kBatch <= keys.slices.size(); start += kBatch) {
      reader->MayMatch(kBatch, keys.pointers.data() + start, answers);
      for (int i = 0; i < kBatch; ++i) {
        ASSERT_EQ(answers[i], expected[start + i]) << KernelName(kernel) << ", seed " << seed << ", batch key " << i;
      }
    }
  }
  EXPECT_GE(kernels_checked, 1u);
}

TEST(PluginReaderSeeds, BloomFiltersOfAnySeedAnswerAsTheApiReader) {
  for (KeyHashScheme scheme : {KeyHashScheme::kXxh3, KeyHashScheme::kShortKeyMultiply}) {
    for (uint32_t seed : {0u, 1u, 0x9E3779B9u}) {
      ExpectPluginAnswersAsApiForSeed<FilterBuilder, FilterReader>(seed, 10, scheme);
    }
  }
}

// Under the AVX2 kernel, the compact readers with VPCLMULQDQ and without
// (where the CPU has it; the API reader parsed alike).
TEST(PluginReaderSeeds, CompactFiltersOfAnySeedAnswerAsTheApiReader) {
  for (bool vpclmul : {false, true}) {
    internal::compact::EnableCompactVpclmulForTesting(vpclmul);
    if (vpclmul && !internal::compact::CompactVpclmulSupported()) {
      GTEST_LOG_(INFO) << "compact AVX2 form with VPCLMULQDQ not supported here: skipped";
      continue;
    }
    for (uint32_t seed : {0u, 1u, 0x9E3779B9u}) {
      ExpectPluginAnswersAsApiForSeed<CompactFilterBuilder, CompactFilterReader>(seed, 8);
    }
  }
}

}  // namespace
}  // namespace linebloom::rocksdb_plugin
