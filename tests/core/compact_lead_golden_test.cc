// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// Golden values for the compact filter with lead bytes, format versions 4
// and 6 (docs/FORMAT.md, section 1b). Version 4 (6) is version 3 (5) after
// L zero bytes,
// so each case pins the whole filter (XXH3-128 of its bytes, its size) and
// checks that its answers are those of the version-3 filter of the same
// keys: the first false positives of a fixed sequence of absent queries are
// the ones compact_golden_test pins for that filter, and the reader
// answers as the independent model (tests/support/reference_compact.h) on
// every stored key and the first absent queries, from memory at every
// offset to a cache line (every 16th for the largest case; single and
// batch paths). As for version 3, a
// mismatch of a golden value means the format changed.

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "linebloom/compact_filter.h"
#include "linebloom/filter_options.h"
#include "support/golden_keys.h"
#include "support/reference_compact.h"

namespace linebloom {
namespace {

namespace model = reference::compact;

using golden::Named;
using golden::Xxh128Hex;

struct LeadCase {
  const char* name;
  double bits_per_key;
  uint32_t seed;
  size_t num_keys;  // keys "key<i>"
  size_t lead;
  const char* xxh128;  // of the whole filter
  size_t size;
  // Indices into the absent queries "absent<i>": compact_golden_test's
  // values for the same keys, bits per key and seed without lead.
  std::vector<size_t> first_false_positives;
  // CompactFilterBuilder::SetExtraPlanes: version 4 (1) unless given.
  int extra_planes = kCompactExtraPlanesVersion3;
  // CompactFilterBuilder::SetMixed: versions 4 and 6 (false) unless given.
  bool mixed = false;
};

constexpr size_t kFalsePositivesPinned = 8;
constexpr size_t kMaxAbsentQueries = size_t{1} << 21;
constexpr size_t kAbsentCheckedByModel = 2048;

const std::vector<LeadCase>& Cases() {
  // clang-format off
  static const std::vector<LeadCase> cases = {
      {"FiftyKeysAt6Lead48", 6, 2, 50, 48,
       "dd1d04d32320a4d085e148307f881c1e", 132, {88, 175, 629, 694, 855, 949, 1065, 1155}},
      {"FiveThousandKeysAt7_75Lead1", 7.75, 5, 5000, 1,
       "771cd5b93e5fd72d7bf2cc82d780656b", 4957, {88, 99, 147, 293, 334, 389, 432, 538}},
      {"FiveThousandKeysAt16Lead63", 16, 7, 5000, 63,
       "652da97c284617090b99eeb85fe88ead", 10267, {6607, 7289, 7968, 13655, 13679, 17079, 39018, 73789}},
      {"TwoHundredThousandKeysAt11_5Lead48", 11.5, 0x5eed, 200000, 48,
       "f7886a4aab9796c882a470099e002534", 287952, {383, 1327, 2830, 3770, 3807, 4031, 5579, 10848}},
      // Version 6: version 5 after the lead (compact_golden_test's V5 cases).
      {"V6FiveThousandKeysAt16Lead63", 16, 7, 5000, 63,
       "63d85b8d9d83e0c8687f8367d038ef72", 10267, {6607, 7289, 13655, 13679, 39018, 76071, 79325, 110610}, 4},
      {"V6TwoHundredThousandKeysAt11_5Lead48", 11.5, 0x5eed, 200000, 48,
       "928930e32a842386ac1d922c7834f534", 287952, {383, 1327, 2830, 3770, 3807, 5579, 11327, 12364}, 4},
      // Version 8: version 7 after the lead (compact_golden_test's V7 cases).
      {"V8FiveThousandKeysAt11Lead63", 11, 16, 5000, 63,
       "acd992a049d269230475d4fd37def69c", 7007, {7, 563, 2707, 2713, 2722, 3428, 4182, 9457}, 4, true},
      {"V8TwoHundredThousandKeysAt7_26Lead48", 7.26, 17, 200000, 48,
       "9338efbb561154e5ddbc0e5728122e6b", 181784, {43, 67, 130, 275, 546, 575, 737, 773}, 4, true},
  };
  // clang-format on
  return cases;
}

std::string Build(const LeadCase& c, size_t lead) {
  CompactFilterBuilder builder({.bits_per_key = c.bits_per_key, .seed = c.seed});
  builder.SetLeadBytes(lead);
  builder.SetExtraPlanes(c.extra_planes);
  builder.SetMixed(c.mixed);
  for (size_t i = 0; i < c.num_keys; ++i) builder.AddKey(Named("key", i));
  std::string bytes = builder.Finish();
  EXPECT_EQ(builder.fallback_reason(), "");
  return bytes;
}

// `bytes` copied to memory `offset` bytes past a 64-byte boundary.
class PlacedCopy {
 public:
  PlacedCopy(std::string_view bytes, size_t offset) : buffer_(new char[bytes.size() + 127]) {
    const auto base = reinterpret_cast<uintptr_t>(buffer_.get());
    start_ = buffer_.get() + ((64 - base % 64) % 64) + offset;
    std::memcpy(start_, bytes.data(), bytes.size());
    size_ = bytes.size();
  }
  std::string_view view() const { return {start_, size_}; }

 private:
  std::unique_ptr<char[]> buffer_;
  char* start_ = nullptr;
  size_t size_ = 0;
};

// The first kFalsePositivesPinned absent queries the reader answers "may
// contain"; the single and batch paths agree, and the model on the first
// kAbsentCheckedByModel queries and on every hit.
std::vector<size_t> FirstFalsePositives(const CompactFilterReader& reader, const model::Filter& f) {
  constexpr size_t kChunk = 4096;
  std::vector<size_t> found;
  std::vector<std::string> keys(kChunk);
  std::vector<std::string_view> views(kChunk);
  auto batch = std::make_unique<bool[]>(kChunk);
  for (size_t start = 0; start < kMaxAbsentQueries && found.size() < kFalsePositivesPinned; start += kChunk) {
    for (size_t i = 0; i < kChunk; ++i) {
      keys[i] = Named("absent", start + i);
      views[i] = keys[i];
    }
    reader.MayContainBatch(views, std::span<bool>(batch.get(), kChunk));
    for (size_t i = 0; i < kChunk; ++i) {
      const bool single = reader.MayContain(keys[i]);
      if (batch[i] != single) {
        ADD_FAILURE() << "query paths disagree at absent query " << start + i;
        return found;
      }
      if ((start + i < kAbsentCheckedByModel || single) && model::MayContain(f, keys[i]) != single) {
        ADD_FAILURE() << "the reader and the model disagree at absent query " << start + i;
        return found;
      }
      if (single && found.size() < kFalsePositivesPinned) found.push_back(start + i);
    }
  }
  return found;
}

class CompactLeadGolden : public ::testing::TestWithParam<size_t> {};

TEST_P(CompactLeadGolden, WholeFilterIsPinnedAndAnswersAsWithoutLead) {
  const LeadCase& c = Cases()[GetParam()];
  const std::string bytes = Build(c, c.lead);
  EXPECT_EQ(Xxh128Hex(bytes), c.xxh128);
  EXPECT_EQ(bytes.size(), c.size);
  ASSERT_EQ(DetectFilterKind(bytes), FilterKind::kCompact);
  model::Filter f;
  ASSERT_EQ(model::Parse(bytes, /*verify_checksum=*/true, &f), 0) << "the model rejects the filter";
  EXPECT_EQ(f.lead, c.lead);
  const bool many = c.extra_planes > 1;
  EXPECT_EQ(bytes[bytes.size() - 9], c.mixed ? model::kVersionMixedWithLead
                                     : many  ? model::kVersionPlanesWithLead
                                             : model::kVersionWithLead);
  EXPECT_EQ(bytes.substr(0, c.lead), std::string(c.lead, '\0'));

  // Version 3 (5, 7) of the same keys: the bytes after the lead, but for
  // the version byte and the checksum.
  const std::string plain = Build(c, 0);
  ASSERT_EQ(plain[plain.size() - 9], c.mixed ? model::kVersionMixed : many ? model::kVersionPlanes : model::kVersion);
  ASSERT_EQ(plain.size() + c.lead, bytes.size());
  EXPECT_EQ(bytes.substr(c.lead, plain.size() - 9), plain.substr(0, plain.size() - 9));
  EXPECT_EQ(bytes.substr(bytes.size() - 8, 4), plain.substr(plain.size() - 8, 4));

  // Where the reader expects it (64 - L past a cache line) and at every
  // other offset: the same answers.
  for (size_t offset = 0; offset<64; offset += c.num_keys> 10000 ? 16 : 1) {
    const PlacedCopy copy(bytes, offset);
    CompactFilterReader reader;
    ASSERT_TRUE(CompactFilterReader::Parse(copy.view(), &reader).ok()) << offset;
    model::Filter placed;
    ASSERT_EQ(model::Parse(copy.view(), /*verify_checksum=*/true, &placed), 0);
    EXPECT_EQ(reader.num_layers(), static_cast<int>(placed.lines.size()));
    std::vector<std::string> keys;
    for (size_t i = 0; i < c.num_keys; ++i) keys.push_back(Named("key", i));
    const std::vector<std::string_view> views(keys.begin(), keys.end());
    auto batch = std::make_unique<bool[]>(keys.size());
    reader.MayContainBatch(views, std::span<bool>(batch.get(), keys.size()));
    for (size_t i = 0; i < keys.size(); ++i) {
      ASSERT_TRUE(batch[i] && reader.MayContain(keys[i])) << "false negative, " << keys[i] << " at " << offset;
      if (i % 64 == 0) {
        ASSERT_TRUE(model::MayContain(placed, keys[i])) << "the model misses " << keys[i];
      }
    }
    if (offset == 64 - c.lead || c.lead == 0) {
      EXPECT_EQ(FirstFalsePositives(reader, placed), c.first_false_positives) << "at offset " << offset;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Versions4To8, CompactLeadGolden, ::testing::Range(size_t{0}, Cases().size()),
                         [](const ::testing::TestParamInfo<size_t>& param_info) {
                           return std::string(Cases()[param_info.param].name);
                         });

// A filter of no keys has no line to align: version 3, 16 bytes, whatever
// the lead asked for.
TEST(CompactLeadGoldenEmpty, NoKeysIsVersion3) {
  CompactFilterBuilder builder({.bits_per_key = 10});
  builder.SetLeadBytes(48);
  const std::string bytes = builder.Finish();
  ASSERT_EQ(bytes.size(), model::kTrailerBytes);
  EXPECT_EQ(bytes[bytes.size() - 9], model::kVersion);
  CompactFilterReader reader;
  ASSERT_TRUE(CompactFilterReader::Parse(bytes, &reader).ok());
  EXPECT_FALSE(reader.MayContain("absent"));
}

}  // namespace
}  // namespace linebloom
