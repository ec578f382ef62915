// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// Builder and reader: no false negatives, batch == single, round trips, and
// every malformed input rejected with its own error.

#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "linebloom/filter_builder.h"
#include "linebloom/filter_reader.h"

namespace linebloom {
namespace {

std::string Key(uint64_t i, size_t length) {
  // Deterministic keys of an exact length; the index is spread over the
  // first 8 bytes (or fewer) so keys of one length are distinct.
  std::string key(length, 'k');
  for (size_t b = 0; b < length && b < 8; ++b) key[b] = static_cast<char>(i >> (8 * b));
  if (length > 8) key[length - 1] = static_cast<char>(i * 131);
  return key;
}

// (Built with append: GCC 12 warns falsely about operator+ on to_string.)
std::string Named(const char* prefix, uint64_t i) { return std::string(prefix).append(std::to_string(i)); }

FilterReader MustParse(const std::string& bytes) {
  FilterReader reader;
  ParseResult result = FilterReader::Parse(bytes, &reader);
  EXPECT_TRUE(result.ok()) << result.message();
  return reader;
}

using NoFalseNegativesParam = std::tuple<size_t /*keys*/, double /*bits_per_key*/, uint32_t /*seed*/>;
class NoFalseNegatives : public ::testing::TestWithParam<NoFalseNegativesParam> {};

TEST_P(NoFalseNegatives, EveryAddedKeyMayBeContained) {
  const auto [num_keys, bits_per_key, seed] = GetParam();
  FilterBuilder builder({.bits_per_key = bits_per_key, .seed = seed});
  for (uint64_t i = 0; i < num_keys; ++i) builder.AddKey(Named("key-", i));
  EXPECT_EQ(builder.NumKeys(), num_keys);
  const std::string bytes = builder.Finish();
  const FilterReader reader = MustParse(bytes);
  EXPECT_EQ(reader.seed(), seed);
  size_t false_negatives = 0;
  for (uint64_t i = 0; i < num_keys; ++i) false_negatives += !reader.MayContain(Named("key-", i));
  EXPECT_EQ(false_negatives, 0u);
}

INSTANTIATE_TEST_SUITE_P(KeyCountsBitsSeeds, NoFalseNegatives,
                         ::testing::Combine(::testing::Values(0, 1, 2, 7, 100, 4096, 100000),
                                            ::testing::Values(1.0, 6.0, 9.9, 10.0, 16.0, 20.0, 50.0),
                                            ::testing::Values(0u, 1u, 0xDEADBEEFu)));
INSTANTIATE_TEST_SUITE_P(Millions, NoFalseNegatives,
                         ::testing::Values(NoFalseNegativesParam{2'000'000, 10.0, 7},
                                           NoFalseNegativesParam{1'000'000, 4.5, 0}));

TEST(FilterTest, KeysOfEveryLengthFromZeroToOneKiB) {
  FilterBuilder builder({.bits_per_key = 10});
  for (size_t length = 0; length <= 1024; ++length) {
    for (uint64_t i = 0; i < 4; ++i) builder.AddKey(Key(i + length * 4, length));
  }
  const std::string bytes = builder.Finish();
  const FilterReader reader = MustParse(bytes);
  for (size_t length = 0; length <= 1024; ++length) {
    for (uint64_t i = 0; i < 4; ++i) EXPECT_TRUE(reader.MayContain(Key(i + length * 4, length))) << length;
  }
}

TEST(FilterTest, EmptyFilterAnswersNo) {
  FilterBuilder builder;
  const std::string bytes = builder.Finish();
  EXPECT_EQ(bytes.size(), 16u);  // the trailer alone
  const FilterReader reader = MustParse(bytes);
  EXPECT_EQ(reader.num_blocks(), 0u);
  EXPECT_FALSE(reader.MayContain(""));
  EXPECT_FALSE(reader.MayContain("anything"));
  std::vector<std::string_view> keys = {"a", "b", "c"};
  bool out[3] = {true, true, true};
  reader.MayContainBatch(keys, out);
  EXPECT_FALSE(out[0] || out[1] || out[2]);
  EXPECT_FALSE(FilterReader().MayContainHash(42));
}

TEST(FilterTest, AdjacentDuplicatesAreDroppedAndDoNotChangeTheFilter) {
  FilterBuilder once, twice;
  for (int i = 0; i < 1000; ++i) {
    once.AddKey(std::to_string(i));
    twice.AddKey(std::to_string(i));
    twice.AddKey(std::to_string(i));
  }
  EXPECT_EQ(twice.NumKeys(), 1000u);
  EXPECT_EQ(once.Finish(), twice.Finish());
}

TEST(FilterTest, FinishResetsTheBuilder) {
  FilterBuilder builder;
  builder.AddKey("a");
  builder.Finish();
  EXPECT_EQ(builder.NumKeys(), 0u);
  EXPECT_EQ(builder.Finish().size(), 16u);
}

TEST(FilterTest, SizeFollowsBitsPerKeyIncludingFractions) {
  EXPECT_EQ(NumBlocksFor(0, 10), 0u);
  EXPECT_EQ(NumBlocksFor(1, 10), 1u);
  EXPECT_EQ(NumBlocksFor(1000, 10), 20u);       // ceil(10000 / 512)
  EXPECT_EQ(NumBlocksFor(100000, 9.9), 1934u);  // ceil(990000 / 512)
  EXPECT_EQ(NumBlocksFor(100000, 10), 1954u);   // ceil(1000000 / 512)
  FilterBuilder builder({.bits_per_key = 9.9});
  for (int i = 0; i < 100000; ++i) builder.AddKey(std::to_string(i));
  EXPECT_EQ(builder.FinishedSize(), 1934u * 64 + 16);
  EXPECT_EQ(builder.Finish().size(), 1934u * 64 + 16);
}

TEST(FilterTest, ProbesAreChosenForTheBlockedFilterAndCanBeForced) {
  EXPECT_EQ(FilterBuilder({.bits_per_key = 10}).num_probes(), 6);
  EXPECT_EQ(FilterBuilder({.bits_per_key = 20}).num_probes(), 11);  // not 14 = 20 ln 2
  EXPECT_EQ(FilterBuilder({.bits_per_key = 10, .num_probes = 3}).num_probes(), 3);
  EXPECT_EQ(FilterBuilder({.bits_per_key = 10, .num_probes = 99}).num_probes(), kMaxProbes);
  FilterBuilder forced({.bits_per_key = 10, .num_probes = 3});
  forced.AddKey("x");
  const std::string bytes = forced.Finish();
  EXPECT_EQ(MustParse(bytes).num_probes(), 3);
}

// Resizing after the keys are in builds what a builder made with the new
// bits builds; forced probes stay forced.
TEST(FilterTest, SetBitsPerKeyEqualsBuildingWithThoseBits) {
  FilterBuilder resized({.bits_per_key = 10});
  FilterBuilder direct({.bits_per_key = 27.5});
  for (int i = 0; i < 5000; ++i) {
    resized.AddKey(std::to_string(i));
    direct.AddKey(std::to_string(i));
  }
  resized.SetBitsPerKey(27.5);
  EXPECT_EQ(resized.num_probes(), direct.num_probes());
  EXPECT_EQ(resized.Finish(), direct.Finish());
  FilterBuilder forced({.bits_per_key = 10, .num_probes = 3});
  forced.AddKey("x");
  forced.SetBitsPerKey(20);
  EXPECT_EQ(forced.num_probes(), 3);
  EXPECT_EQ(MustParse(forced.Finish()).num_blocks(), 1u);
}

TEST(FilterTest, FalsePositiveRateSizing) {
  const FilterOptions options = FilterOptions::ForFalsePositiveRate(0.01);
  EXPECT_GT(options.bits_per_key, 9.0);
  EXPECT_LT(options.bits_per_key, 10.0);  // 10 bits/key gives 0.966 % < 1 %
  EXPECT_EQ(options.num_probes, 6);
}

TEST(FilterTest, BatchAndSingleQueriesAgreeOnEveryKey) {
  FilterBuilder builder({.bits_per_key = 6});  // many false positives to compare
  for (int i = 0; i < 50000; i += 2) builder.AddKey(Named("k", i));
  const std::string bytes = builder.Finish();
  const FilterReader reader = MustParse(bytes);

  std::vector<std::string> storage;
  for (int i = 0; i < 50000; ++i) storage.push_back(Named("k", i));
  std::mt19937_64 rng(1);
  size_t pos = 0;
  while (pos < storage.size()) {
    const size_t n = std::min<size_t>(rng() % 130 + 1, storage.size() - pos);  // odd sizes too
    std::vector<std::string_view> keys(storage.begin() + pos, storage.begin() + pos + n);
    std::vector<uint64_t> hashes;
    for (auto k : keys) hashes.push_back(KeyHash(k, reader.seed()));
    std::unique_ptr<bool[]> by_key(new bool[n]), by_hash(new bool[n]);
    reader.MayContainBatch(keys, std::span<bool>(by_key.get(), n));
    reader.MayContainHashBatch(hashes, std::span<bool>(by_hash.get(), n));
    for (size_t i = 0; i < n; ++i) {
      ASSERT_EQ(by_key[i], reader.MayContain(keys[i])) << keys[i];
      ASSERT_EQ(by_hash[i], reader.MayContainHash(hashes[i])) << keys[i];
    }
    pos += n;
  }
}

// The builder keeps hashes in chunks (64 up to 256 Ki hashes per chunk, or
// what Reserve asks for); the filter must not depend on where chunks begin,
// on Reserve, or on reuse after Finish -- including an adjacent duplicate
// that arrives right after a chunk boundary. 900 000 keys make a filter above
// 1 MiB, which filter_test_without_huge_pages (LINEBLOOM_HUGE_PAGES=0) builds
// by the partitioned path.
TEST(FilterTest, ChunkBoundariesReserveAndReuseDoNotChangeTheFilter) {
  for (size_t n : {size_t{1}, size_t{63}, size_t{64}, size_t{65}, size_t{1000}, size_t{70000}, size_t{900000}}) {
    SCOPED_TRACE(n);
    FilterBuilder plain;
    for (size_t i = 0; i < n; ++i) plain.AddKey(Named("k", i));
    const std::string expected = plain.Finish();

    FilterBuilder reserved;
    reserved.Reserve(n);
    for (size_t i = 0; i < n; ++i) reserved.AddKey(Named("k", i));
    EXPECT_EQ(reserved.Finish(), expected);

    FilterBuilder reserved_midway;
    for (size_t i = 0; i < n; ++i) {
      reserved_midway.AddKey(Named("k", i));
      if (i == n / 3) {
        reserved_midway.Reserve(n + 1000);
        reserved_midway.AddKey(Named("k", i));  // a duplicate across the new chunk
      }
    }
    EXPECT_EQ(reserved_midway.NumKeys(), n);
    EXPECT_EQ(reserved_midway.Finish(), expected);

    // `plain` was reset by Finish; building again reuses its first chunk.
    for (size_t i = 0; i < n; ++i) plain.AddKey(Named("k", i));
    EXPECT_EQ(plain.Finish(), expected);
  }
}

TEST(FilterTest, BuildingFromHashesEqualsBuildingFromKeys) {
  FilterBuilder from_keys({.seed = 9}), from_hashes({.seed = 9});
  for (int i = 0; i < 5000; ++i) {
    from_keys.AddKey(std::to_string(i));
    from_hashes.AddHash(KeyHash(std::to_string(i), 9));
  }
  EXPECT_EQ(from_keys.Finish(), from_hashes.Finish());
}

// Batches of every size up to past a chunk (the first chunk holds 64
// hashes), mixed with single adds, across two filters of one builder: the
// same bytes and key count as AddHash of each.
TEST(FilterTest, AddDistinctHashesEqualsAddHashOfEach) {
  std::mt19937_64 rng(5);
  FilterBuilder one_by_one({.seed = 3}), batched({.seed = 3});
  for (int filter = 0; filter < 2; ++filter) {
    std::vector<uint64_t> hashes(7000);
    for (uint64_t& h : hashes) h = rng();
    size_t start = 0;
    for (size_t batch = 0; start < hashes.size(); ++batch) {
      const size_t n = std::min(batch % 150, hashes.size() - start);
      const std::span<const uint64_t> part(hashes.data() + start, n);
      if (batch % 3 == 0 && n > 0) {
        batched.AddHash(part[0]);
        batched.AddDistinctHashes(part.subspan(1));
      } else {
        batched.AddDistinctHashes(part);
      }
      for (uint64_t h : part) one_by_one.AddHash(h);
      start += n;
      ASSERT_EQ(batched.NumKeys(), one_by_one.NumKeys());
    }
    EXPECT_EQ(batched.NumKeys(), hashes.size());
    EXPECT_EQ(batched.Finish(), one_by_one.Finish());
  }
}

TEST(FilterTest, RoundTripThroughACopyOfTheBytes) {
  FilterBuilder builder({.bits_per_key = 12, .seed = 77});
  for (int i = 0; i < 3000; ++i) builder.AddKey(std::to_string(i));
  const std::string original = builder.Finish();
  const std::string copy(original.begin(), original.end());  // parsed where it lands
  const FilterReader a = MustParse(original), b = MustParse(copy);
  EXPECT_EQ(a.num_blocks(), b.num_blocks());
  EXPECT_EQ(a.num_probes(), 8);
  for (int i = 0; i < 6000; ++i) EXPECT_EQ(a.MayContain(std::to_string(i)), b.MayContain(std::to_string(i)));
}

// The byte format is a contract with filters already on disk: the trailer
// bytes of format version 1, spelled out. golden_test pins whole filters.
TEST(FilterTest, FormatIsStable) {
  FilterBuilder builder({.bits_per_key = 10, .seed = 0});
  for (int i = 0; i < 100; ++i) builder.AddKey(Named("key", i));
  const std::string bytes = builder.Finish();
  ASSERT_EQ(bytes.size(), 2u * 64 + 16);
  // k = 7, the blocked optimum for the 1024 / 100 = 10.24 bits per key the
  // two blocks give (6 would be the optimum for the 10 asked for).
  EXPECT_EQ(bytes.substr(bytes.size() - 16, 12), std::string("\0\0\0\0\x07\x01\0\x01LBLM", 12));
  EXPECT_EQ(KeyHash("key0", 0), KeyHash(std::string_view("key0"), 0));
  EXPECT_EQ(KeyHash("", 0), 0x2D06800538D394C2ull);  // XXH3-64("") with seed 0
}

// --- malformed input: each case gets its own error -------------------------

std::string ValidFilter() {
  FilterBuilder builder;
  for (int i = 0; i < 200; ++i) builder.AddKey(std::to_string(i));
  return builder.Finish();
}

ParseError ParseOf(const std::string& bytes, bool verify = true) {
  FilterReader reader;
  return FilterReader::Parse(bytes, &reader, {.verify_checksum = verify}).error;
}

TEST(MalformedFilter, TooShort) {
  EXPECT_EQ(ParseOf(""), ParseError::kTooShort);
  EXPECT_EQ(ParseOf(std::string(15, '\0')), ParseError::kTooShort);
  const std::string valid = ValidFilter();
  EXPECT_EQ(ParseOf(valid.substr(valid.size() - 15)), ParseError::kTooShort);
}

TEST(MalformedFilter, BadMagic) {
  std::string bytes = ValidFilter();
  bytes[bytes.size() - 8] ^= 1;
  EXPECT_EQ(ParseOf(bytes), ParseError::kBadMagic);
  EXPECT_EQ(ParseOf(std::string(64, 'x')), ParseError::kBadMagic);
}

TEST(MalformedFilter, FutureVersionIsRejectedBeforeAnythingElse) {
  std::string bytes = ValidFilter();
  bytes[bytes.size() - 9] = 3;
  bytes[bytes.size() - 12] = 0;  // k = 0 would also be wrong in versions 1 and 2
  EXPECT_EQ(ParseOf(bytes, false), ParseError::kUnsupportedVersion);
  EXPECT_EQ(ParseOf(bytes, true), ParseError::kUnsupportedVersion);
}

TEST(MalformedFilter, ProbesOutOfRange) {
  std::string bytes = ValidFilter();
  bytes[bytes.size() - 12] = 0;
  EXPECT_EQ(ParseOf(bytes, false), ParseError::kBadProbes);
  bytes[bytes.size() - 12] = kMaxProbes + 1;
  EXPECT_EQ(ParseOf(bytes, false), ParseError::kBadProbes);
}

TEST(MalformedFilter, UnknownHashScheme) {
  std::string bytes = ValidFilter();
  bytes[bytes.size() - 11] = 9;
  EXPECT_EQ(ParseOf(bytes, false), ParseError::kBadHashScheme);
}

TEST(MalformedFilter, ReservedFieldNotZero) {
  std::string bytes = ValidFilter();
  bytes[bytes.size() - 10] = 1;
  EXPECT_EQ(ParseOf(bytes, false), ParseError::kBadReservedField);
}

std::string FilterWithLead(size_t lead) {
  FilterBuilder builder;
  builder.SetLeadBytes(lead);
  for (int i = 0; i < 200; ++i) builder.AddKey(std::to_string(i));
  return builder.Finish();
}

TEST(FilterLeadBytes, BlocksFollowTheLeadAndAnswerAsWithout) {
  const std::string plain = ValidFilter();
  for (size_t lead : {1u, 16u, 48u, 63u}) {
    const std::string led = FilterWithLead(lead);
    ASSERT_EQ(led.size(), plain.size() + lead) << lead;
    EXPECT_EQ(led.substr(0, lead), std::string(lead, '\0')) << lead;
    FilterReader with, without;
    ASSERT_TRUE(FilterReader::Parse(led, &with).ok()) << lead;
    ASSERT_TRUE(FilterReader::Parse(plain, &without).ok());
    EXPECT_EQ(with.blocks().data(), led.data() + lead);
    EXPECT_EQ(with.blocks(), without.blocks());
    EXPECT_EQ(with.num_probes(), without.num_probes());
    EXPECT_EQ(static_cast<unsigned char>(led[led.size() - 9]), 2u) << "version 2";
    EXPECT_EQ(static_cast<unsigned char>(led[led.size() - 10]), lead);
    for (int i = 0; i < 2000; ++i) {
      const std::string key = std::to_string(i);
      ASSERT_EQ(with.MayContain(key), without.MayContain(key)) << lead << " " << key;
    }
  }
  // No lead: version 1, the bytes of a builder never asked for one.
  EXPECT_EQ(FilterWithLead(0), plain);
}

TEST(FilterLeadBytes, ChecksumCoversTheLead) {
  std::string bytes = FilterWithLead(48);
  bytes[5] = 1;
  EXPECT_EQ(ParseOf(bytes, true), ParseError::kChecksumMismatch);
  EXPECT_EQ(ParseOf(bytes, false), ParseError::kOk);  // the lead is never read
}

TEST(FilterLeadBytes, MoreThan63IsRejected) {
  FilterBuilder builder;
  EXPECT_THROW(builder.SetLeadBytes(64), std::invalid_argument);
  std::string bytes = FilterWithLead(48);
  bytes[bytes.size() - 10] = 64;
  EXPECT_EQ(ParseOf(bytes, false), ParseError::kBadLeadBytes);
  bytes[bytes.size() - 10] = static_cast<char>(255);
  EXPECT_EQ(ParseOf(bytes, false), ParseError::kBadLeadBytes);
}

TEST(FilterLeadBytes, ALeadThatDoesNotLeaveWholeBlocksIsABadSize) {
  const std::string led = FilterWithLead(48);
  EXPECT_EQ(ParseOf(led.substr(1), false), ParseError::kBadSize);
  // A lead longer than everything before the trailer.
  FilterBuilder builder;
  builder.SetLeadBytes(32);
  std::string empty_led = builder.Finish();
  ASSERT_EQ(empty_led.size(), 48u);
  EXPECT_EQ(ParseOf(empty_led), ParseError::kOk);
  EXPECT_EQ(ParseOf(empty_led.substr(17), false), ParseError::kBadSize);
  // Version 1 keeps byte 6 reserved.
  std::string v1 = ValidFilter();
  v1[v1.size() - 10] = 48;
  EXPECT_EQ(ParseOf(v1, false), ParseError::kBadReservedField);
}

TEST(MalformedFilter, TruncatedBodyIsNotAWholeNumberOfBlocks) {
  const std::string valid = ValidFilter();
  for (size_t cut : {1u, 17u, 63u}) {
    EXPECT_EQ(ParseOf(valid.substr(cut), false), ParseError::kBadSize) << cut;
  }
  // Cutting a whole block keeps the shape but not the checksum.
  EXPECT_EQ(ParseOf(valid.substr(64), true), ParseError::kChecksumMismatch);
}

TEST(MalformedFilter, EveryFlippedBodyBitIsCaughtByTheChecksum) {
  const std::string valid = ValidFilter();
  const size_t body = valid.size() - 16;
  for (size_t bit = 0; bit < body * 8; bit += 37) {
    std::string bytes = valid;
    bytes[bit / 8] ^= static_cast<char>(1 << (bit % 8));
    EXPECT_EQ(ParseOf(bytes), ParseError::kChecksumMismatch) << bit;
  }
  std::string seed_flipped = valid;
  seed_flipped[body] ^= 1;
  EXPECT_EQ(ParseOf(seed_flipped), ParseError::kChecksumMismatch);
}

TEST(MalformedFilter, ErrorsHaveDistinctMessages) {
  std::set<std::string> messages;
  for (int e = 0; e <= static_cast<int>(ParseError::kChecksumMismatch); ++e) {
    messages.insert(ParseErrorMessage(static_cast<ParseError>(e)));
  }
  EXPECT_EQ(messages.size(), static_cast<size_t>(ParseError::kChecksumMismatch) + 1);
}

TEST(MalformedFilter, FailedParseLeavesTheReaderUnchanged) {
  const std::string valid = ValidFilter();
  FilterReader reader = MustParse(valid);
  EXPECT_FALSE(FilterReader::Parse("garbage-garbage-garbage", &reader).ok());
  EXPECT_TRUE(reader.MayContain("5"));
}

TEST(FilterTest, ConcurrentQueriesFromManyThreads) {
  FilterBuilder builder;
  for (int i = 0; i < 20000; ++i) builder.AddKey(std::to_string(i));
  const std::string bytes = builder.Finish();
  const FilterReader reader = MustParse(bytes);
  std::vector<std::thread> threads;
  std::atomic<size_t> misses{0};
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int i = t; i < 20000; i += 3) {
        const std::string key = std::to_string(i);
        if (!reader.MayContain(key)) ++misses;
        const std::string_view batch[1] = {key};
        bool out[1] = {false};
        reader.MayContainBatch(batch, out);
        if (!out[0]) ++misses;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(misses.load(), 0u);
}

}  // namespace
}  // namespace linebloom
