// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// Hostile and damaged compact filters with lead bytes (format versions 4,
// 6 and 8, docs/FORMAT.md section 1b): the lead is what a filter holds before the
// lines its layer table counts, so the checks that guard it are the size
// against the table, the version byte and the checksum (every single-bit
// flip of a filter with lead bytes: compact_corruption_test). Every verdict is
// compared with the independent model's (tests/support/reference_compact.h),
// and where the bytes parse, so are the answers.

#include <gtest/gtest.h>
#include <xxhash.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

#include "linebloom/compact_filter.h"
#include "linebloom/filter_reader.h"
#include "support/compact_checks.h"
#include "support/reference_compact.h"

namespace linebloom {
namespace {

namespace model = reference::compact;

constexpr size_t kTrailer = model::kTrailerBytes;

std::string Key(uint64_t i) { return "key" + std::to_string(i); }

// The builder settings of each pair of versions (without and with lead).
struct Format {
  int extra_planes;
  bool mixed;
  int plain_version;
  int lead_version;
};
constexpr Format kFormats[] = {{kCompactExtraPlanesVersion3, false, model::kVersion, model::kVersionWithLead},
                               {kCompactExtraPlanes, false, model::kVersionPlanes, model::kVersionPlanesWithLead},
                               {kCompactExtraPlanes, true, model::kVersionMixed, model::kVersionMixedWithLead}};

// `n` keys "key<i>" at 6 bits per key (2,000 keys take two layers). At 6
// bits per key lines get extra planes (up to E(5) = 3 at r = 5, E(6) = 2 at
// 6) and 2,000 keys a mixed shape of r = 6 and 5: format versions 7 and 8;
// unmixed, 5 and 6; with kCompactExtraPlanesVersion3, 3 and 4.
std::string LeadFilter(size_t n, size_t lead, const Format& format = kFormats[2]) {
  CompactFilterBuilder builder({.bits_per_key = 6, .seed = 7});
  builder.SetLeadBytes(lead);
  builder.SetExtraPlanes(format.extra_planes);
  builder.SetMixed(format.mixed);
  for (size_t i = 0; i < n; ++i) builder.AddKey(Key(i));
  return builder.Finish();
}

char& FromEnd(std::string& bytes, size_t from_end) { return bytes[bytes.size() - from_end]; }
char& VersionByte(std::string& bytes) { return FromEnd(bytes, kTrailer - 7); }

void Reseal(std::string& bytes) {
  const uint32_t sum = static_cast<uint32_t>(XXH3_64bits(bytes.data(), bytes.size() - 4));
  for (int i = 0; i < 4; ++i) FromEnd(bytes, 4 - i) = static_cast<char>(sum >> (8 * i));
}

// The error with the checksum verified; without it too, the reader's
// verdict is the model's, and where both parse they answer alike.
ParseError ParseAndCompare(std::string_view bytes) {
  EXPECT_EQ(DetectFilterKind(bytes), model::ExpectedKind(bytes));
  ParseError verified = ParseError::kOk;
  for (bool verify : {true, false}) {
    CompactFilterReader reader;
    const ParseResult result = CompactFilterReader::Parse(bytes, &reader, {.verify_checksum = verify});
    EXPECT_EQ(result.error, model::ExpectedParseError(bytes, verify)) << "verify " << verify;
    if (verify) verified = result.error;
    model::Filter f;
    if (!result.ok() || model::Parse(bytes, verify, &f) != 0) continue;
    for (uint64_t i = 0; i < 300; ++i) {
      const std::string key = i % 2 ? Key(i / 2) : "absent" + std::to_string(i / 2);
      if (reader.MayContain(key) != model::MayContain(f, key)) {
        ADD_FAILURE() << "the reader and the model disagree on " << key;
        break;
      }
    }
  }
  return verified;
}

TEST(CompactLeadParse, ValidLeadsParse) {
  for (size_t lead : {1, 16, 48, 63}) {
    for (const Format& format : kFormats) {
      const std::string bytes = LeadFilter(2000, lead, format);
      std::string copy = bytes;
      EXPECT_EQ(VersionByte(copy), format.lead_version);
      EXPECT_EQ(ParseAndCompare(bytes), ParseError::kOk) << lead;
    }
  }
  EXPECT_THROW(CompactFilterBuilder().SetLeadBytes(64), std::invalid_argument);
}

// More than 63 bytes before the lines the table counts: bad lead bytes;
// fewer than none (a line more in the table): bad size.
TEST(CompactLeadParse, LeadBeyondItsRange) {
  const std::string good = LeadFilter(2000, 48);
  for (size_t extra : {15, 16, 64, 200}) {
    std::string b = std::string(extra, '\0') + good;
    Reseal(b);
    EXPECT_EQ(ParseAndCompare(b), 48 + extra > 63 ? ParseError::kBadLeadBytes : ParseError::kOk) << extra;
  }
  for (int delta : {-1, 1}) {
    std::string b = good;
    FromEnd(b, kTrailer + 8) = static_cast<char>(FromEnd(b, kTrailer + 8) + delta);
    Reseal(b);
    EXPECT_EQ(ParseAndCompare(b), delta < 0 ? ParseError::kBadLeadBytes : ParseError::kBadSize) << delta;
  }
}

// Versions 3, 5 and 7 have no lead: a filter with lead bytes relabelled 3
// (5, 7) is the wrong size; a version-3 (5, 7) filter relabelled 4 (6, 8)
// is one of lead 0, and answers as before.
TEST(CompactLeadParse, VersionByteAndLeadMustAgree) {
  for (const Format& format : kFormats) {
    const int plain_version = format.plain_version;
    const int lead_version = format.lead_version;
    std::string with_lead = LeadFilter(2000, 48, format);
    VersionByte(with_lead) = static_cast<char>(plain_version);
    Reseal(with_lead);
    EXPECT_EQ(ParseAndCompare(with_lead), ParseError::kBadSize);

    const std::string plain = LeadFilter(2000, 0, format);
    std::string relabelled = plain;
    ASSERT_EQ(VersionByte(relabelled), plain_version);
    VersionByte(relabelled) = static_cast<char>(lead_version);
    Reseal(relabelled);
    ASSERT_EQ(ParseAndCompare(relabelled), ParseError::kOk);
    CompactFilterReader before, after;
    ASSERT_TRUE(CompactFilterReader::Parse(plain, &before).ok());
    ASSERT_TRUE(CompactFilterReader::Parse(relabelled, &after).ok());
    for (uint64_t i = 0; i < 20000; ++i) {
      const std::string key = "absent" + std::to_string(i);
      ASSERT_EQ(before.MayContain(key), after.MayContain(key)) << key;
    }
  }
}

// Readers do not look at the lead: a damaged lead byte fails the checksum
// only, and without it the filter answers as undamaged. Cutting bytes of
// the lead off the front leaves a shorter lead (the lines are found from
// the end); cutting into the lines fails.
TEST(CompactLeadParse, DamagedOrCutLead) {
  const std::string good = LeadFilter(2000, 48);
  CompactFilterReader undamaged;
  ASSERT_TRUE(CompactFilterReader::Parse(good, &undamaged).ok());
  for (size_t at : {0, 20, 47}) {
    std::string b = good;
    b[at] = 'x';
    EXPECT_EQ(ParseAndCompare(b), ParseError::kChecksumMismatch) << at;
    CompactFilterReader reader;
    ASSERT_TRUE(CompactFilterReader::Parse(b, &reader, {.verify_checksum = false}).ok());
    for (uint64_t i = 0; i < 2000; ++i) ASSERT_TRUE(reader.MayContain(Key(i))) << i;
  }
  for (size_t cut = 1; cut < good.size(); ++cut) {
    const std::string_view b = std::string_view(good).substr(cut);
    const ParseError error = ParseAndCompare(b);
    ASSERT_EQ(error, cut <= 48 ? ParseError::kChecksumMismatch : model::ExpectedParseError(b, true)) << cut;
    ASSERT_NE(error, ParseError::kOk) << cut;
  }
}

// The Bloom reader rejects version 4 as a version it does not know (as a
// compact reader from before version 4 does: such a reader, and the RocksDB
// plugin of that release, reads the filter as "may match").
TEST(CompactLeadParse, BloomReaderRejectsVersion4) {
  const std::string bytes = LeadFilter(2000, 48);
  FilterReader bloom;
  EXPECT_EQ(FilterReader::Parse(bytes, &bloom).error, ParseError::kUnsupportedVersion);
  EXPECT_EQ(DetectFilterKind(bytes), FilterKind::kCompact);
}

// A build that runs out of layers writes a Bloom filter with the same lead
// (format version 2).
TEST(CompactLeadParse, FallbackKeepsTheLead) {
  CompactFilterBuilder builder({.bits_per_key = 6, .seed = 7});
  builder.TEST_SetMaxLayers(1);
  builder.SetLeadBytes(48);
  for (size_t i = 0; i < 2000; ++i) builder.AddKey(Key(i));
  const std::string bytes = builder.Finish();
  ASSERT_NE(builder.fallback_reason(), "");
  EXPECT_EQ(DetectFilterKind(bytes), FilterKind::kBloom);
  EXPECT_EQ(bytes.substr(0, 48), std::string(48, '\0'));
  EXPECT_EQ(bytes[bytes.size() - 10], 48);
  EXPECT_EQ(bytes[bytes.size() - 9], 2);
  FilterReader reader;
  ASSERT_TRUE(FilterReader::Parse(bytes, &reader).ok());
  for (size_t i = 0; i < 2000; ++i) ASSERT_TRUE(reader.MayContain(Key(i))) << i;
}

}  // namespace
}  // namespace linebloom
