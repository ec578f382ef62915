// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// A real DB with compact_from_level: files placed at L0..L3 (full and
// partitioned filters, with and without level_aware) get the compact kind
// from the chosen level down and the Bloom kind above it; every key is
// found and absent keys are filtered, also after a compaction to the last
// level and after reopening with the option off. compact_bottommost, and
// both options through an OPTIONS file.

#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>
#include <rocksdb/db.h>
#include <rocksdb/convenience.h>
#include <rocksdb/metadata.h>
#include <rocksdb/utilities/options_util.h>

#include "db_fixture.h"
#include "linebloom/compact_filter.h"
#include "linebloom/rocksdb/filter_bits.h"
#include "linebloom/rocksdb/linebloom_filter_policy.h"
#include "linebloom/rocksdb/registration.h"

namespace linebloom::rocksdb_plugin {
namespace {

using namespace testing;  // NOLINT: the fixture helpers

constexpr int kCompactFrom = 2;
constexpr int kLastLevel = 3;
// At bits_per_key 10 a Bloom filter spends at least 10 bits per entry, and a
// compact one the Bloom-equivalent ~7.5 (plus per-partition overhead: a
// 2 KiB partition rounds up each of its layers to a whole line).
constexpr double kMostCompactBits = 9.0;

// What the policy built (level at creation, kind of the finished bytes) and
// read (kinds of the filter blocks handed to GetFilterBitsReader).
struct Record {
  std::mutex mutex;
  std::vector<std::pair<int, FilterKind>> built;
  std::multiset<FilterKind> read;
};

FilterKind KindOf(const ::rocksdb::Slice& bytes) { return DetectFilterKind({bytes.data(), bytes.size()}); }

class RecordingBuilder final : public ::rocksdb::FilterBitsBuilder {
 public:
  RecordingBuilder(::rocksdb::FilterBitsBuilder* inner, int level, Record* record)
      : inner_(inner), level_(level), record_(record) {}
  void AddKey(const ::rocksdb::Slice& key) override { inner_->AddKey(key); }
#if LINEBLOOM_ROCKSDB_LAYOUT >= 'B'
  void AddKeyAndAlt(const ::rocksdb::Slice& key, const ::rocksdb::Slice& alt) override {
    inner_->AddKeyAndAlt(key, alt);
  }
#endif
  size_t EstimateEntriesAdded() override { return inner_->EstimateEntriesAdded(); }
  ::rocksdb::Slice Finish(std::unique_ptr<const char[]>* buf) override { return Note(inner_->Finish(buf)); }
  ::rocksdb::Slice Finish(std::unique_ptr<const char[]>* buf, ::rocksdb::Status* status) override {
    return Note(inner_->Finish(buf, status));
  }
  ::rocksdb::Status MaybePostVerify(const ::rocksdb::Slice& filter) override { return inner_->MaybePostVerify(filter); }
  size_t ApproximateNumEntries(size_t bytes) override { return inner_->ApproximateNumEntries(bytes); }
#if LINEBLOOM_ROCKSDB_LAYOUT >= 'C'
  size_t CalculateSpace(size_t n) override { return inner_->CalculateSpace(n); }
  double EstimatedFpRate(size_t n, size_t bytes) override { return inner_->EstimatedFpRate(n, bytes); }
#endif

 private:
  ::rocksdb::Slice Note(::rocksdb::Slice filter) {
    std::lock_guard<std::mutex> lock(record_->mutex);
    record_->built.emplace_back(level_, KindOf(filter));
    return filter;
  }
  std::unique_ptr<::rocksdb::FilterBitsBuilder> inner_;
  int level_;
  Record* record_;
};

class RecordingPolicy : public ::rocksdb::FilterPolicy {
 public:
  RecordingPolicy(std::shared_ptr<const LinebloomFilterPolicy> inner, Record* record)
      : inner_(std::move(inner)), record_(record) {}
  const char* Name() const override { return inner_->Name(); }
  const char* CompatibilityName() const override { return inner_->CompatibilityName(); }
  ::rocksdb::FilterBitsBuilder* GetBuilderWithContext(const ::rocksdb::FilterBuildingContext& context) const override {
    ::rocksdb::FilterBitsBuilder* inner = inner_->GetBuilderWithContext(context);
    if (inner == nullptr) return nullptr;
    const int level = context.reason == ::rocksdb::TableFileCreationReason::kFlush ? -1 : context.level_at_creation;
    return new RecordingBuilder(inner, level, record_);
  }
  ::rocksdb::FilterBitsReader* GetFilterBitsReader(const ::rocksdb::Slice& contents) const override {
    {
      std::lock_guard<std::mutex> lock(record_->mutex);
      record_->read.insert(KindOf(contents));
    }
    return inner_->GetFilterBitsReader(contents);
  }

 private:
  std::shared_ptr<const LinebloomFilterPolicy> inner_;
  Record* record_;
};

struct Case {
  const char* name;
  bool partitioned;
  bool level_aware;
  size_t prefix_length = 0;  // a fixed-length prefix extractor, whole keys too
};

class DbCompactKind : public ::testing::TestWithParam<Case> {
 protected:
  ::rocksdb::Options Options(std::shared_ptr<const LinebloomFilterPolicy> policy) {
    FilterMode mode;
    mode.partitioned = GetParam().partitioned;
    mode.prefix_length = GetParam().prefix_length;
    ::rocksdb::Options options = MakeOptions(std::make_shared<RecordingPolicy>(std::move(policy), &record_), mode);
    options.num_levels = kLastLevel + 1;
    options.disable_auto_compactions = true;
    if (mode.partitioned) {
      // Small partitions, so that a file has many of them.
      auto* table = options.table_factory->GetOptions<::rocksdb::BlockBasedTableOptions>();
      table->metadata_block_size = 2048;
    }
    return options;
  }

  std::shared_ptr<const LinebloomFilterPolicy> Policy(int compact_from_level) const {
    LinebloomPolicyOptions o;
    o.bits_per_key = 10;
    o.compact_from_level = compact_from_level;
    o.level_aware = GetParam().level_aware;
    return NewLinebloomFilterPolicy(o);
  }

  Record record_;
};

// Flushes `keys` and moves the new L0 file to `level` (0: stays).
void FlushTo(::rocksdb::DB& db, const std::vector<std::string>& keys, int level) {
  PutAll(db, keys);
  ASSERT_TRUE(db.Flush(::rocksdb::FlushOptions()).ok());
  if (level == 0) return;
  ::rocksdb::ColumnFamilyMetaData meta;
  db.GetColumnFamilyMetaData(&meta);
  std::vector<std::string> l0;
  for (const auto& f : meta.levels[0].files) l0.push_back(f.name);
  const ::rocksdb::Status s = db.CompactFiles(::rocksdb::CompactionOptions(), l0, level);
  ASSERT_TRUE(s.ok()) << s.ToString();
}

// Filter bits per entry of every live file, by level (table properties).
std::multimap<int, double> BitsPerEntryByLevel(::rocksdb::DB& db) {
  ::rocksdb::ColumnFamilyMetaData meta;
  db.GetColumnFamilyMetaData(&meta);
  ::rocksdb::TablePropertiesCollection props;
  EXPECT_TRUE(db.GetPropertiesOfAllTables(&props).ok());
  std::multimap<int, double> bits;
  for (const auto& level : meta.levels) {
    for (const auto& f : level.files) {
      for (const auto& [path, p] : props) {
        if (path.size() >= f.name.size() && path.compare(path.size() - f.name.size(), f.name.size(), f.name) == 0) {
          bits.emplace(level.level, 8.0 * p->filter_size / p->num_filter_entries);
        }
      }
    }
  }
  return bits;
}

void ExpectAllFound(::rocksdb::DB& db, const std::vector<std::vector<std::string>>& batches) {
  for (const auto& keys : batches) ExpectEveryKeyFound(db, keys);
}

TEST_P(DbCompactKind, KindByLevelAndEveryKeyFound) {
  TempDir dir;
  // Batch b holds the present keys 2i with i % 4 == b: every file spans
  // the whole key range, and the odd (absent) keys fall inside all four.
  std::vector<std::vector<std::string>> batches(4);
  for (size_t i = 0; i < 24000; ++i) batches[i % 4].push_back(Key(2 * i));
  const auto absent = Keys(1, 5000, 8);
  const auto policy = Policy(kCompactFrom);
  ::rocksdb::Options options = Options(policy);
  {
    auto db = OpenDb(options, dir.path());
    ASSERT_TRUE(db);
    FlushTo(*db, batches[0], 3);
    FlushTo(*db, batches[1], 2);
    FlushTo(*db, batches[2], 1);
    FlushTo(*db, batches[3], 0);

    // Builders: compact at >= kCompactFrom, Bloom above (flushes are -1).
    ASSERT_FALSE(record_.built.empty());
    std::set<int> levels_built;
    for (const auto& [level, kind] : record_.built) {
      EXPECT_EQ(kind, level >= kCompactFrom ? FilterKind::kCompact : FilterKind::kBloom) << "level " << level;
      levels_built.insert(level);
    }
    EXPECT_EQ(levels_built, (std::set<int>{-1, 1, 2, 3}));
    // Files: one per level; compact ones spend fewer bits per entry.
    const auto bits = BitsPerEntryByLevel(*db);
    ASSERT_EQ(bits.size(), 4u);
    if (!GetParam().level_aware) {
      for (const auto& [level, b] : bits) {
        if (level >= kCompactFrom) {
          EXPECT_LT(b, kMostCompactBits) << "level " << level;
        } else {
          EXPECT_GE(b, 10.0) << "level " << level;
        }
      }
    }
    ExpectAllFound(*db, batches);
    // Four filters per absent key, each rejecting ~99 %.
    EXPECT_GT(AbsentKeysFiltered(*db, *options.statistics, absent), absent.size() * 4 * 9 / 10);
    EXPECT_EQ(record_.read.count(FilterKind::kUnknown), 0u);
    EXPECT_GT(record_.read.count(FilterKind::kCompact), 0u);
    EXPECT_GT(record_.read.count(FilterKind::kBloom), 0u);

    // Everything compacted down level by level into the last level: the
    // files written on the way get their levels' kinds, the last ones the
    // compact kind.
    record_.built.clear();
    FlushAndCompact(*db);
    ASSERT_FALSE(record_.built.empty());
    for (const auto& [level, kind] : record_.built) {
      EXPECT_EQ(kind, level >= kCompactFrom ? FilterKind::kCompact : FilterKind::kBloom) << "level " << level;
    }
    EXPECT_EQ(record_.built.back().first, kLastLevel);
    for (const auto& [level, b] : BitsPerEntryByLevel(*db)) {
      EXPECT_EQ(level, kLastLevel);
      if (!GetParam().level_aware) {
        EXPECT_LT(b, kMostCompactBits);
      }
    }
    ExpectAllFound(*db, batches);
    EXPECT_GT(AbsentKeysFiltered(*db, *options.statistics, absent), absent.size() * 9 / 10);
    EXPECT_EQ(policy->num_malformed_filters(), 0u);
    EXPECT_EQ(policy->num_compact_fallbacks(), 0u);
  }

  // Reopened with the option off: the compact filters are read as before.
  const auto off = Policy(LinebloomPolicyOptions::kNeverCompact);
  record_.read.clear();
  options = Options(off);
  auto db = OpenDb(options, dir.path());
  ASSERT_TRUE(db);
  ExpectAllFound(*db, batches);
  EXPECT_GT(AbsentKeysFiltered(*db, *options.statistics, absent), absent.size() * 9 / 10);
  EXPECT_GT(record_.read.count(FilterKind::kCompact), 0u);
  EXPECT_EQ(off->num_malformed_filters(), 0u);
}

// compact_bottommost alone: RocksDB marks the output of a compaction into
// the last level as bottommost, so it gets the compact kind; flushes do not.
TEST_P(DbCompactKind, BottommostFilesGetTheCompactKind) {
  TempDir dir;
  LinebloomPolicyOptions o;
  o.compact_bottommost = true;
  o.level_aware = GetParam().level_aware;
  const auto policy = NewLinebloomFilterPolicy(o);
  ::rocksdb::Options options = Options(policy);
  auto db = OpenDb(options, dir.path());
  ASSERT_TRUE(db);
  const auto keys = Keys(0, 20000, 2);
  PutAll(*db, keys);
  FlushAndCompact(*db);
  ASSERT_FALSE(record_.built.empty());
  for (const auto& [level, kind] : record_.built) {
    EXPECT_EQ(kind, level == -1 ? FilterKind::kBloom : FilterKind::kCompact) << "level " << level;
  }
  ExpectAllFound(*db, {keys});
  EXPECT_GT(AbsentKeysFiltered(*db, *options.statistics, Keys(1, 5000, 2)), 5000u * 9 / 10);
}

// OPTIONS file round trip: RocksDB writes compact_from_level and
// compact_bottommost into the DB's OPTIONS file, LoadLatestOptions gives
// them back, and a DB opened from the loaded options writes compact
// filters from that level down.
TEST(RocksdbCompactKindOptionsFile, OptionsComeBack) {
  RegisterLinebloomWithDefaultLibrary();
  TempDir dir;
  LinebloomPolicyOptions written;
  written.bits_per_key = 12;
  written.compact_from_level = 1;
  written.compact_bottommost = true;
  const auto keys = Keys(0, 10000, 2);
  {
    auto db = OpenDb(MakeOptions(NewLinebloomFilterPolicy(written), FilterMode()), dir.path());
    ASSERT_TRUE(db);
  }
  ::rocksdb::DBOptions db_options;
  std::vector<::rocksdb::ColumnFamilyDescriptor> cfs;
  const auto policy = LoadOptionsFile(dir.path(), &db_options, &cfs);
  ASSERT_NE(policy, nullptr);
  const auto* loaded = policy->CheckedCast<LinebloomFilterPolicy>();
  ASSERT_NE(loaded, nullptr) << policy->Name();
  EXPECT_EQ(loaded->options().bits_per_key, 12.0);
  EXPECT_EQ(loaded->options().compact_from_level, 1);
  EXPECT_TRUE(loaded->options().compact_bottommost);

  std::vector<::rocksdb::ColumnFamilyHandle*> handles;
  std::unique_ptr<::rocksdb::DB> db;
  db_options.statistics = ::rocksdb::CreateDBStatistics();
  ASSERT_TRUE(OpenDB(db_options, dir.path(), cfs, &handles, &db).ok());
  PutAll(*db, keys);
  FlushAndCompact(*db);
  // One file at the last level, of the compact kind: at 12 bits per key its
  // Bloom-equivalent is under 9 bits per entry.
  const auto bits = BitsPerEntryByLevel(*db);
  ASSERT_FALSE(bits.empty());
  for (const auto& [level, b] : bits) EXPECT_LT(b, 10.0) << "level " << level;
  ExpectAllFound(*db, {keys});
  for (auto* h : handles) ASSERT_TRUE(db->DestroyColumnFamilyHandle(h).ok());
}

INSTANTIATE_TEST_SUITE_P(Rocksdb, DbCompactKind,
                         ::testing::Values(Case{"full", false, false}, Case{"partitioned", true, false},
                                           Case{"full_level_aware", false, true},
                                           Case{"partitioned_level_aware", true, true},
                                           Case{"partitioned_prefix", true, false, 14}),
                         [](const ::testing::TestParamInfo<Case>& param_info) { return param_info.param.name; });

}  // namespace
}  // namespace linebloom::rocksdb_plugin
