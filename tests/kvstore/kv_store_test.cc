// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// The KvStore API: reads and writes across the memtable and runs, reopening,
// compaction, the directory lock, limits and odd keys.

#include <gtest/gtest.h>

#include "kv_test_util.h"
#include "linebloom/kvstore/kv_store.h"

namespace linebloom::kvstore {
namespace {

using testing::Contents;
using testing::TempDir;

Options FastOptions() {
  Options o;
  o.sync_writes = false;  // Close syncs; these tests do not cut power
  return o;
}

std::unique_ptr<KvStore> OpenOrDie(const std::string& dir, const Options& options = FastOptions()) {
  std::unique_ptr<KvStore> store;
  Status s = KvStore::Open(dir, options, &store);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return store;
}

std::string GetOr(const KvStore& store, std::string_view key, const char* absent = "<absent>") {
  std::string v;
  Status s = store.Get(key, &v);
  if (s.IsNotFound()) return absent;
  EXPECT_TRUE(s.ok()) << s.ToString();
  return v;
}

TEST(KvStoreTest, PutGetDeleteInTheMemtable) {
  TempDir dir;
  auto store = OpenOrDie(dir.path());
  ASSERT_TRUE(store->Put("a", "1").ok());
  ASSERT_TRUE(store->Put("b", "2").ok());
  ASSERT_TRUE(store->Put("a", "3").ok());
  ASSERT_TRUE(store->Delete("b").ok());
  ASSERT_TRUE(store->Delete("never-there").ok());
  EXPECT_EQ(GetOr(*store, "a"), "3");
  EXPECT_EQ(GetOr(*store, "b"), "<absent>");
  EXPECT_EQ(Contents(*store), (std::map<std::string, std::string>{{"a", "3"}}));
  const StoreStats st = store->Stats();
  EXPECT_EQ(st.puts, 3u);
  EXPECT_EQ(st.deletes, 2u);
  EXPECT_EQ(st.memtable_hits, 2u);
}

TEST(KvStoreTest, NewerRunsShadowOlderOnesAndTombstonesHideValues) {
  TempDir dir;
  auto store = OpenOrDie(dir.path());
  for (int i = 0; i < 100; ++i) ASSERT_TRUE(store->Put(std::string("k").append(std::to_string(i)), "old").ok());
  ASSERT_TRUE(store->Flush().ok());
  for (int i = 0; i < 100; i += 2) ASSERT_TRUE(store->Put(std::string("k").append(std::to_string(i)), "new").ok());
  for (int i = 0; i < 100; i += 3) ASSERT_TRUE(store->Delete(std::string("k").append(std::to_string(i))).ok());
  ASSERT_TRUE(store->Flush().ok());
  ASSERT_EQ(store->Stats().runs.size(), 2u);
  for (int i = 0; i < 100; ++i) {
    const std::string expect = i % 3 == 0 ? "<absent>" : i % 2 == 0 ? "new" : "old";
    EXPECT_EQ(GetOr(*store, std::string("k").append(std::to_string(i))), expect) << i;
  }
  // A tombstone in the memtable hides a value in a run.
  ASSERT_TRUE(store->Delete("k1").ok());
  EXPECT_EQ(GetOr(*store, "k1"), "<absent>");
  EXPECT_EQ(Contents(*store).size(), 100u - 34u - 1u);
}

TEST(KvStoreTest, ScanIsOrderedMergedAndHalfOpen) {
  TempDir dir;
  auto store = OpenOrDie(dir.path());
  ASSERT_TRUE(store->Put("b", "run1").ok());
  ASSERT_TRUE(store->Put("d", "run1").ok());
  ASSERT_TRUE(store->Put("f", "run1").ok());
  ASSERT_TRUE(store->Flush().ok());
  ASSERT_TRUE(store->Put("a", "run2").ok());
  ASSERT_TRUE(store->Put("d", "run2").ok());
  ASSERT_TRUE(store->Flush().ok());
  ASSERT_TRUE(store->Put("c", "mem").ok());
  ASSERT_TRUE(store->Delete("f").ok());

  std::vector<std::pair<std::string, std::string>> out;
  ASSERT_TRUE(store->Scan("", std::nullopt, &out).ok());
  EXPECT_EQ(out, (std::vector<std::pair<std::string, std::string>>{
                     {"a", "run2"}, {"b", "run1"}, {"c", "mem"}, {"d", "run2"}}));
  ASSERT_TRUE(store->Scan("b", "d", &out).ok());
  EXPECT_EQ(out, (std::vector<std::pair<std::string, std::string>>{{"b", "run1"}, {"c", "mem"}}));
  ASSERT_TRUE(store->Scan("bb", std::nullopt, &out).ok());
  EXPECT_EQ(out.size(), 2u);
  ASSERT_TRUE(store->Scan("d", "d", &out).ok());
  EXPECT_TRUE(out.empty());
  ASSERT_TRUE(store->Scan("e", "a", &out).ok());
  EXPECT_TRUE(out.empty());

  // The visitor stops the scan.
  int seen = 0;
  ASSERT_TRUE(store->Scan("", std::nullopt, [&](std::string_view, std::string_view) { return ++seen < 2; }).ok());
  EXPECT_EQ(seen, 2);
}

TEST(KvStoreTest, ReopenReplaysTheLogAndKeepsRuns) {
  TempDir dir;
  {
    auto store = OpenOrDie(dir.path());
    ASSERT_TRUE(store->Put("flushed", "1").ok());
    ASSERT_TRUE(store->Flush().ok());
    ASSERT_TRUE(store->Put("logged", "2").ok());
    ASSERT_TRUE(store->Delete("flushed").ok());
    ASSERT_TRUE(store->Close().ok());
  }
  auto store = OpenOrDie(dir.path());
  EXPECT_EQ(GetOr(*store, "logged"), "2");
  EXPECT_EQ(GetOr(*store, "flushed"), "<absent>");
  EXPECT_EQ(store->Stats().wal_records_replayed, 2u);
  EXPECT_EQ(store->Stats().wal_bytes_dropped, 0u);
  // Writes after a reopen append to the same log.
  ASSERT_TRUE(store->Put("after", "3").ok());
  store.reset();
  store = OpenOrDie(dir.path());
  EXPECT_EQ(Contents(*store), (std::map<std::string, std::string>{{"after", "3"}, {"logged", "2"}}));
}

TEST(KvStoreTest, CompactDropsOverwrittenValuesAndTombstones) {
  TempDir dir;
  Options o = FastOptions();
  o.auto_compaction = false;
  auto store = OpenOrDie(dir.path(), o);
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < 50; ++i)
      ASSERT_TRUE(store->Put(std::string("k").append(std::to_string(i)), std::to_string(round)).ok());
    ASSERT_TRUE(store->Flush().ok());
  }
  for (int i = 0; i < 10; ++i) ASSERT_TRUE(store->Delete(std::string("k").append(std::to_string(i))).ok());
  ASSERT_TRUE(store->Compact().ok());
  const StoreStats st = store->Stats();
  ASSERT_EQ(st.runs.size(), 1u);
  EXPECT_EQ(st.runs[0].entries, 40u);  // one value per live key, no tombstones
  EXPECT_EQ(st.compactions, 1u);
  EXPECT_EQ(GetOr(*store, "k5"), "<absent>");
  EXPECT_EQ(GetOr(*store, "k15"), "2");
  // Only the live run's files remain.
  EXPECT_EQ(testing::FilesWithSuffix(dir.path(), ".sst").size(), 1u);
  EXPECT_EQ(testing::FilesWithSuffix(dir.path(), ".lbf").size(), 1u);
  EXPECT_EQ(testing::FilesWithSuffix(dir.path(), ".log").size(), 1u);

  // Deleting everything and compacting leaves no run at all.
  for (int i = 10; i < 50; ++i) ASSERT_TRUE(store->Delete(std::string("k").append(std::to_string(i))).ok());
  ASSERT_TRUE(store->Compact().ok());
  EXPECT_TRUE(store->Stats().runs.empty());
  EXPECT_TRUE(Contents(*store).empty());
}

TEST(KvStoreTest, TieredCompactionBoundsRunsPerLevel) {
  TempDir dir;
  Options o = FastOptions();
  o.tier_fanout = 3;
  auto store = OpenOrDie(dir.path(), o);
  std::map<std::string, std::string> model;
  for (int flush = 0; flush < 20; ++flush) {
    for (int i = 0; i < 20; ++i) {
      const std::string key = std::string("k").append(std::to_string((flush * 7 + i * 13) % 97));
      const std::string value = std::to_string(flush);
      ASSERT_TRUE(store->Put(key, value).ok());
      model[key] = value;
    }
    ASSERT_TRUE(store->Flush().ok());
    const StoreStats st = store->Stats();
    for (const LevelStats& l : st.levels) EXPECT_LT(l.runs, 3u) << "level " << l.level;
    // Levels never decrease from newest to oldest run.
    for (size_t i = 1; i < st.runs.size(); ++i) EXPECT_LE(st.runs[i - 1].level, st.runs[i].level);
  }
  EXPECT_GT(store->Stats().compactions, 5u);
  EXPECT_EQ(Contents(*store), model);
}

TEST(KvStoreTest, EmptyKeyAndEmptyValueAreOrdinaryBytes) {
  TempDir dir;
  auto store = OpenOrDie(dir.path());
  ASSERT_TRUE(store->Put("", "empty key").ok());
  ASSERT_TRUE(store->Put("e", "").ok());
  EXPECT_EQ(GetOr(*store, ""), "empty key");
  ASSERT_TRUE(store->Flush().ok());
  EXPECT_EQ(GetOr(*store, ""), "empty key");
  EXPECT_EQ(GetOr(*store, "e"), "");
  EXPECT_EQ(Contents(*store), (std::map<std::string, std::string>{{"", "empty key"}, {"e", ""}}));
  ASSERT_TRUE(store->Delete("").ok());
  ASSERT_TRUE(store->Compact().ok());
  EXPECT_EQ(GetOr(*store, ""), "<absent>");
  store.reset();
  store = OpenOrDie(dir.path());
  EXPECT_EQ(Contents(*store), (std::map<std::string, std::string>{{"e", ""}}));
}

TEST(KvStoreTest, BinaryKeysAndAOneMebibyteValue) {
  TempDir dir;
  const std::string key("\0\xff\n\t key", 9);
  std::string big(size_t{1} << 20, '\0');
  for (size_t i = 0; i < big.size(); ++i) big[i] = static_cast<char>((i * 131) >> 3);
  {
    auto store = OpenOrDie(dir.path());
    ASSERT_TRUE(store->Put(key, big).ok());
    ASSERT_TRUE(store->Put("small", "x").ok());
    EXPECT_EQ(GetOr(*store, key), big);
  }
  auto store = OpenOrDie(dir.path());  // through the log
  EXPECT_EQ(GetOr(*store, key), big);
  ASSERT_TRUE(store->Flush().ok());  // through a run
  EXPECT_EQ(GetOr(*store, key), big);
  EXPECT_EQ(GetOr(*store, "small"), "x");
}

TEST(KvStoreTest, OversizedKeysAndValuesAreRefusedAndNotWritten) {
  TempDir dir;
  auto store = OpenOrDie(dir.path());
  const std::string huge_key(kMaxKeySize + 1, 'k');
  Status s = store->Put(huge_key, "v");
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  s = store->Delete(huge_key);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  // A batch with one bad operation writes none of them.
  WriteBatch batch;
  batch.Put("fine", "v");
  batch.Put(huge_key, "v");
  EXPECT_TRUE(store->Write(batch).IsInvalidArgument());
  EXPECT_EQ(GetOr(*store, "fine"), "<absent>");
  ASSERT_TRUE(store->Put(std::string(kMaxKeySize, 'k'), "largest key").ok());
  ASSERT_TRUE(store->Flush().ok());
  EXPECT_EQ(GetOr(*store, std::string(kMaxKeySize, 'k')), "largest key");
}

TEST(KvStoreTest, WriteBatchIsAppliedInOrderAsOneRecord) {
  TempDir dir;
  {
    auto store = OpenOrDie(dir.path());
    WriteBatch batch;
    batch.Put("a", "1");
    batch.Put("b", "2");
    batch.Delete("a");
    batch.Put("c", "3");
    EXPECT_EQ(batch.Count(), 4u);
    ASSERT_TRUE(store->Write(batch).ok());
    ASSERT_TRUE(store->Write(WriteBatch()).ok());
  }
  auto store = OpenOrDie(dir.path());
  EXPECT_EQ(store->Stats().wal_records_replayed, 1u);
  EXPECT_EQ(Contents(*store), (std::map<std::string, std::string>{{"b", "2"}, {"c", "3"}}));
}

TEST(KvStoreTest, TheDirectoryLockAllowsOneOpenStore) {
  TempDir dir;
  auto store = OpenOrDie(dir.path());
  std::unique_ptr<KvStore> second;
  Status s = KvStore::Open(dir.path(), FastOptions(), &second);
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
  EXPECT_NE(s.message().find("locked"), std::string::npos) << s.ToString();
  EXPECT_EQ(second, nullptr);
  ASSERT_TRUE(store->Close().ok());
  ASSERT_TRUE(KvStore::Open(dir.path(), FastOptions(), &second).ok());
}

TEST(KvStoreTest, AClosedStoreRefusesWork) {
  TempDir dir;
  auto store = OpenOrDie(dir.path());
  ASSERT_TRUE(store->Put("a", "1").ok());
  ASSERT_TRUE(store->Close().ok());
  ASSERT_TRUE(store->Close().ok());
  std::string v;
  EXPECT_TRUE(store->Get("a", &v).IsInvalidArgument());
  EXPECT_TRUE(store->Put("a", "2").IsInvalidArgument());
  EXPECT_TRUE(store->Flush().IsInvalidArgument());
  EXPECT_TRUE(store->Compact().IsInvalidArgument());
}

TEST(KvStoreTest, OpenOptionsAreChecked) {
  TempDir dir;
  std::unique_ptr<KvStore> store;
  Options o = FastOptions();
  o.create_if_missing = false;
  Status s = KvStore::Open(dir.Sub("missing"), o, &store);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  s = KvStore::Open(dir.path(), o, &store);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();  // exists, but holds no store

  ASSERT_TRUE(KvStore::Open(dir.path(), FastOptions(), &store).ok());
  store.reset();
  o = FastOptions();
  o.error_if_exists = true;
  EXPECT_TRUE(KvStore::Open(dir.path(), o, &store).IsInvalidArgument());
  o = FastOptions();
  o.tier_fanout = 1;
  EXPECT_TRUE(KvStore::Open(dir.path(), o, &store).IsInvalidArgument());
  o = FastOptions();
  o.block_size = 0;
  EXPECT_TRUE(KvStore::Open(dir.path(), o, &store).IsInvalidArgument());
  EXPECT_TRUE(KvStore::Open("", FastOptions(), &store).IsInvalidArgument());
  // A regular file is not a store directory.
  testing::WriteBytes(dir.Sub("file"), "x");
  EXPECT_FALSE(KvStore::Open(dir.Sub("file"), FastOptions(), &store).ok());
}

TEST(KvStoreTest, AFullMemtableFlushesByItself) {
  TempDir dir;
  Options o = FastOptions();
  o.write_buffer_size = 16 << 10;
  o.tier_fanout = 100;
  auto store = OpenOrDie(dir.path(), o);
  for (int i = 0; i < 2000; ++i)
    ASSERT_TRUE(store->Put(std::string("key").append(std::to_string(i)), std::string(20, 'v')).ok());
  const StoreStats st = store->Stats();
  EXPECT_GE(st.flushes, 10u);
  EXPECT_EQ(st.runs.size(), st.flushes);
  EXPECT_LT(st.memtable_bytes, o.write_buffer_size);
  EXPECT_EQ(Contents(*store).size(), 2000u);
}

TEST(KvStoreTest, StatsCountPerRunAndPerLevelAndSurviveReopen) {
  TempDir dir;
  Options o = FastOptions();
  o.auto_compaction = false;
  {
    auto store = OpenOrDie(dir.path(), o);
    for (int run = 0; run < 3; ++run) {
      for (int i = 0; i < 2000; ++i)
        ASSERT_TRUE(store->Put(std::string("key").append(std::to_string(i * 3 + run)), "v").ok());
      ASSERT_TRUE(store->Flush().ok());
    }
    std::string v;
    for (int i = 0; i < 6000; ++i)
      (void)store->Get(std::string("key").append(std::to_string(i)), &v);  // each found in one run
    for (int i = 0; i < 3000; ++i) (void)store->Get(std::string("key").append(std::to_string(i)) + "x", &v);  // absent
    const StoreStats st = store->Stats();
    ASSERT_EQ(st.runs.size(), 3u);
    uint64_t hits = 0;
    for (const RunStats& r : st.runs) {
      testing::ExpectCounterIdentities(r.counters, std::string("run ").append(std::to_string(r.file_number)));
      hits += r.counters.hits;
      EXPECT_GT(r.filter_bytes, 0u);
      // Per-block filters cost what they are configured to (10 bits/key):
      // sized to the byte, parameters once per table.
      EXPECT_NEAR(r.block_filter_bits_per_key, 10.0, 0.3) << r.file_number;
      EXPECT_GT(r.counters.reads_avoided(), 0u);
    }
    EXPECT_EQ(hits, 6000u);
    testing::ExpectCounterIdentities(st.total, "total");
    EXPECT_EQ(st.gets, 9000u);
    const std::string json = StatsToJson(st);
    EXPECT_NE(
        json.find(std::string("\"block_reads_avoided_by_filters\": ").append(std::to_string(st.total.reads_avoided()))),
        std::string::npos)
        << json;
  }
  auto store = OpenOrDie(dir.path(), o);
  const StoreStats st = store->Stats();
  EXPECT_EQ(st.gets, 9000u);
  uint64_t hits = 0;
  for (const RunStats& r : st.runs) hits += r.counters.hits;
  EXPECT_EQ(hits, 6000u);
  EXPECT_EQ(st.total.hits, 6000u);
}

}  // namespace
}  // namespace linebloom::kvstore
