// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// The forms of a line's answer (compact_planes.h) give the same answer
// bits for random lines and rows at every plane count, and all equal the
// definition: bit b = parity of plane b's bits AND the row, read bit by bit.
// And a batch's keys' codes (compact_query.h) in either form equal CodeOf.

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "compact_layout.h"
#include "compact_planes.h"
#include "compact_query.h"

namespace linebloom::internal::compact {
namespace {

// Bit i of the line (bit i % 8 of byte i / 8).
bool LineBit(const unsigned char* line, int i) { return (line[i / 8] >> (i % 8)) & 1; }
bool RowBit(Bits128 row, int i) { return ((i < 64 ? row.lo >> i : row.hi >> (i - 64)) & 1) != 0; }

uint32_t AnswerByDefinition(const unsigned char* line, Bits128 row, int planes, int columns) {
  uint32_t answer = 0;
  for (int b = 0; b < planes; ++b) {
    int parity = 0;
    for (int j = 0; j < columns; ++j) parity ^= LineBit(line, b * columns + j) & RowBit(row, j);
    answer |= static_cast<uint32_t>(parity) << b;
  }
  return answer;
}

#if defined(LINEBLOOM_COMPACT_AVX2)
// The AVX2 form with kGroups groups, where they hold the line's planes: a
// filter's group count and row width are its own, and a mixed filter reads
// its low section's lines with its high section's, so a line may be read
// with more groups than its planes need, and wide (16 products) though its
// rows have at most 64 columns.
template <int kGroups>
void ExpectAvx2GroupsAnswer(const unsigned char* line, Bits128 row, int planes, uint32_t expected) {
  if (planes > 8 * kGroups) return;
  const uint32_t low = (uint32_t{1} << planes) - 1;
  ASSERT_EQ((AnswerAvx2Groups<kGroups, true>(line, row, planes) & low), expected) << planes << " " << kGroups;
  if (ColumnsFor(planes) <= 64) {
    ASSERT_EQ((AnswerAvx2Groups<kGroups, false>(line, row, planes) & low), expected) << planes << " " << kGroups;
  }
  if (!CompactVpclmulSupported()) return;
  ASSERT_EQ((AnswerVpclmulGroups<kGroups, true>(line, row, planes) & low), expected) << planes << " " << kGroups;
  if (ColumnsFor(planes) <= 64) {
    ASSERT_EQ((AnswerVpclmulGroups<kGroups, false>(line, row, planes) & low), expected) << planes << " " << kGroups;
  }
}
#endif

TEST(CompactPlanes, EveryFormMatchesTheDefinition) {
  std::mt19937_64 rng(17);
  for (int planes = kMinFingerprintBits; planes <= kMaxPlanes; ++planes) {
    const int columns = ColumnsFor(planes);
    for (int trial = 0; trial < 2'000; ++trial) {
      unsigned char line[64];
      for (auto& byte : line) byte = static_cast<unsigned char>(rng());
      const Bits128 row = RowOf(KeyCode{rng(), rng()}, columns);
      const uint32_t expected = AnswerByDefinition(line, row, planes, columns);
      ASSERT_EQ(AnswerPortable(line, row, planes, columns), expected) << planes;
      ASSERT_EQ(AnswerPortableWindows(line, row, planes), expected) << planes;
      // A line of `planes` planes is read by filters of r = planes and of
      // every r below it whose lines may have planes - r extra planes
      // (E(r)), each in its own group count.
      const uint32_t low = (uint32_t{1} << planes) - 1;
      for (int r = std::max(planes - kMaxExtraPlanes, kMinFingerprintBits); r <= planes; ++r) {
        if (r > kMaxFingerprintBits) break;
        if (planes - r > MaxExtraPlanes(r)) continue;
#if defined(LINEBLOOM_COMPACT_AVX2)
        if (CompactAvx2Supported()) {
          ASSERT_EQ(AnswerAvx2ForFilter(line, row, r, ColumnsFor(r) > 64, planes) & low, expected)
              << planes << " " << r;
        }
        if (CompactVpclmulSupported()) {
          ASSERT_EQ(AnswerVpclmulForFilter(line, row, r, ColumnsFor(r) > 64, planes) & low, expected)
              << planes << " " << r;
        }
#endif
#if defined(LINEBLOOM_COMPACT_AVX512)
        if (CompactAvx512Supported()) {
          ASSERT_EQ(AnswerAvx512ForFilter(line, row, r, ColumnsFor(r) > 64, planes) & low, expected)
              << planes << " " << r;
        }
#endif
      }
#if defined(LINEBLOOM_COMPACT_AVX2)
      if (CompactAvx2Supported()) {
        ExpectAvx2GroupsAnswer<1>(line, row, planes, expected);
        ExpectAvx2GroupsAnswer<2>(line, row, planes, expected);
        ExpectAvx2GroupsAnswer<3>(line, row, planes, expected);
        ExpectAvx2GroupsAnswer<4>(line, row, planes, expected);
        if (HasFatalFailure()) return;
      }
#endif
    }
  }
  if (!CompactAvx2Supported()) GTEST_LOG_(INFO) << "CPU lacks the compact AVX2 form: the portable forms checked";
  if (!CompactVpclmulSupported()) GTEST_LOG_(INFO) << "CPU lacks VPCLMULQDQ: its AVX2 form not checked";
  if (!CompactAvx512Supported()) GTEST_LOG_(INFO) << "CPU lacks the compact AVX-512 form";
}

// Every batch size, so the AVX-512 form's last, partial group of eight too.
TEST(CompactPlanes, BatchCodesAreCodeOf) {
  std::mt19937_64 rng(23);
  for (size_t n = 1; n <= CompactQuery::kBatch; ++n) {
    uint64_t hashes[CompactQuery::kBatch];
    for (size_t i = 0; i < n; ++i) hashes[i] = rng();
    CompactQuery::Codes portable;
    CompactQuery::PortableForm::CodesOf(hashes, n, &portable);
    for (size_t i = 0; i < n; ++i) {
      ASSERT_EQ(portable[i].row_lo, CodeOf(hashes[i]).row_lo) << n << " " << i;
      ASSERT_EQ(portable[i].rest, CodeOf(hashes[i]).rest) << n << " " << i;
    }
#if defined(LINEBLOOM_COMPACT_AVX512)
    if (!CompactAvx512Supported()) continue;
    CompactQuery::Codes avx512;
    CompactQuery::Avx512Form::CodesOf(hashes, n, &avx512);
    for (size_t i = 0; i < n; ++i) {
      ASSERT_EQ(avx512[i].row_lo, portable[i].row_lo) << n << " " << i;
      ASSERT_EQ(avx512[i].rest, portable[i].rest) << n << " " << i;
    }
#endif
  }
  if (!CompactAvx512Supported()) GTEST_SKIP() << "CPU lacks the compact AVX-512 form; portable form checked";
}

}  // namespace
}  // namespace linebloom::internal::compact
