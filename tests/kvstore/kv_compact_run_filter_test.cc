// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// Options::compact_run_filters_from_level: a tiered store built by
// auto-compaction gives the runs of the chosen levels compact run filters
// and the others Bloom ones (Stats().runs[].run_filter_kind); every key is
// found and absent keys are stopped by the run filters; reopened with the
// option changed the store reads its runs of both kinds, writes new runs
// with the new choice, and still finds every key.

#include <gtest/gtest.h>

#include <map>
#include <set>

#include "kv_test_util.h"

namespace linebloom::kvstore {
namespace {

using testing::KeyFor;
using testing::TempDir;

constexpr uint64_t kKeysPerRound = 12000;

Options StoreOptions(Env* env, int compact_from_level) {
  Options o;
  o.env = env;
  o.sync_writes = false;
  o.write_buffer_size = 64 << 10;  // many flushes, so the tiers fill
  o.tier_fanout = 3;
  o.compact_run_filters_from_level = compact_from_level;
  return o;
}

// Writes keys [first, first + kKeysPerRound) (even numbers) with values
// naming `round`, into `model` too.
void WriteRound(KvStore* store, uint64_t first, int round, std::map<std::string, std::string>* model) {
  WriteBatch batch;
  for (uint64_t i = first; i < first + kKeysPerRound; ++i) {
    const std::string key = KeyFor(2 * i);
    std::string value = std::to_string(round);
    value.append("/").append(std::to_string(i));
    batch.Put(key, value);
    (*model)[key] = value;
    if (batch.Count() == 512) {
      ASSERT_TRUE(store->Write(batch).ok());
      batch.Clear();
    }
  }
  ASSERT_TRUE(store->Write(batch).ok());
  ASSERT_TRUE(store->Flush().ok());
}

// Every key of `model` is found with its value; absent keys between them
// are not, and the run filters stop nearly all of those lookups.
void ExpectStoreHolds(const KvStore& store, const std::map<std::string, std::string>& model, const char* when) {
  std::string value;
  for (const auto& [key, want] : model) {
    const Status s = store.Get(key, &value);
    ASSERT_TRUE(s.ok()) << when << ": " << key << ": " << s.ToString();
    ASSERT_EQ(value, want) << when << ": " << key;
  }
  const LookupCounters before = store.Stats().total;
  for (uint64_t i = 0; i < 3 * kKeysPerRound; i += 3) {
    ASSERT_TRUE(store.Get(KeyFor(2 * i + 1), &value).IsNotFound()) << when;
  }
  LookupCounters after = store.Stats().total;
  const uint64_t checks = after.run_filter_checks - before.run_filter_checks;
  const uint64_t negatives = after.run_filter_negatives - before.run_filter_negatives;
  EXPECT_GT(checks, 0u) << when;
  EXPECT_GE(negatives, checks * 95 / 100) << when;
}

// Run filter kinds by level: {level -> kinds seen}.
std::map<int, std::set<std::string>> KindsByLevel(const KvStore& store) {
  std::map<int, std::set<std::string>> out;
  for (const RunStats& r : store.Stats().runs) out[r.level].insert(r.run_filter_kind);
  return out;
}

TEST(KvCompactRunFilterTest, DeepLevelsCompactAndReopenWithTheOptionChanged) {
  TempDir dir;
  testing::NoSyncEnv env;
  std::map<std::string, std::string> model;
  std::unique_ptr<KvStore> store;
  ASSERT_TRUE(KvStore::Open(dir.path(), StoreOptions(&env, 1), &store).ok());
  for (int round = 0; round < 3; ++round) WriteRound(store.get(), round * kKeysPerRound, round, &model);
  auto kinds = KindsByLevel(*store);
  ASSERT_GE(kinds.size(), 2u) << "the rounds must fill more than one level";
  for (const auto& [level, seen] : kinds) {
    EXPECT_EQ(seen, std::set<std::string>{level >= 1 ? "compact" : "bloom"}) << "level " << level;
  }
  ExpectStoreHolds(*store, model, "compact from level 1");

  // Reopened with Bloom run filters only: the compact runs stay and read,
  // new runs are Bloom, and overwrites of old keys win.
  ASSERT_TRUE(store->Close().ok());
  ASSERT_TRUE(KvStore::Open(dir.path(), StoreOptions(&env, kMaxLevels), &store).ok());
  ExpectStoreHolds(*store, model, "reopened without compact run filters");
  WriteRound(store.get(), kKeysPerRound / 2, 3, &model);
  std::set<std::string> all;
  for (const auto& [level, seen] : KindsByLevel(*store)) all.insert(seen.begin(), seen.end());
  EXPECT_EQ(all, (std::set<std::string>{"bloom", "compact"}));
  ExpectStoreHolds(*store, model, "both kinds");

  // Reopened with compact run filters everywhere, then merged into one run.
  ASSERT_TRUE(store->Close().ok());
  ASSERT_TRUE(KvStore::Open(dir.path(), StoreOptions(&env, 0), &store).ok());
  ExpectStoreHolds(*store, model, "reopened with compact run filters everywhere");
  ASSERT_TRUE(store->Compact().ok());
  ASSERT_EQ(store->Stats().runs.size(), 1u);
  EXPECT_EQ(store->Stats().runs[0].run_filter_kind, "compact");
  ExpectStoreHolds(*store, model, "compacted");
  EXPECT_EQ(testing::Contents(*store), model);
  testing::ExpectCounterIdentities(store->Stats().total, "total");
}

}  // namespace
}  // namespace linebloom::kvstore
