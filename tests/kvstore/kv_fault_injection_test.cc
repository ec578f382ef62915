// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// Walks a fault over every I/O operation of a flush, a compaction, and a
// write that triggers both: for N = 1, 2, ... the Nth operation fails (a
// transient error) or the process dies there (optionally followed by a power
// loss that drops unsynced data and undoes unsynced directory changes), until
// the operation completes without reaching N. After each, the store must
// reopen and hold exactly the acknowledged data, and no orphan files.

#include <gtest/gtest.h>

#include <filesystem>
#include <functional>

#include "kv_test_util.h"
#include "fault_injection_env.h"

namespace linebloom::kvstore {
namespace {

using testing::Contents;
using testing::TempDir;

using Model = std::map<std::string, std::string>;

enum class Aftermath { kTransientError, kProcessCrash, kPowerLossUndoAll, kPowerLossUndoRandom };

const char* Name(Aftermath a) {
  switch (a) {
    case Aftermath::kTransientError: return "TransientError";
    case Aftermath::kProcessCrash: return "ProcessCrash";
    case Aftermath::kPowerLossUndoAll: return "PowerLossUndoAll";
    case Aftermath::kPowerLossUndoRandom: return "PowerLossUndoRandom";
  }
  return "?";
}

// An operation under test on a store prepared by `prepare`. It reports the
// acknowledged state afterwards: `model` plus anything it wrote with OK.
struct Scenario {
  const char* name;
  std::function<void(KvStore*, Model*)> prepare;
  // Runs the operation; returns what must (and may) be present afterwards.
  std::function<Status(KvStore*, Model* must, Model* may)> run;
};

Options StoreOptions(Env* env) {
  Options o;
  o.env = env;
  o.block_size = 256;  // several data blocks, so several appends per run
  o.tier_fanout = 2;
  return o;
}

void PutAll(KvStore* store, Model* model, int first, int count, const std::string& tag) {
  for (int i = first; i < first + count; ++i) {
    const std::string key = std::string("key").append(std::to_string(i));
    const std::string value = tag + std::string(i % 17, 'x');
    ASSERT_TRUE(store->Put(key, value).ok());
    (*model)[key] = value;
  }
}

void DeleteSome(KvStore* store, Model* model, int first, int count, int step) {
  for (int i = first; i < first + count; i += step) {
    const std::string key = std::string("key").append(std::to_string(i));
    ASSERT_TRUE(store->Delete(key).ok());
    model->erase(key);
  }
}

std::vector<Scenario> Scenarios() {
  return {
      {"Flush",
       [](KvStore* store, Model* m) {
         // One older run; the memtable holds overwrites, new keys and tombstones.
         PutAll(store, m, 0, 60, "a");
         ASSERT_TRUE(store->Flush().ok());
         PutAll(store, m, 30, 60, "b");
         DeleteSome(store, m, 0, 30, 4);
       },
       [](KvStore* store, Model*, Model*) {
         // Without auto compaction this is the flush alone (fanout 2 would
         // merge; the FlushAndCompact scenario covers that).
         return store->Flush();
       }},
      {"Compact",
       [](KvStore* store, Model* m) {
         PutAll(store, m, 0, 50, "a");
         ASSERT_TRUE(store->Flush().ok());  // one run
         PutAll(store, m, 25, 50, "b");
         DeleteSome(store, m, 0, 50, 3);
         ASSERT_TRUE(store->Flush().ok());  // merged with the first (fanout 2)
         PutAll(store, m, 60, 30, "c");
         DeleteSome(store, m, 1, 30, 5);
         ASSERT_TRUE(store->Flush().ok());
       },
       [](KvStore* store, Model*, Model*) { return store->Compact(); }},
      {"WriteThatFlushesAndCompacts",
       [](KvStore* store, Model* m) {
         PutAll(store, m, 0, 40, "a");
         ASSERT_TRUE(store->Flush().ok());
         PutAll(store, m, 20, 40, "b");
         DeleteSome(store, m, 0, 20, 2);
       },
       [](KvStore* store, Model* must, Model* may) {
         // A value big enough to fill the memtable: log append + sync, then
         // a flush, then a level-0 merge.
         const std::string value(8 << 10, 'z');
         (*may)["trigger"] = value;
         Status s = store->Put("trigger", value);
         if (s.ok()) (*must)["trigger"] = value;
         return s;
       }},
  };
}

class FaultWalkTest : public ::testing::TestWithParam<std::tuple<int, Aftermath>> {};

TEST_P(FaultWalkTest, EveryIoOfTheOperation) {
  const Scenario scenario = Scenarios()[std::get<0>(GetParam())];
  const Aftermath aftermath = std::get<1>(GetParam());
  testing::NoSyncEnv no_sync;  // durability is modelled by the fault env

  // The prepared store, copied fresh for each N.
  TempDir root;
  const std::string golden = root.Sub("golden");
  Model prepared;
  {
    Options o = StoreOptions(&no_sync);
    std::unique_ptr<KvStore> store;
    ASSERT_TRUE(KvStore::Open(golden, o, &store).ok());
    scenario.prepare(store.get(), &prepared);
    if (::testing::Test::HasFatalFailure()) return;
    ASSERT_TRUE(store->Close().ok());
  }

  // Failure points survived (reopened with every acknowledged write and
  // nothing unacknowledged beyond the operation's own), split by what the
  // operation returned: the error, or OK (the fault hit a step after the
  // acknowledgement: the flush behind an acknowledged write, or cleanup).
  uint64_t survived = 0, returned_error = 0, returned_ok = 0;
  uint64_t n = 1;
  for (;; ++n) {
    SCOPED_TRACE(std::string(scenario.name)
                     .append(" / ")
                     .append(Name(aftermath))
                     .append(" / fault at I/O #")
                     .append(std::to_string(n)));
    const std::string dir = root.Sub(std::string("run").append(std::to_string(n)));
    std::filesystem::copy(golden, dir);

    FaultInjectionEnv env(&no_sync);
    Options o = StoreOptions(&env);
    o.write_buffer_size = 8 << 10;
    o.auto_compaction = std::string_view(scenario.name) != "Flush";
    std::unique_ptr<KvStore> store;
    ASSERT_TRUE(KvStore::Open(dir, o, &store).ok());
    ASSERT_EQ(Contents(*store), prepared);

    env.Arm(n, aftermath == Aftermath::kTransientError ? FaultMode::kError : FaultMode::kCrash);
    Model must = prepared, may = prepared;
    const Status s = scenario.run(store.get(), &must, &may);
    const bool fired = env.fault_fired();
    const std::vector<std::string> ops = env.op_log();
    std::string trace;
    for (const std::string& op : ops) trace.append("\n  ").append(op);
    SCOPED_TRACE("I/O log:" + trace);
    if (!fired) {
      EXPECT_TRUE(s.ok()) << s.ToString();
      EXPECT_EQ(store->Stats().background_error, "");
    }

    if (aftermath == Aftermath::kTransientError) {
      env.Disarm();
      // The store keeps serving what it acknowledged...
      const Model seen = Contents(*store);
      EXPECT_TRUE(seen == must || seen == may);
      // ...and the operation can be retried, unless the error left the
      // MANIFEST's durability unknown (then writes stay refused until reopen).
      Status again = store->Flush();
      if (!again.ok()) {
        EXPECT_NE(again.message().find("injected error"), std::string::npos) << again.ToString();
      }
      (void)store->Close();
    } else {
      store.reset();  // the "dead" process's store: its I/O all fails now
      if (aftermath == Aftermath::kPowerLossUndoAll) {
        ASSERT_TRUE(env.SimulatePowerLoss(PowerLossMode::kUndoAllDirOps).ok());
      } else if (aftermath == Aftermath::kPowerLossUndoRandom) {
        ASSERT_TRUE(env.SimulatePowerLoss(PowerLossMode::kUndoRandomDirOps, n).ok());
      }
    }

    // Reopen on the plain Env: exactly the acknowledged data, no orphans.
    Options plain = StoreOptions(&no_sync);
    Status r = KvStore::Open(dir, plain, &store);
    ASSERT_TRUE(r.ok()) << r.ToString();
    const Model seen = Contents(*store);
    if (!(seen == must || seen == may)) {
      ADD_FAILURE() << "after reopen: " << seen.size() << " keys, expected " << must.size()
                    << (must.size() != may.size() ? " or " + std::to_string(may.size()) : "");
    }
    const StoreStats st = store->Stats();
    EXPECT_EQ(testing::FilesWithSuffix(dir, ".sst").size(), st.runs.size());
    EXPECT_EQ(testing::FilesWithSuffix(dir, ".log").size(), 1u);
    EXPECT_TRUE(testing::FilesWithSuffix(dir, ".tmp").empty());
    // And it still works.
    ASSERT_TRUE(store->Put("after", "1").ok());
    ASSERT_TRUE(store->Compact().ok());
    store.reset();
    std::filesystem::remove_all(dir);
    if (!fired || ::testing::Test::HasFailure()) break;
    ++survived;
    ++(s.ok() ? returned_ok : returned_error);
  }
  // The walk reached every I/O of the operation: a flush alone is well over
  // a dozen (run table, run filter, new log, MANIFEST, directory syncs).
  EXPECT_GT(n, 15u);
  std::printf(
      "%s / %s: %llu failure points, %llu survived with nothing acknowledged lost "
      "(%llu returned the error, %llu returned OK)\n",
      scenario.name, Name(aftermath), static_cast<unsigned long long>(n - 1), static_cast<unsigned long long>(survived),
      static_cast<unsigned long long>(returned_error), static_cast<unsigned long long>(returned_ok));
}

INSTANTIATE_TEST_SUITE_P(Walk, FaultWalkTest,
                         ::testing::Combine(::testing::Values(0, 1, 2),
                                            ::testing::Values(Aftermath::kTransientError, Aftermath::kProcessCrash,
                                                              Aftermath::kPowerLossUndoAll,
                                                              Aftermath::kPowerLossUndoRandom)),
                         [](const auto& param_info) {
                           return std::string(Scenarios()[std::get<0>(param_info.param)].name)
                               .append("_")
                               .append(Name(std::get<1>(param_info.param)));
                         });

// The power-loss model itself: unsynced bytes and unsynced names vanish.
TEST(FaultInjectionEnvTest, PowerLossDropsWhatWasNotSynced) {
  TempDir dir;
  FaultInjectionEnv env(PosixEnv());
  std::unique_ptr<WritableFile> f;
  ASSERT_TRUE(env.NewWritableFile(dir.Sub("synced"), &f).ok());
  ASSERT_TRUE(f->Append("durable").ok());
  ASSERT_TRUE(f->Sync().ok());
  ASSERT_TRUE(f->Append(" lost").ok());
  ASSERT_TRUE(f->Close().ok());
  ASSERT_TRUE(env.SyncDir(dir.path()).ok());
  ASSERT_TRUE(env.NewWritableFile(dir.Sub("unnamed"), &f).ok());
  ASSERT_TRUE(f->Append("x").ok());
  ASSERT_TRUE(f->Sync().ok());
  ASSERT_TRUE(f->Close().ok());
  testing::WriteBytes(dir.Sub("old"), "old contents");
  ASSERT_TRUE(env.NewWritableFile(dir.Sub("new"), &f).ok());
  ASSERT_TRUE(f->Append("new contents").ok());
  ASSERT_TRUE(f->Sync().ok());
  ASSERT_TRUE(env.RenameFile(dir.Sub("new"), dir.Sub("old")).ok());
  EXPECT_EQ(env.op_count(), 14u);

  ASSERT_TRUE(env.SimulatePowerLoss(PowerLossMode::kUndoAllDirOps).ok());
  EXPECT_EQ(testing::ReadBytes(dir.Sub("synced")), "durable");
  EXPECT_FALSE(std::filesystem::exists(dir.Sub("unnamed")));
  EXPECT_EQ(testing::ReadBytes(dir.Sub("old")), "old contents");
  EXPECT_FALSE(std::filesystem::exists(dir.Sub("new")));
}

TEST(FaultInjectionEnvTest, ACrashTearsTheAppendAndStopsAllLaterIo) {
  TempDir dir;
  FaultInjectionEnv env(PosixEnv());
  std::unique_ptr<WritableFile> f;
  ASSERT_TRUE(env.NewWritableFile(dir.Sub("f"), &f).ok());
  env.Arm(1, FaultMode::kCrash);
  EXPECT_TRUE(f->Append("0123456789").IsIOError());
  EXPECT_TRUE(env.fault_fired());
  EXPECT_TRUE(env.crashed());
  EXPECT_TRUE(f->Sync().IsIOError());
  EXPECT_TRUE(env.RemoveFile(dir.Sub("f")).IsIOError());
  EXPECT_EQ(testing::ReadBytes(dir.Sub("f")), "01234");
  env.Arm(2, FaultMode::kError);
  EXPECT_TRUE(f->Append("a").ok());
  EXPECT_TRUE(f->Append("b").IsIOError());
  EXPECT_TRUE(f->Append("c").ok());
  EXPECT_FALSE(env.crashed());
  (void)f->Close();
  EXPECT_EQ(testing::ReadBytes(dir.Sub("f")), "01234ac");
}

}  // namespace
}  // namespace linebloom::kvstore
