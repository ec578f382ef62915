// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// Readers (Get, Scan, Stats) on many threads while writers put, delete,
// flush and compact. Keys written before the readers start must be seen,
// with their values, by every read, through every flush and compaction
// swap; churned keys must only ever show a value once written for them.
// Labelled `concurrency`: CI runs it under ThreadSanitizer.

#include <gtest/gtest.h>

#include <atomic>
#include <random>
#include <thread>

#include "kv_test_util.h"

namespace linebloom::kvstore {
namespace {

using testing::TempDir;

std::string StableKey(int i) { return std::string("stable").append(std::to_string(1000 + i)); }
std::string StableValue(int i) { return std::string("s").append(std::to_string(i * 31)); }
std::string ChurnKey(int i) { return std::string("churn").append(std::to_string(i % 500)); }
// A churned value names its key, so a reader can tell it was really written
// for that key.
std::string ChurnValue(int i) { return ChurnKey(i).append("=").append(std::to_string(i)); }

TEST(KvConcurrencyTest, ReadersSeeConsistentDataWhileWritersFlushAndCompact) {
  TempDir dir;
  testing::NoSyncEnv env;
  Options o;
  o.env = &env;
  o.sync_writes = false;
  o.write_buffer_size = 16 << 10;  // a flush every few hundred writes
  o.tier_fanout = 3;
  std::unique_ptr<KvStore> store;
  ASSERT_TRUE(KvStore::Open(dir.path(), o, &store).ok());
  constexpr int kStable = 300;
  for (int i = 0; i < kStable; ++i) ASSERT_TRUE(store->Put(StableKey(i), StableValue(i)).ok());

  std::atomic<bool> done{false};
  std::atomic<uint64_t> reads{0}, scans{0};
  std::vector<std::thread> threads;
  // Two writers (serialised inside the store), one explicit flusher/compactor.
  for (int w = 0; w < 2; ++w) {
    threads.emplace_back([&, w] {
      std::mt19937_64 rng(w);
      for (int i = w; i < 6000; i += 2) {
        Status s = rng() % 5 == 0 ? store->Delete(ChurnKey(i)) : store->Put(ChurnKey(i), ChurnValue(i));
        ASSERT_TRUE(s.ok()) << s.ToString();
      }
    });
  }
  threads.emplace_back([&] {
    for (int i = 0; i < 12 && !done; ++i) {
      ASSERT_TRUE(store->Flush().ok());
      if (i % 4 == 3) {
        ASSERT_TRUE(store->Compact().ok());
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  });
  std::vector<std::thread> readers;
  for (int r = 0; r < 3; ++r) {
    readers.emplace_back([&, r] {
      std::mt19937_64 rng(100 + r);
      std::string value;
      while (!done) {
        const int i = static_cast<int>(rng() % kStable);
        Status s = store->Get(StableKey(i), &value);
        ASSERT_TRUE(s.ok()) << StableKey(i) << ": " << s.ToString();
        ASSERT_EQ(value, StableValue(i));
        const int c = static_cast<int>(rng() % 6000);
        s = store->Get(ChurnKey(c), &value);
        if (s.ok()) {
          ASSERT_EQ(value.rfind(ChurnKey(c) + "=", 0), 0u) << value;
        } else {
          ASSERT_TRUE(s.IsNotFound()) << s.ToString();
        }
        ++reads;
      }
    });
  }
  readers.emplace_back([&] {
    while (!done) {
      std::vector<std::pair<std::string, std::string>> got;
      ASSERT_TRUE(store->Scan("stable", "stablf", &got).ok());
      ASSERT_EQ(got.size(), static_cast<size_t>(kStable));
      for (int i = 0; i < kStable; ++i) ASSERT_EQ(got[i].second, StableValue(i));
      const StoreStats st = store->Stats();
      ASSERT_GE(st.gets + 1, st.memtable_hits);
      ++scans;
    }
  });
  for (auto& t : threads) t.join();
  done = true;
  for (auto& t : readers) t.join();

  const StoreStats st = store->Stats();
  EXPECT_GT(st.flushes, 10u);
  EXPECT_GT(st.compactions, 2u);
  EXPECT_GT(reads.load(), 100u);
  EXPECT_GT(scans.load(), 5u);
  // Everything the writers finished with is there.
  std::string value;
  for (int i = 6000 - 500; i < 6000; ++i) {
    Status s = store->Get(ChurnKey(i), &value);
    if (s.ok()) {
      EXPECT_EQ(value, ChurnValue(i));
    } else {
      EXPECT_TRUE(s.IsNotFound());
    }
  }
}

TEST(KvConcurrencyTest, ConcurrentWritersLoseNothing) {
  TempDir dir;
  testing::NoSyncEnv env;
  Options o;
  o.env = &env;
  o.sync_writes = false;
  o.write_buffer_size = 32 << 10;
  std::unique_ptr<KvStore> store;
  ASSERT_TRUE(KvStore::Open(dir.path(), o, &store).ok());
  std::vector<std::thread> writers;
  for (int w = 0; w < 4; ++w) {
    writers.emplace_back([&, w] {
      for (int i = 0; i < 1500; ++i) {
        const std::string key = std::string("w").append(std::to_string(w)).append("-").append(std::to_string(i));
        ASSERT_TRUE(store->Put(key, key).ok());
      }
    });
  }
  for (auto& t : writers) t.join();
  ASSERT_TRUE(store->Close().ok());
  ASSERT_TRUE(KvStore::Open(dir.path(), o, &store).ok());
  const auto contents = testing::Contents(*store);
  EXPECT_EQ(contents.size(), 6000u);
  for (const auto& [k, v] : contents) EXPECT_EQ(k, v);
}

}  // namespace
}  // namespace linebloom::kvstore
