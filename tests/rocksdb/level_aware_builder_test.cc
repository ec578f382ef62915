// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// The builders the level-aware policy hands out: they report each finished
// filter to the planner, size a file that cannot move at Finish, and work in
// a real DB with partitioned filters.

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <rocksdb/db.h>
#include <rocksdb/options.h>
#include <rocksdb/table.h>

#include "bits_builder.h"
#include "db_fixture.h"
#include "level_aware_adapter.h"
#include "level_aware_test_util.h"
#include "linebloom/filter_format.h"
#include "linebloom/level_allocator.h"
#include "linebloom/planner/level_planner.h"
#include "support/planner_trees.h"
#include "test_keys.h"

namespace linebloom::rocksdb_plugin {
namespace {

using testing::BuildFilter;
using testing::Choose;
using testing::Context;
using testing::LevelAware;
using testing::MakeOptions;
using testing::OpenDb;
using testing::PutAll;
using testing::TempDir;

// Through the policy: the builders it hands out report their filters, so
// after files at every level the sparse upper levels get fewer bits than the
// unweighted model gives them.
TEST(RocksdbLevelAwareBuilder, FeedsTheEstimate) {
  LinebloomFilterPolicy policy(LevelAware(10));
  for (uint64_t i = 0; i < 100; ++i)
    BuildFilter(policy, 6, i * linebloom::testing::kShapeSpace / 100,
                (i + 1) * linebloom::testing::kShapeSpace / 100 - 1, 1000);
  for (uint64_t i = 0; i < 8; ++i) {
    BuildFilter(policy, 3, i * linebloom::testing::kShapeSpace / 16,
                i * linebloom::testing::kShapeSpace / 16 + linebloom::testing::kShapeSpace / 2 - 1, 1000);
    BuildFilter(policy, 4, i * linebloom::testing::kShapeSpace / 32,
                i * linebloom::testing::kShapeSpace / 32 + linebloom::testing::kShapeSpace / 4 - 1, 1000);
    BuildFilter(policy, 5, i * linebloom::testing::kShapeSpace / 32,
                i * linebloom::testing::kShapeSpace / 32 + linebloom::testing::kShapeSpace / 20 - 1, 1000);
  }
  const LevelAllocation unweighted = AllocateBitsSharedMiddle(linebloom::testing::ModelL3ToL6(), {}, 10);
  // (L3, L4 and L5 share one value either way.)
  EXPECT_LT(Choose(policy, 5)->bits_per_key, unweighted.bits_per_key[3]);
}

// Builders for level -1 (SstFileWriter) are not observed at all.
TEST(RocksdbLevelAwareBuilder, UnknownLevelIsNotObserved) {
  auto planner = std::make_shared<planner::LevelPlanner>(linebloom::testing::DefaultPlannerOptions());
  auto builder = std::make_unique<LinebloomBitsBuilder>(FilterOptions{}, false);
  const ::rocksdb::FilterBitsBuilder* raw = builder.get();
  EXPECT_EQ(ObserveFilters(planner, Context(-1).context, std::move(builder)).get(), raw);
}

// The key range the observing builder reports is the bytewise smallest and
// largest key, whatever the order the keys come in: keys of 0 to 40 bytes,
// many sharing prefixes (a prefix sorts first), bytes above 0x7f (compared
// unsigned), mostly ascending with some out of order.
TEST(RocksdbLevelAwareBuilder, ReportsTheBytewiseKeyRange) {
  std::mt19937_64 rng(17);
  for (int file = 0; file < 40; ++file) {
    auto planner = std::make_shared<planner::LevelPlanner>(linebloom::testing::DefaultPlannerOptions());
    auto builder =
        ObserveFilters(planner, Context(4).context, std::make_unique<LinebloomBitsBuilder>(FilterOptions{}, false));
    std::vector<std::string> keys;
    std::string key = "k";
    for (int i = 0; i < 300; ++i) {
      // Longer (sorts after), a prefix (sorts before), anywhere, or the
      // next key, mostly.
      const uint64_t step = rng() % 4;
      if (step == 0) {
        key.push_back(static_cast<char>(rng()));
      } else if (step == 1 && !key.empty()) {
        key.pop_back();
      } else if (step == 2) {
        key = std::string(rng() % 41, static_cast<char>(rng()));
      } else if (!key.empty()) {
        key.back() = static_cast<char>(key.back() + 1);
      }
      keys.push_back(key);
      builder->AddKey(key);
    }
    std::unique_ptr<const char[]> buf;
    builder->Finish(&buf);
    const std::vector<planner::TrackedFile> live = planner->RecordedLiveFiles("default");
    ASSERT_EQ(live.size(), 1u);
    EXPECT_EQ(live[0].smallest, *std::min_element(keys.begin(), keys.end())) << "file " << file;
    EXPECT_EQ(live[0].largest, *std::max_element(keys.begin(), keys.end())) << "file " << file;
  }
}

// Through the observing builder RocksDB gets: an L4 file whose first
// partition spans L5's records is sized at L4's own bits, and so is its
// second partition, past every record (one file, one decision); a file that
// overlaps nothing below keeps the bits it was created with.
TEST(RocksdbLevelAwareBuilder, SizesAPinnedFileAtFinish) {
  auto planner = std::make_shared<planner::LevelPlanner>(linebloom::testing::DefaultPlannerOptions());
  linebloom::testing::BuildToyTree(*planner);
  const auto key = linebloom::testing::KeyAt;
  using linebloom::testing::kToySpace;
  auto finish = [&](::rocksdb::FilterBitsBuilder& b, uint64_t from, uint64_t to) {
    for (uint64_t i = 0; i < 1280; ++i) b.AddKey(key(from + (to - from) / 1280 * i));
    std::unique_ptr<const char[]> buf;
    return b.Finish(&buf).size();
  };
  const double created = 10;
  auto observed = [&] {
    return ObserveFilters(planner, Context(4).context,
                          std::make_unique<LinebloomBitsBuilder>(FilterOptions{.bits_per_key = created}, false));
  };
  const std::optional<double> own = planner->BitsAtFinish("default", 4, key(0), key(kToySpace - 1), 1280);
  ASSERT_TRUE(own);
  ASSERT_GT(FilterBytesFor(1280, *own), FilterBytesFor(1280, created));
  auto pinned = observed();
  EXPECT_EQ(finish(*pinned, 0, kToySpace - 1), FilterBytesFor(1280, *own));
  EXPECT_EQ(finish(*pinned, 2 * kToySpace, 3 * kToySpace), FilterBytesFor(1280, *own));
  auto movable = observed();
  EXPECT_EQ(finish(*movable, 2 * kToySpace, 3 * kToySpace), FilterBytesFor(1280, created));
}

// A real leveled DB with automatic compactions and partitioned filters: the
// observing builder forwards partition sizing and post-verification, and
// every key is found, every absent key not.
TEST(RocksdbLevelAwareBuilder, RealDbWithObservedPartitionedFilters) {
  TempDir dir;
  const auto policy = NewLinebloomFilterPolicy(LevelAware(10));
  testing::FilterMode mode;
  mode.partitioned = true;
  ::rocksdb::Options options = MakeOptions(policy, mode);
  auto* table = options.table_factory->GetOptions<::rocksdb::BlockBasedTableOptions>();
  ASSERT_NE(table, nullptr);
  table->detect_filter_construct_corruption = true;
  table->metadata_block_size = 512;
  options.write_buffer_size = 64 << 10;
  options.target_file_size_base = 64 << 10;
  options.max_bytes_for_level_base = 256 << 10;
  options.level_compaction_dynamic_level_bytes = true;
  auto db = OpenDb(options, dir.path());
  ASSERT_TRUE(db);
  std::mt19937_64 rng(5);
  std::vector<std::string> keys;
  for (int i = 0; i < 40000; ++i) keys.push_back(testing::Key(2 * (rng() % 10000000)));
  PutAll(*db, keys);
  ASSERT_TRUE(db->Flush(::rocksdb::FlushOptions()).ok());
  // RocksDB 7.8 has no public WaitForCompact: poll until nothing is pending.
  for (int i = 0; i < 3000; ++i) {
    uint64_t pending = 0, running = 0, flushes = 0;
    db->GetIntProperty("rocksdb.compaction-pending", &pending);
    db->GetIntProperty("rocksdb.num-running-compactions", &running);
    db->GetIntProperty("rocksdb.num-running-flushes", &flushes);
    if (pending + running + flushes == 0) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ::rocksdb::ColumnFamilyMetaData meta;
  db->GetColumnFamilyMetaData(&meta);
  int levels_with_files = 0;
  for (const auto& level : meta.levels) levels_with_files += level.files.empty() ? 0 : 1;
  EXPECT_GE(levels_with_files, 2);
  ::rocksdb::ReadOptions ro;
  std::string value;
  for (const auto& key : keys) {
    ASSERT_TRUE(db->Get(ro, key, &value).ok()) << key;
    ASSERT_EQ(value, testing::ValueFor(key));
  }
  for (int i = 0; i < 20000; ++i) {
    ASSERT_TRUE(db->Get(ro, testing::Key(2 * (rng() % 10000000) + 1), &value).IsNotFound());
  }
}

}  // namespace
}  // namespace linebloom::rocksdb_plugin
