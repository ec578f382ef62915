// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// AnyFilterReader reads filters of both kinds with their own answers, and
// rejects bytes of neither with the Bloom reader's reason, unchanged.

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "linebloom/any_filter_reader.h"
#include "linebloom/compact_filter.h"
#include "linebloom/filter_builder.h"

namespace linebloom {
namespace {

std::vector<std::string> Keys(const char* prefix, int n) {
  std::vector<std::string> keys;
  for (int i = 0; i < n; ++i) keys.push_back(prefix + std::to_string(i));
  return keys;
}

// Every stored key may match, and every absent key answers as the kind's
// own reader does.
template <typename KindReader>
void ExpectSameAnswers(const std::string& bytes, FilterKind kind) {
  AnyFilterReader any;
  ASSERT_TRUE(AnyFilterReader::Parse(bytes, &any).ok());
  EXPECT_EQ(any.kind(), kind);
  KindReader own;
  ASSERT_TRUE(KindReader::Parse(bytes, &own).ok());
  for (const std::string& k : Keys("in", 5000)) EXPECT_TRUE(any.MayContain(k)) << k;
  int matches = 0;
  for (const std::string& k : Keys("out", 20000)) {
    EXPECT_EQ(any.MayContain(k), own.MayContain(k)) << k;
    matches += any.MayContain(k);
  }
  EXPECT_LT(matches, 20000 / 20);  // a filter, not "may match" for all
  for (uint64_t h = 1; h < 20000; ++h)
    EXPECT_EQ(any.MayContainHash(h * 0x9E3779B97F4A7C15u), own.MayContainHash(h * 0x9E3779B97F4A7C15u)) << h;
}

TEST(AnyFilterReader, ReadsBothKinds) {
  FilterBuilder bloom(FilterOptions{.bits_per_key = 10});
  CompactFilterBuilder compact(FilterOptions{.bits_per_key = 8});
  for (const std::string& k : Keys("in", 5000)) {
    bloom.AddKey(k);
    compact.AddKey(k);
  }
  ExpectSameAnswers<FilterReader>(bloom.Finish(), FilterKind::kBloom);
  ExpectSameAnswers<CompactFilterReader>(compact.Finish(), FilterKind::kCompact);
}

TEST(AnyFilterReader, RejectsOtherBytesAndStaysAsItWas) {
  AnyFilterReader empty;
  EXPECT_FALSE(empty.MayContain("anything"));
  EXPECT_EQ(empty.kind(), FilterKind::kBloom);
  CompactFilterBuilder compact(FilterOptions{.bits_per_key = 8});
  compact.AddKey("kept");
  const std::string good = compact.Finish();
  AnyFilterReader reader;
  ASSERT_TRUE(AnyFilterReader::Parse(good, &reader).ok());
  for (const std::string& bad : {std::string(40, 'x'), std::string("short"), good.substr(0, good.size() - 1)}) {
    const ParseResult r = AnyFilterReader::Parse(bad, &reader);
    EXPECT_FALSE(r.ok());
    EXPECT_STRNE(r.message(), "");
    EXPECT_EQ(reader.kind(), FilterKind::kCompact);
    EXPECT_TRUE(reader.MayContain("kept"));
  }
}

}  // namespace
}  // namespace linebloom
