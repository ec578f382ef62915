// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// Hostile and damaged bytes given to CompactFilterReader::Parse: every row
// of FORMAT.md's table of reader checks with its exact error, truncations,
// bit flips and random damage (read without the checksum, where the
// sanitizer builds catch any read outside the bytes), and the boundary
// between the two filter kinds (format versions 1/2 and 3). Whatever the
// reader accepts must answer as the independent model of the format
// (tests/support/reference_compact.h).

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "linebloom/compact_filter.h"
#include "linebloom/filter_builder.h"
#include "linebloom/filter_reader.h"
#include "support/compact_checks.h"
#include "support/reference_compact.h"

namespace linebloom {
namespace {

namespace model = reference::compact;

constexpr size_t kTrailer = model::kTrailerBytes;

std::string Key(uint64_t i) { return "key" + std::to_string(i); }
std::string AbsentKey(uint64_t i) { return "absent" + std::to_string(i); }

// A filter of `n` keys "key<i>": at 6 bits per key, 2,000 keys take two
// layers, and a mixed shape (format version 7: lines of r = 6 and 5).
std::string CompactFilter(size_t n, double bits_per_key = 6, uint32_t seed = 7, size_t lead = 0, bool mixed = true) {
  CompactFilterBuilder builder({.bits_per_key = bits_per_key, .seed = seed});
  builder.SetLeadBytes(lead);
  builder.SetMixed(mixed);
  for (size_t i = 0; i < n; ++i) builder.AddKey(Key(i));
  return builder.Finish();
}

// The byte `from_end` bytes before the end (the trailer is the last 16).
char& FromEnd(std::string& bytes, size_t from_end) { return bytes[bytes.size() - from_end]; }
// Trailer field at offset `at` (0 seed, 4 r, 5 scheme, 6 M, 7 version, 8 magic).
char& TrailerByte(std::string& bytes, size_t at) { return FromEnd(bytes, kTrailer - at); }

// Writes the checksum the bytes' contents call for, so that only the check
// a test breaks fails.
void Reseal(std::string& bytes) {
  const uint32_t sum = static_cast<uint32_t>(XXH3_64bits(bytes.data(), bytes.size() - 4));
  for (int i = 0; i < 4; ++i) FromEnd(bytes, 4 - i) = static_cast<char>(sum >> (8 * i));
}

// A reader holding a valid filter, to see that a failed Parse leaves it be.
struct Sentinel {
  std::string bytes = CompactFilter(100, 10, 77);
  CompactFilterReader reader;
  Sentinel() { EXPECT_TRUE(CompactFilterReader::Parse(bytes, &reader).ok()); }
  bool Unchanged(const CompactFilterReader& r) const {
    return r.num_layers() == reader.num_layers() && r.fingerprint_bits() == reader.fingerprint_bits() &&
           r.seed() == reader.seed() && r.num_lines(0) == reader.num_lines(0) && r.MayContain(Key(3)) &&
           r.MayContain(Key(99));
  }
};

// Parses `bytes` with and without the checksum; checks the errors (and
// DetectFilterKind) against the model and, where the bytes parse, the
// answers too. Returns the error with the checksum verified.
ParseError ParseAndCompare(std::string_view bytes) {
  EXPECT_EQ(DetectFilterKind(bytes), model::ExpectedKind(bytes));
  const Sentinel sentinel;
  ParseError verified = ParseError::kOk;
  for (bool verify : {true, false}) {
    CompactFilterReader reader = sentinel.reader;
    const ParseResult result = CompactFilterReader::Parse(bytes, &reader, {.verify_checksum = verify});
    EXPECT_EQ(result.error, model::ExpectedParseError(bytes, verify)) << "verify " << verify;
    if (verify) verified = result.error;
    if (!result.ok()) {
      EXPECT_TRUE(sentinel.Unchanged(reader)) << "a failed Parse changed the reader";
      continue;
    }
    model::Filter f;
    if (model::Parse(bytes, verify, &f) != 0) continue;  // reported above
    EXPECT_EQ(reader.num_layers(), static_cast<int>(f.lines.size()));
    EXPECT_EQ(reader.fingerprint_bits(), f.r);
    for (uint64_t i = 0; i < 300; ++i) {
      const std::string key = i % 2 ? Key(i / 2) : AbsentKey(i / 2);
      if (reader.MayContain(key) != model::MayContain(f, key)) {
        ADD_FAILURE() << "the reader and the model disagree on " << key;
        break;
      }
    }
  }
  return verified;
}

TEST(CompactParse, TooShort) {
  const std::string good = CompactFilter(50);
  for (size_t n = 0; n < kTrailer; ++n) {
    EXPECT_EQ(ParseAndCompare(good.substr(good.size() - n)), ParseError::kTooShort) << n;
    EXPECT_EQ(ParseAndCompare(std::string(n, '\0')), ParseError::kTooShort) << n;
  }
}

TEST(CompactParse, BadMagic) {
  for (size_t at = 8; at < 12; ++at) {
    std::string bytes = CompactFilter(50);
    TrailerByte(bytes, at) ^= 0x20;
    Reseal(bytes);
    EXPECT_EQ(ParseAndCompare(bytes), ParseError::kBadMagic) << at;
  }
}

TEST(CompactParse, UnsupportedVersion) {
  for (int version : {0, 1, 2, 9, 255}) {
    std::string bytes = CompactFilter(50);
    TrailerByte(bytes, 7) = static_cast<char>(version);
    Reseal(bytes);
    EXPECT_EQ(ParseAndCompare(bytes), ParseError::kUnsupportedVersion) << version;
  }
}

TEST(CompactParse, BadHashScheme) {
  for (int scheme : {0, 1, 3, 255}) {
    std::string bytes = CompactFilter(50);
    TrailerByte(bytes, 5) = static_cast<char>(scheme);
    Reseal(bytes);
    EXPECT_EQ(ParseAndCompare(bytes), ParseError::kBadHashScheme) << scheme;
  }
}

// r outside 5..27 fails; every r inside parses and reads the lines with its
// own number of columns (the model answers the same), but for a mixed
// filter's r = 5, whose low lines would have 4.
TEST(CompactParse, FingerprintBits) {
  for (bool mixed : {false, true}) {
    const std::string good = CompactFilter(2000, 6, 7, 0, mixed);
    ASSERT_EQ(good[good.size() - 9], mixed ? 7 : 5);
    for (int r = 0; r < 256; ++r) {
      std::string bytes = good;
      TrailerByte(bytes, 4) = static_cast<char>(r);
      Reseal(bytes);
      const ParseError expected = r < 5 || r > 27   ? ParseError::kBadFingerprintBits
                                  : mixed && r == 5 ? ParseError::kBadLayers
                                                    : ParseError::kOk;
      EXPECT_EQ(ParseAndCompare(bytes), expected) << r << " mixed " << mixed;
    }
  }
}

// A mixed filter's sections (FORMAT.md 1b, versions 7 and 8): L_low of 0 or
// of L_0 lines or more, a threshold of 0, or no layer fail; any other
// sections parse and answer as the model.
TEST(CompactParse, Sections) {
  const std::string good = CompactFilter(2000);
  model::Filter f;
  ASSERT_EQ(model::Parse(good, true, &f), 0);
  ASSERT_GT(f.low_threshold, 0u);
  const size_t layers = f.lines.size();
  // The sections are the 8 bytes before the layer table.
  const auto with = [&](uint32_t low_lines, uint32_t threshold) {
    std::string bytes = good;
    for (int i = 0; i < 4; ++i) {
      FromEnd(bytes, kTrailer + 4 * layers + 8 - i) = static_cast<char>(low_lines >> (8 * i));
      FromEnd(bytes, kTrailer + 4 * layers + 4 - i) = static_cast<char>(threshold >> (8 * i));
    }
    Reseal(bytes);
    return bytes;
  };
  EXPECT_EQ(ParseAndCompare(with(f.low_lines, f.low_threshold)), ParseError::kOk);
  EXPECT_EQ(with(f.low_lines, f.low_threshold), good);
  for (uint32_t low_lines : {0u, f.lines[0], f.lines[0] + 1, 0xFFFFFFFFu}) {
    EXPECT_EQ(ParseAndCompare(with(low_lines, f.low_threshold)), ParseError::kBadLayers) << low_lines;
  }
  EXPECT_EQ(ParseAndCompare(with(f.low_lines, 0)), ParseError::kBadLayers);
  for (uint32_t low_lines : {1u, f.lines[0] - 1}) {
    for (uint32_t threshold : {1u, f.low_threshold + 12345, 0xFFFFFFFFu}) {
      EXPECT_EQ(ParseAndCompare(with(low_lines, threshold)), ParseError::kOk) << low_lines << " " << threshold;
    }
  }
  // Version 7 with no layer: the bytes of an empty filter, sections added.
  std::string empty = CompactFilterBuilder({.bits_per_key = 6}).Finish();
  empty.insert(0, 8, '\1');
  TrailerByte(empty, 7) = 7;
  Reseal(empty);
  EXPECT_EQ(ParseAndCompare(empty), ParseError::kBadLayers);
}

TEST(CompactParse, MoreThanEightLayers) {
  for (int m : {9, 16, 255}) {
    std::string bytes = CompactFilter(50);
    TrailerByte(bytes, 6) = static_cast<char>(m);
    Reseal(bytes);
    EXPECT_EQ(ParseAndCompare(bytes), ParseError::kBadLayers) << m;
  }
}

// A trailer alone that announces M layers has no room for their table.
TEST(CompactParse, NoRoomForTheLayerTable) {
  const std::string good = CompactFilter(50);
  for (int m = 1; m <= 8; ++m) {
    for (size_t keep = kTrailer; keep < kTrailer + 4 * static_cast<size_t>(m); keep += 4) {
      std::string bytes = good.substr(good.size() - keep);
      TrailerByte(bytes, 6) = static_cast<char>(m);
      Reseal(bytes);
      EXPECT_EQ(ParseAndCompare(bytes), ParseError::kBadSize) << m << " layers, " << keep << " bytes";
    }
  }
}

TEST(CompactParse, LayerOfZeroLines) {
  std::string bytes = CompactFilter(2000);
  ASSERT_EQ(TrailerByte(bytes, 6), 2);
  for (size_t layer = 0; layer < 2; ++layer) {
    std::string b = bytes;
    for (size_t i = 0; i < 4; ++i) FromEnd(b, kTrailer + 8 - 4 * layer - i) = 0;
    Reseal(b);
    EXPECT_EQ(ParseAndCompare(b), ParseError::kBadLayers) << layer;
  }
}

// Lines, table and trailer must add up: one line more or less in the
// table, a byte or a line more or less in front.
TEST(CompactParse, SizeDisagreesWithTheLayerTable) {
  const std::string good = CompactFilter(2000);
  for (int delta : {-1, 1, 64}) {
    std::string b = good;
    FromEnd(b, kTrailer + 8) = static_cast<char>(FromEnd(b, kTrailer + 8) + delta);
    Reseal(b);
    EXPECT_EQ(ParseAndCompare(b), ParseError::kBadSize) << delta;
  }
  for (const std::string& b : {good.substr(1), good.substr(64), "x" + good, std::string(64, '\0') + good}) {
    std::string sealed = b;
    Reseal(sealed);
    EXPECT_EQ(ParseAndCompare(sealed), ParseError::kBadSize) << b.size();
  }
}

TEST(CompactParse, ChecksumMismatch) {
  std::string bytes = CompactFilter(50);
  bytes[10] ^= 1;
  EXPECT_EQ(ParseAndCompare(bytes), ParseError::kChecksumMismatch);
}

// Every cut of a small two-layer filter, from the end or from the front,
// fails (never parses short of the whole filter), with the model's error.
TEST(CompactParse, EveryTruncationFails) {
  const std::string good = CompactFilter(2000);
  ASSERT_EQ(ParseAndCompare(good), ParseError::kOk);
  for (size_t n = 0; n < good.size(); ++n) {
    for (std::string_view cut : {std::string_view(good).substr(0, n), std::string_view(good).substr(good.size() - n)}) {
      for (bool verify : {true, false}) {
        CompactFilterReader reader;
        const ParseResult result = CompactFilterReader::Parse(cut, &reader, {.verify_checksum = verify});
        ASSERT_FALSE(result.ok()) << n << " bytes parse";
        ASSERT_EQ(result.error, model::ExpectedParseError(cut, verify)) << n << " bytes";
        ASSERT_EQ(DetectFilterKind(cut), model::ExpectedKind(cut)) << n << " bytes";
      }
    }
  }
}

// Any single flipped bit fails with the checksum on: the first check the
// model finds broken, which is the checksum for a bit of the lead (format
// version 4), the lines, the seed or the checksum itself.
TEST(CompactParse, EveryBitFlipFailsWithTheChecksumOn) {
  for (size_t lead : {0, 48}) {
    const std::string good = CompactFilter(300, 10, 7, lead);
    for (size_t bit = 0; bit < 8 * good.size(); ++bit) {
      std::string b = good;
      b[bit / 8] ^= static_cast<char>(1 << (bit % 8));
      CompactFilterReader reader;
      const ParseResult result = CompactFilterReader::Parse(b, &reader);
      ASSERT_FALSE(result.ok()) << "bit " << bit << ", lead " << lead;
      ASSERT_EQ(result.error, model::ExpectedParseError(b, true)) << "bit " << bit << ", lead " << lead;
      ASSERT_EQ(DetectFilterKind(b), model::ExpectedKind(b)) << "bit " << bit;
      const size_t lines_end = good.size() - kTrailer - 4 * static_cast<size_t>(good[good.size() - 10]);
      const size_t byte = bit / 8, trailer = good.size() - kTrailer;
      if (byte < lines_end || (byte >= trailer && byte < trailer + 4) || byte >= trailer + 12) {
        EXPECT_EQ(result.error, ParseError::kChecksumMismatch) << "bit " << bit << ", lead " << lead;
      }
    }
  }
}

// Without the checksum, random damage anywhere never crashes or reads out
// of the bytes (the sanitizer builds check), and whatever parses answers
// as the model.
TEST(CompactParse, RandomDamageWithoutChecksum) {
  const std::string good = CompactFilter(2000);
  std::mt19937_64 rng(2024);
  int parsed = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    std::string b = good;
    const int damaged = 1 + static_cast<int>(rng() % 8);
    for (int i = 0; i < damaged; ++i) {
      // Half the damage in the last 64 bytes: layer table and trailer.
      const size_t at = rng() % 2 ? rng() % b.size() : b.size() - 1 - rng() % 64;
      b[at] = static_cast<char>(rng());
    }
    if (ParseAndCompare(b) == ParseError::kChecksumMismatch) ++parsed;
  }
  EXPECT_GT(parsed, 1000) << "too few damaged filters parsed without the checksum";
}

// A query that every layer bumps (m = t = 0 everywhere) answers "may
// contain": a damaged filter may match, never miss.
TEST(CompactParse, BumpedOutOfTheLastLayerMayMatch) {
  std::string b = CompactFilter(2000);
  const size_t lines = (b.size() - kTrailer - 8) / model::kLineBytes;
  for (size_t i = 0; i < lines; ++i) b[i * model::kLineBytes + 63] = 0;
  Reseal(b);
  CompactFilterReader reader;
  ASSERT_TRUE(CompactFilterReader::Parse(b, &reader).ok());
  model::Filter f;
  ASSERT_EQ(model::Parse(b, true, &f), 0);
  for (uint64_t i = 0; i < 1000; ++i) {
    EXPECT_TRUE(reader.MayContain(AbsentKey(i)));
    const model::Answer a = model::Query(f, reference::Hash(AbsentKey(i), f.seed));
    EXPECT_EQ(a.layer, 2);
    EXPECT_TRUE(a.may_contain);
  }
}

TEST(CompactParse, DefaultReaderAnswersNo) {
  const CompactFilterReader reader;
  EXPECT_EQ(reader.num_layers(), 0);
  EXPECT_FALSE(reader.MayContain("key0"));
  EXPECT_FALSE(reader.MayContainHash(0));
}

std::string BloomFilter(size_t lead) {
  FilterBuilder builder({.bits_per_key = 10, .seed = 7});
  builder.SetLeadBytes(lead);
  for (size_t i = 0; i < 500; ++i) builder.AddKey(Key(i));
  return builder.Finish();
}

// Versions 1 and 2 are the Bloom reader's, versions 3 to 6 the compact reader's;
// each rejects the other's as a version it does not know.
TEST(CompactFormatVersions, EachReaderRejectsTheOtherKind) {
  const std::string compact = CompactFilter(2000);
  FilterReader bloom_reader;
  EXPECT_EQ(FilterReader::Parse(compact, &bloom_reader).error, ParseError::kUnsupportedVersion);
  EXPECT_EQ(FilterReader::Parse(compact, &bloom_reader, {.verify_checksum = false}).error,
            ParseError::kUnsupportedVersion);
  for (size_t lead : {0, 48}) {
    const std::string bloom = BloomFilter(lead);
    ASSERT_TRUE(FilterReader::Parse(bloom, &bloom_reader).ok());
    EXPECT_EQ(ParseAndCompare(bloom), ParseError::kUnsupportedVersion) << "lead " << lead;
    EXPECT_EQ(DetectFilterKind(bloom), FilterKind::kBloom) << "lead " << lead;
  }
  EXPECT_EQ(DetectFilterKind(compact), FilterKind::kCompact);
}

// DetectFilterKind reads the trailer's version byte: 1 and 2 Bloom, 3 to 8
// compact, anything else (and bytes too short for a trailer, or whose
// trailer lacks the magic) unknown. It does not validate the rest.
TEST(CompactFormatVersions, DetectFilterKind) {
  const std::string good = CompactFilter(50);
  for (size_t n = 0; n < kTrailer; ++n) EXPECT_EQ(DetectFilterKind(good.substr(good.size() - n)), FilterKind::kUnknown);
  for (int version = 0; version < 256; ++version) {
    std::string b = good;
    TrailerByte(b, 7) = static_cast<char>(version);
    const FilterKind expected = version >= 3 && version <= 8   ? FilterKind::kCompact
                                : version == 1 || version == 2 ? FilterKind::kBloom
                                                               : FilterKind::kUnknown;
    EXPECT_EQ(DetectFilterKind(b), expected) << version;
    TrailerByte(b, 8) = 'X';
    EXPECT_EQ(DetectFilterKind(b), FilterKind::kUnknown) << version << " without the magic";
  }
  // Other fields broken, version intact: still a compact filter.
  for (size_t at : {4u, 5u, 6u, 12u}) {
    std::string b = good;
    TrailerByte(b, at) = static_cast<char>(0xEE);
    EXPECT_EQ(DetectFilterKind(b), FilterKind::kCompact) << at;
  }
  EXPECT_EQ(DetectFilterKind(good.substr(1)), FilterKind::kCompact);
}

// A build that needs more layers than allowed writes a Bloom filter of the
// same keys: a version the compact reader rejects, the Bloom reader reads.
TEST(CompactFormatVersions, FallbackIsABloomFilter) {
  CompactFilterBuilder builder({.bits_per_key = 6, .seed = 7});
  builder.TEST_SetMaxLayers(1);
  for (size_t i = 0; i < 2000; ++i) builder.AddKey(Key(i));
  const std::string bytes = builder.Finish();
  EXPECT_NE(builder.fallback_reason(), "");
  EXPECT_EQ(DetectFilterKind(bytes), FilterKind::kBloom);
  EXPECT_EQ(ParseAndCompare(bytes), ParseError::kUnsupportedVersion);
  FilterReader reader;
  ASSERT_TRUE(FilterReader::Parse(bytes, &reader).ok());
  for (size_t i = 0; i < 2000; ++i) ASSERT_TRUE(reader.MayContain(Key(i))) << i;
}

}  // namespace
}  // namespace linebloom
