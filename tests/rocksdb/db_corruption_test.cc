// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// Damaged filter blocks inside real SST files. The bytes of the filter are
// found in the file by the linebloom trailer magic ("LBLM" 8 bytes before the
// end of every filter), then zeroed or rewritten, and the DB is reopened.
//
// Zeroing filter bits is the dangerous damage: a zero bit where a key set a
// one is a false negative. It must be caught (by RocksDB's block checksum or,
// when that is off, by linebloom's own XXH3 checksum) and turned into "may
// match" for every key -- never into a lost key, never into a crash.

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <rocksdb/db.h>

#include "capturing_logger.h"
#include "db_fixture.h"
#include "linebloom/rocksdb/linebloom_filter_policy.h"

namespace linebloom::rocksdb_plugin {
namespace {

using namespace testing;  // NOLINT: the fixture helpers

constexpr size_t kKeys = 20000;
constexpr char kMagic[] = "LBLM";

std::vector<std::string> SstFiles(const std::string& dir) {
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() == ".sst") files.push_back(entry.path());
  }
  return files;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void WriteFile(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// Offsets of every linebloom trailer magic in `file` whose trailer is
// plausible (version byte 1 just before it, hash scheme 1 or 3 two bytes
// before).
std::vector<size_t> FindTrailerMagics(const std::string& file) {
  std::vector<size_t> found;
  for (size_t pos = file.find(kMagic, 0, 4); pos != std::string::npos; pos = file.find(kMagic, pos + 1, 4)) {
    if (pos >= 72 && file[pos - 1] == 1 && (file[pos - 3] == 1 || file[pos - 3] == 3)) found.push_back(pos);
  }
  return found;
}

enum class Damage {
  kZeroBits,       // zero the 64-byte blocks just before each trailer
  kFutureVersion,  // trailer claims format version 3
};

// Damages every linebloom filter (or filter partition) in every SST of `dir`;
// returns how many were damaged.
size_t DamageFilters(const std::string& dir, Damage damage) {
  size_t damaged = 0;
  for (const auto& path : SstFiles(dir)) {
    std::string file = ReadFile(path);
    for (size_t magic : FindTrailerMagics(file)) {
      const size_t trailer = magic - 8;
      if (damage == Damage::kZeroBits) {
        // Up to 16 blocks before the trailer, staying inside this filter.
        const size_t span = std::min<size_t>(16 * 64, trailer / 64 * 64);
        std::fill(file.begin() + static_cast<std::ptrdiff_t>(trailer - span),
                  file.begin() + static_cast<std::ptrdiff_t>(trailer), '\0');
      } else {
        file[magic - 1] = 3;
      }
      ++damaged;
    }
    WriteFile(path, file);
  }
  return damaged;
}

struct Outcome {
  size_t found = 0;         // present keys returned with their value
  size_t not_found = 0;     // present keys reported absent: false negatives
  size_t errors = 0;        // present keys answered with an error status
  std::string first_error;  // e.g. "Corruption: block checksum mismatch ..."
};

Outcome ReadAll(::rocksdb::DB& db, const std::vector<std::string>& keys, const ::rocksdb::ReadOptions& ro) {
  Outcome o;
  std::string value;
  for (const auto& key : keys) {
    const ::rocksdb::Status s = db.Get(ro, key, &value);
    if (s.ok() && value == ValueFor(key)) {
      ++o.found;
    } else if (s.IsNotFound()) {
      ++o.not_found;
    } else {
      if (o.errors++ == 0) o.first_error = s.ToString();
    }
  }
  return o;
}

struct CorruptionCase {
  const char* name;
  bool partitioned;
  Damage damage;
};

// RocksDB's block checksums off: the damage reaches linebloom's parser, which
// must reject it, answer "may match" and say why, once, in the info log.
class DamagedFilterWithoutBlockChecksums : public ::testing::TestWithParam<CorruptionCase> {};

TEST_P(DamagedFilterWithoutBlockChecksums, EveryKeyFoundAndReasonLoggedOnce) {
  const CorruptionCase param = GetParam();
  FilterMode mode;
  mode.partitioned = param.partitioned;
  mode.checksum = ::rocksdb::kNoChecksum;
  TempDir dir;
  const auto present = Keys(0, kKeys, 2);
  const auto absent = Keys(1, kKeys - 1, 2);
  {
    auto db = OpenDb(MakeOptions(NewLinebloomFilterPolicy(10), mode), dir.path());
    ASSERT_TRUE(db);
    PutAll(*db, present);
    FlushAndCompact(*db);
  }
  const size_t damaged = DamageFilters(dir.path(), param.damage);
  ASSERT_GE(damaged, 1u);
  if (param.partitioned) {
    ASSERT_GT(damaged, 1u) << "expected several partitions";
  }

  auto policy = NewLinebloomFilterPolicy(10);
  auto logger = std::make_shared<CapturingLogger>();
  policy->SetInfoLog(logger);
  ::rocksdb::Options options = MakeOptions(policy, mode);
  options.info_log = logger;
  for (int reopen = 0; reopen < 2; ++reopen) {
    auto db = OpenDb(options, dir.path());
    ASSERT_TRUE(db);
    const Outcome o = ReadAll(*db, present, ::rocksdb::ReadOptions());
    EXPECT_EQ(o.found, present.size()) << o.first_error;
    EXPECT_EQ(o.not_found, 0u) << "false negatives";
    // Absent keys are still absent; the damaged filters rejected none.
    options.statistics->Reset();
    EXPECT_EQ(ReadAll(*db, absent, ::rocksdb::ReadOptions()).found, 0u);
    if (!param.partitioned) {
      EXPECT_EQ(ReadFilterCounts(*options.statistics).useful, 0u);
    }
  }
  EXPECT_GE(policy->num_malformed_filters(), 1u);
  const auto lines = logger->Matching("linebloom: ignoring a malformed filter block");
  ASSERT_EQ(lines.size(), 1u) << "one reason, reported once";
  std::printf("  %s: %zu filters damaged, %llu rejected, log: %s\n", param.name, damaged,
              static_cast<unsigned long long>(policy->num_malformed_filters()), lines[0].c_str());
}

INSTANTIATE_TEST_SUITE_P(Rocksdb, DamagedFilterWithoutBlockChecksums,
                         ::testing::Values(CorruptionCase{"full_zeroed_bits", false, Damage::kZeroBits},
                                           CorruptionCase{"full_future_version", false, Damage::kFutureVersion},
                                           CorruptionCase{"partitioned_zeroed_bits", true, Damage::kZeroBits},
                                           CorruptionCase{"partitioned_future_version", true, Damage::kFutureVersion}),
                         [](const ::testing::TestParamInfo<CorruptionCase>& param_info) {
                           return param_info.param.name;
                         });

// RocksDB's block checksums on (the default): RocksDB itself notices the
// damaged block before linebloom sees it. Observed with 7.8.3: DB::Open and
// every Get succeed, the filter is silently dropped (without
// cache_index_and_filter_blocks the table has no filter at all; otherwise
// every lookup re-reads the block, fails the checksum and treats the key as
// "may match"), and nothing is written to the info log. What must hold is
// that no present key is reported absent.
TEST(RocksdbDamagedFilterWithBlockChecksums, NoKeyIsReportedAbsent) {
  for (bool partitioned : {false, true}) {
    for (bool cached : {false, true}) {
      FilterMode mode;
      mode.partitioned = partitioned;
      mode.cache_index_and_filter_blocks = cached;
      TempDir dir;
      const auto present = Keys(0, kKeys, 2);
      {
        auto db = OpenDb(MakeOptions(NewLinebloomFilterPolicy(10), mode), dir.path());
        ASSERT_TRUE(db);
        PutAll(*db, present);
        FlushAndCompact(*db);
      }
      ASSERT_GE(DamageFilters(dir.path(), Damage::kZeroBits), 1u);
      auto policy = NewLinebloomFilterPolicy(10);
      ::rocksdb::Options options = MakeOptions(policy, mode);
      auto logger = std::make_shared<CapturingLogger>();
      options.info_log = logger;
      std::unique_ptr<::rocksdb::DB> db;
      const ::rocksdb::Status open = OpenDB(options, dir.path(), &db);
      const char* label =
          partitioned ? (cached ? "partitioned+cached" : "partitioned") : (cached ? "full+cached" : "full");
      if (!open.ok()) {
        std::printf("  %s: DB::Open fails: %s\n", label, open.ToString().c_str());
        EXPECT_TRUE(open.IsCorruption()) << open.ToString();
        continue;
      }
      for (bool verify : {true, false}) {
        ::rocksdb::ReadOptions ro;
        ro.verify_checksums = verify;
        const Outcome o = ReadAll(*db, present, ro);
        std::printf(
            "  %s, ReadOptions.verify_checksums=%d: open ok; %zu found, %zu errors%s%s, "
            "%zu not found; linebloom rejected %llu filters\n",
            label, verify, o.found, o.errors, o.errors ? ": " : "", o.first_error.c_str(), o.not_found,
            static_cast<unsigned long long>(policy->num_malformed_filters()));
        EXPECT_EQ(o.not_found, 0u) << label << ": false negatives";
      }
      // Is the damaged filter still consulted for absent keys?
      options.statistics->Reset();
      EXPECT_EQ(ReadAll(*db, Keys(1, kKeys - 1, 2), ::rocksdb::ReadOptions()).found, 0u);
      const FilterCounts c = ReadFilterCounts(*options.statistics);
      // RocksDB drops a filter block whose checksum fails: it never says no.
      EXPECT_EQ(c.useful, 0u) << label;
      const auto complaints = logger->Matching("mismatch");
      std::printf(
          "  %s: absent keys: filter said no %llu times, maybe %llu times; "
          "info-log lines with \"mismatch\": %zu%s%s\n",
          label, static_cast<unsigned long long>(c.useful), static_cast<unsigned long long>(c.positive),
          complaints.size(), complaints.empty() ? "" : ", first: ", complaints.empty() ? "" : complaints[0].c_str());
    }
  }
}

}  // namespace
}  // namespace linebloom::rocksdb_plugin
