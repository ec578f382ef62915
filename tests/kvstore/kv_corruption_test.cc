// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// Damaged files in a store directory: every flipped byte of a run's table
// and filter, truncated and missing runs, a damaged log (in the middle and at
// the tail) and MANIFEST. Each must give a clear error or the right answer -
// never a crash, never a wrong value, never a stored key reported absent.

#include <gtest/gtest.h>

#include <filesystem>

#include "kv_test_util.h"

namespace linebloom::kvstore {
namespace {

using testing::Contents;
using testing::ReadBytes;
using testing::TempDir;
using testing::WriteBytes;
using Model = std::map<std::string, std::string>;

Options Small(Env* env) {
  Options o;
  o.env = env;
  o.sync_writes = false;
  o.block_size = 128;
  return o;
}

// A store with one run of `n` keys and nothing in the log.
Model MakeOneRunStore(const std::string& dir, Env* env, int n = 40) {
  Model model;
  std::unique_ptr<KvStore> store;
  EXPECT_TRUE(KvStore::Open(dir, Small(env), &store).ok());
  for (int i = 0; i < n; ++i) {
    const std::string key = std::string("key").append(std::to_string(i * 2));
    const std::string value = std::string("value").append(std::to_string(i));
    EXPECT_TRUE(store->Put(key, value).ok());
    model[key] = value;
  }
  EXPECT_TRUE(store->Flush().ok());
  EXPECT_TRUE(store->Close().ok());
  return model;
}

// Opens `dir` and checks the contract for a damaged store: Open fails with
// Corruption, or every answer is right or an error. Returns whether it opened.
bool OpenAndCheck(const std::string& dir, Env* env, const Model& model, const std::string& where) {
  std::unique_ptr<KvStore> store;
  Status s = KvStore::Open(dir, Small(env), &store);
  if (!s.ok()) {
    EXPECT_TRUE(s.IsCorruption() || s.IsNotSupported()) << where << ": " << s.ToString();
    return false;
  }
  for (const auto& [k, v] : model) {
    std::string got;
    Status g = store->Get(k, &got);
    if (g.ok()) {
      EXPECT_EQ(got, v) << where << ": wrong value for " << k;
    } else {
      EXPECT_TRUE(g.IsCorruption() || g.IsIOError()) << where << ": " << k << ": " << g.ToString();
    }
    // An absent key is absent or an error, never a value.
    g = store->Get(k + "-absent", &got);
    EXPECT_TRUE(g.IsNotFound() || g.IsCorruption() || g.IsIOError()) << where << ": " << g.ToString();
  }
  std::vector<std::pair<std::string, std::string>> all;
  Status sc = store->Scan("", std::nullopt, &all);
  if (sc.ok()) {
    EXPECT_EQ(Model(all.begin(), all.end()), model) << where << ": scan";
  } else {
    EXPECT_TRUE(sc.IsCorruption() || sc.IsIOError()) << where << ": " << sc.ToString();
  }
  return true;
}

TEST(KvCorruptionTest, EveryFlippedByteOfARunTable) {
  TempDir dir;
  testing::NoSyncEnv env;
  const Model model = MakeOneRunStore(dir.path(), &env);
  const std::vector<std::string> tables = testing::FilesWithSuffix(dir.path(), ".sst");
  ASSERT_EQ(tables.size(), 1u);
  const std::string good = ReadBytes(tables[0]);
  int opened = 0, refused = 0;
  for (size_t pos = 0; pos < good.size(); ++pos) {
    testing::PatchByte(tables[0], pos, static_cast<char>(good[pos] ^ (1 << (pos % 8))));
    (OpenAndCheck(dir.path(), &env, model, std::string("flip at ").append(std::to_string(pos))) ? opened : refused)++;
    testing::PatchByte(tables[0], pos, good[pos]);
    if (::testing::Test::HasFailure()) break;
  }
  WriteBytes(tables[0], good);
  EXPECT_TRUE(OpenAndCheck(dir.path(), &env, model, "restored"));
  std::printf("%zu-byte table: %d flips refused at Open, %d opened (errors or right answers)\n", good.size(), refused,
              opened);
}

TEST(KvCorruptionTest, EveryFlippedByteOfARunFilterIsRefused) {
  TempDir dir;
  testing::NoSyncEnv env;
  const Model model = MakeOneRunStore(dir.path(), &env);
  const std::vector<std::string> filters = testing::FilesWithSuffix(dir.path(), ".lbf");
  ASSERT_EQ(filters.size(), 1u);
  const std::string good = ReadBytes(filters[0]);
  for (size_t pos = 0; pos < good.size(); ++pos) {
    testing::PatchByte(filters[0], pos, static_cast<char>(good[pos] ^ 0x10));
    // The filter's own checksum covers every byte: a damaged filter could
    // otherwise hide a stored key.
    EXPECT_FALSE(OpenAndCheck(dir.path(), &env, model, std::string("flip at ").append(std::to_string(pos))));
    testing::PatchByte(filters[0], pos, good[pos]);
  }
}

TEST(KvCorruptionTest, TruncatedOrMissingRunFilesAreCorruption) {
  TempDir dir;
  const Model model = MakeOneRunStore(dir.path(), PosixEnv());
  const std::string table = testing::FilesWithSuffix(dir.path(), ".sst")[0];
  const std::string filter = testing::FilesWithSuffix(dir.path(), ".lbf")[0];
  const std::string table_bytes = ReadBytes(table), filter_bytes = ReadBytes(filter);
  std::unique_ptr<KvStore> store;

  WriteBytes(table, table_bytes.substr(0, table_bytes.size() - 1));
  Status s = KvStore::Open(dir.path(), Small(nullptr), &store);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(s.message().find(".sst"), std::string::npos) << s.ToString();

  std::filesystem::remove(table);
  s = KvStore::Open(dir.path(), Small(nullptr), &store);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(s.message().find("missing"), std::string::npos) << s.ToString();
  WriteBytes(table, table_bytes);

  WriteBytes(filter, filter_bytes + "x");
  s = KvStore::Open(dir.path(), Small(nullptr), &store);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  std::filesystem::remove(filter);
  s = KvStore::Open(dir.path(), Small(nullptr), &store);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  WriteBytes(filter, filter_bytes);
  EXPECT_TRUE(OpenAndCheck(dir.path(), PosixEnv(), model, "restored"));
}

// A store whose log holds `n` records (one put each) after a run.
std::string MakeLoggedStore(const std::string& dir, int n) {
  std::unique_ptr<KvStore> store;
  EXPECT_TRUE(KvStore::Open(dir, Small(nullptr), &store).ok());
  EXPECT_TRUE(store->Put("in-run", "r").ok());
  EXPECT_TRUE(store->Flush().ok());
  for (int i = 0; i < n; ++i) EXPECT_TRUE(store->Put(std::string("log").append(std::to_string(i)), "value").ok());
  EXPECT_TRUE(store->Close().ok());
  const auto logs = testing::FilesWithSuffix(dir, ".log");
  EXPECT_EQ(logs.size(), 1u);
  return logs.empty() ? "" : logs[0];
}

TEST(KvCorruptionTest, ADamagedLogRecordBeforeTheEndIsCorruption) {
  TempDir dir;
  const std::string log = MakeLoggedStore(dir.path(), 10);
  std::string bytes = ReadBytes(log);
  bytes[bytes.size() / 2] ^= 0x01;  // inside some record in the middle
  WriteBytes(log, bytes);
  std::unique_ptr<KvStore> store;
  Status s = KvStore::Open(dir.path(), Small(nullptr), &store);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(s.message().find(".log"), std::string::npos) << s.ToString();
  EXPECT_NE(s.message().find("offset"), std::string::npos) << s.ToString();
  // The damaged log is left as it was, for an operator to inspect.
  EXPECT_EQ(ReadBytes(log), bytes);
}

TEST(KvCorruptionTest, ATornLogTailIsDroppedAndCutOff) {
  TempDir dir;
  const std::string log = MakeLoggedStore(dir.path(), 10);
  const std::string bytes = ReadBytes(log);
  WriteBytes(log, bytes.substr(0, bytes.size() - 3));  // the last put, torn
  {
    std::unique_ptr<KvStore> store;
    ASSERT_TRUE(KvStore::Open(dir.path(), Small(nullptr), &store).ok());
    const Model seen = Contents(*store);
    EXPECT_EQ(seen.size(), 10u);  // in-run + log0..log8
    EXPECT_EQ(seen.count("log9"), 0u);
    EXPECT_GT(store->Stats().wal_bytes_dropped, 0u);
    ASSERT_TRUE(store->Put("after", "1").ok());
  }
  // The tail was cut before "after" was appended, so the log reads cleanly.
  std::unique_ptr<KvStore> store;
  Status s = KvStore::Open(dir.path(), Small(nullptr), &store);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(Contents(*store).count("after"), 1u);
  EXPECT_EQ(store->Stats().wal_bytes_dropped, 0u);
}

TEST(KvCorruptionTest, LogAndManifestFromTheFutureAreNotSupported) {
  TempDir dir;
  const std::string log = MakeLoggedStore(dir.path(), 2);
  std::string bytes = ReadBytes(log);
  bytes[7] = 9;  // log version byte
  WriteBytes(log, bytes);
  std::unique_ptr<KvStore> store;
  Status s = KvStore::Open(dir.path(), Small(nullptr), &store);
  EXPECT_TRUE(s.IsNotSupported()) << s.ToString();
  bytes[7] = 1;
  WriteBytes(log, bytes);

  const std::string manifest = dir.Sub("MANIFEST");
  std::string m = ReadBytes(manifest);
  m[8] = 2;  // MANIFEST version (u32 after the 8-byte magic)
  WriteBytes(manifest, m);
  s = KvStore::Open(dir.path(), Small(nullptr), &store);
  EXPECT_TRUE(s.IsNotSupported()) << s.ToString();
}

TEST(KvCorruptionTest, ALostOrGarbledManifestIsCorruption) {
  TempDir dir;
  MakeLoggedStore(dir.path(), 2);
  const std::string manifest = dir.Sub("MANIFEST");
  const std::string good = ReadBytes(manifest);
  std::unique_ptr<KvStore> store;
  WriteBytes(manifest, "garbage that is not a manifest");
  Status s = KvStore::Open(dir.path(), Small(nullptr), &store);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  std::filesystem::remove(manifest);
  s = KvStore::Open(dir.path(), Small(nullptr), &store);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();  // runs but no MANIFEST: refuse to guess
  EXPECT_NE(s.message().find("no MANIFEST"), std::string::npos) << s.ToString();
  WriteBytes(manifest, good);
  ASSERT_TRUE(KvStore::Open(dir.path(), Small(nullptr), &store).ok());
}

TEST(KvCorruptionTest, StrangersInTheDirectoryAreLeftAlone) {
  TempDir dir;
  MakeLoggedStore(dir.path(), 2);
  WriteBytes(dir.Sub("README"), "mine");
  WriteBytes(dir.Sub("12.sst"), "not ours: too few digits");
  WriteBytes(dir.Sub("STATS"), "garbled stats are ignored");
  std::unique_ptr<KvStore> store;
  ASSERT_TRUE(KvStore::Open(dir.path(), Small(nullptr), &store).ok());
  EXPECT_EQ(Contents(*store).size(), 3u);
  store.reset();
  EXPECT_EQ(ReadBytes(dir.Sub("README")), "mine");
  EXPECT_TRUE(std::filesystem::exists(dir.Sub("12.sst")));
}

}  // namespace
}  // namespace linebloom::kvstore
