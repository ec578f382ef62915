// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// Model-based randomized test: thousands of random puts, deletes, gets,
// scans, flushes, compactions and reopens against a std::map, over several
// seeds, some with compact run filters (from level 0 or 1, some switched
// on and off between reopens). The store must agree with the model after
// every operation.

#include <gtest/gtest.h>

#include <random>

#include "kv_test_util.h"

namespace linebloom::kvstore {
namespace {

using testing::TempDir;

struct ModelParams {
  uint64_t seed;
  bool run_filters;
  bool block_filters;
  bool run_aware = false;  // FilterAllocation::kRunAware
  // Options::compact_run_filters_from_level; with `alternate` every other
  // reopen sets it back to kMaxLevels, so runs of both kinds mix.
  int compact_from_level = kMaxLevels;
  bool alternate = false;
};

class KvModelTest : public ::testing::TestWithParam<ModelParams> {};

// Keys from a small space so overwrites, deletes of live keys and
// absent-key lookups are all common; some share prefixes, one is empty.
std::string RandomKey(std::mt19937_64& rng) {
  const uint64_t n = rng() % 400;
  if (n == 0) return "";
  std::string key = std::string("key").append(std::to_string(n % 200));
  if (n >= 200) key.append("/").append(std::to_string(n % 7));
  return key;
}

std::string RandomValue(std::mt19937_64& rng) {
  const size_t len = rng() % 4 == 0 ? 0 : rng() % 300;
  std::string v(len, '\0');
  for (char& c : v) c = static_cast<char>(rng());
  return v;
}

TEST_P(KvModelTest, StoreAgreesWithAMap) {
  const ModelParams param = GetParam();
  std::mt19937_64 rng(param.seed);
  TempDir dir;
  // Durability is the fault-injection and crash tests' business; here real
  // fsyncs would only cost time.
  testing::NoSyncEnv env;
  Options o;
  o.env = &env;
  o.sync_writes = false;
  o.write_buffer_size = 8 << 10;  // flushes happen on their own, often
  o.block_size = 512;             // several blocks per run
  o.tier_fanout = 3;
  o.run_filters = param.run_filters;
  o.block_filters = param.block_filters;
  o.bits_per_key = [](int level) { return 6.0 + 2 * level; };  // differs per level
  if (param.run_aware) {
    o.filter_allocation = FilterAllocation::kRunAware;
    o.average_bits_per_key = 3;  // low, so some runs get no filter or only a run filter
  }
  o.compact_run_filters_from_level = param.compact_from_level;

  std::unique_ptr<KvStore> store;
  ASSERT_TRUE(KvStore::Open(dir.path(), o, &store).ok());
  std::map<std::string, std::string> model;
  constexpr int kOps = 4000;
  int reopens = 0, flushes = 0, compactions = 0;
  for (int op = 0; op < kOps; ++op) {
    const uint64_t dice = rng() % 1000;
    if (dice < 450) {
      const std::string key = RandomKey(rng), value = RandomValue(rng);
      ASSERT_TRUE(store->Put(key, value).ok());
      model[key] = value;
    } else if (dice < 600) {
      const std::string key = RandomKey(rng);
      ASSERT_TRUE(store->Delete(key).ok());
      model.erase(key);
    } else if (dice < 640) {
      WriteBatch batch;
      for (int i = 0, n = static_cast<int>(rng() % 8); i < n; ++i) {
        const std::string key = RandomKey(rng);
        if (rng() % 3 == 0) {
          batch.Delete(key);
          model.erase(key);
        } else {
          const std::string value = RandomValue(rng);
          batch.Put(key, value);
          model[key] = value;
        }
      }
      ASSERT_TRUE(store->Write(batch).ok());
    } else if (dice < 900) {
      const std::string key = RandomKey(rng);
      std::string value;
      Status s = store->Get(key, &value);
      auto it = model.find(key);
      if (it == model.end()) {
        ASSERT_TRUE(s.IsNotFound()) << "op " << op << " key " << key << ": " << s.ToString();
      } else {
        ASSERT_TRUE(s.ok()) << "op " << op << " key " << key << ": " << s.ToString();
        ASSERT_EQ(value, it->second) << "op " << op << " key " << key;
      }
    } else if (dice < 960) {
      std::string from = RandomKey(rng), to = RandomKey(rng);
      std::optional<std::string_view> end;
      if (rng() % 4 != 0) end = to;
      std::vector<std::pair<std::string, std::string>> got;
      ASSERT_TRUE(store->Scan(from, end, &got).ok());
      std::vector<std::pair<std::string, std::string>> want;
      for (auto it = model.lower_bound(from); it != model.end() && (!end || it->first < *end); ++it) {
        want.emplace_back(it->first, it->second);
      }
      ASSERT_EQ(got, want) << "op " << op << " scan [" << from << ", " << (end ? to : "end") << ")";
    } else if (dice < 975) {
      ASSERT_TRUE(store->Flush().ok());
      ++flushes;
    } else if (dice < 983) {
      ASSERT_TRUE(store->Compact().ok());
      ++compactions;
    } else {
      ASSERT_TRUE(store->Close().ok());
      store.reset();
      if (param.alternate) o.compact_run_filters_from_level = reopens % 2 ? param.compact_from_level : kMaxLevels;
      ASSERT_TRUE(KvStore::Open(dir.path(), o, &store).ok());
      ++reopens;
    }
  }
  EXPECT_EQ(testing::Contents(*store), model);
  const StoreStats st = store->Stats();
  testing::ExpectCounterIdentities(st.total, "total");
  for (const RunStats& r : st.runs) testing::ExpectCounterIdentities(r.counters, "run");
  if (param.run_filters && !param.run_aware && !param.alternate) {
    for (const RunStats& r : st.runs) {
      EXPECT_EQ(r.run_filter_kind, r.level >= param.compact_from_level ? "compact" : "bloom") << r.level;
    }
  }
  // The run saw real traffic of every kind.
  EXPECT_GT(reopens, 10);
  EXPECT_GT(flushes + static_cast<int>(st.flushes), 20);
  EXPECT_GT(compactions, 5);
  EXPECT_GT(st.total.lookups, 0u);
}

INSTANTIATE_TEST_SUITE_P(
    Seeds, KvModelTest,
    ::testing::Values(ModelParams{1, true, true}, ModelParams{2, true, true}, ModelParams{3, true, true},
                      ModelParams{4, false, true}, ModelParams{5, true, false}, ModelParams{6, false, false},
                      ModelParams{7, true, true, true}, ModelParams{8, false, true, true},
                      ModelParams{9, true, false, true}, ModelParams{10, true, true, false, 1, true},
                      ModelParams{11, true, false, true, 0, true}, ModelParams{12, true, true, false, 0}),
    [](const auto& param_info) {
      const ModelParams& p = param_info.param;
      return std::string("seed")
          .append(std::to_string(p.seed))
          .append(p.run_filters ? "_runfilter" : "_norunfilter")
          .append(p.block_filters ? "_blockfilter" : "_noblockfilter")
          .append(p.run_aware ? "_runaware" : "")
          .append(p.compact_from_level < kMaxLevels ? "_compactfrom" + std::to_string(p.compact_from_level) : "")
          .append(p.alternate ? "_alternating" : "");
    });

}  // namespace
}  // namespace linebloom::kvstore
