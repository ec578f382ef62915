// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// What the filters save: 1 M keys in 5 runs that each span the whole key
// range (so key ranges skip nothing), then 100 k lookups of absent keys
// that fall between stored keys. Every lookup consults all 5 runs; at 10
// bits/key the data-block reads must stay <= 2 % of lookups x runs, read
// from Stats(). With only the whole-run filter the rate must match the
// blocked-Bloom prediction within 6 binomial standard deviations, and with
// compact run filters the compact model's (compact_math.h) within 6
// standard deviations and 10 % (its own error).

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "kv_test_util.h"
#include "linebloom/bloom_math.h"
#include "linebloom/compact_math.h"
#include "linebloom/filter_options.h"

namespace linebloom::kvstore {
namespace {

using testing::KeyFor;
using testing::TempDir;

constexpr uint64_t kKeys = 1000000;
constexpr uint64_t kRuns = 5;
constexpr uint64_t kAbsentLookups = 100000;

struct Measured {
  LookupCounters total;
  uint64_t runs = 0;
  double filter_bits_per_key = 0;  // every filter byte of the store
};

Measured LoadAndProbe(bool run_filters, bool block_filters, int compact_run_filters_from_level = kMaxLevels) {
  TempDir dir;
  testing::NoSyncEnv env;  // bulk load; durability is not under test here
  Options o;
  o.env = &env;
  o.sync_writes = false;
  o.write_buffer_size = size_t{1} << 30;  // flush only when told
  o.auto_compaction = false;
  o.run_filters = run_filters;
  o.block_filters = block_filters;
  o.compact_run_filters_from_level = compact_run_filters_from_level;
  std::unique_ptr<KvStore> store;
  EXPECT_TRUE(KvStore::Open(dir.path(), o, &store).ok());
  // Stored keys are the even numbers; run r holds every 5th of them, so
  // each run covers the whole key range.
  for (uint64_t r = 0; r < kRuns; ++r) {
    WriteBatch batch;
    for (uint64_t j = r; j < kKeys; j += kRuns) {
      batch.Put(KeyFor(2 * j), "v");
      if (batch.Count() == 4096) {
        EXPECT_TRUE(store->Write(batch).ok());
        batch.Clear();
      }
    }
    EXPECT_TRUE(store->Write(batch).ok());
    EXPECT_TRUE(store->Flush().ok());
  }
  const LookupCounters before = store->Stats().total;
  EXPECT_EQ(before.lookups, 0u);

  // Absent keys: odd numbers spread over the whole range.
  std::string value;
  for (uint64_t i = 0; i < kAbsentLookups; ++i) {
    // Strictly inside every run's key range: above each smallest (2r) and
    // below each largest key.
    const uint64_t odd = 2 * ((i * 7919) % (kKeys - 10)) + 11;
    Status s = store->Get(KeyFor(odd), &value);
    EXPECT_TRUE(s.IsNotFound()) << KeyFor(odd) << ": " << s.ToString();
  }
  Measured m;
  m.total = store->Stats().total;
  m.runs = store->Stats().runs.size();
  m.filter_bits_per_key = store->Stats().filter_bits_per_key;
  // And the stored keys are all there (a sample: never a false negative).
  for (uint64_t i = 0; i < kKeys; i += 97) {
    Status s = store->Get(KeyFor(2 * i), &value);
    EXPECT_TRUE(s.ok()) << KeyFor(2 * i) << ": " << s.ToString();
  }
  return m;
}

void Report(const char* what, const Measured& m) {
  const double probes = static_cast<double>(kAbsentLookups * kRuns);
  std::printf(
      "%-22s %7llu run lookups: %6llu run-filter negatives, %6llu block-filter negatives, "
      "%5llu block reads (%.3f%%), %.3f filter bits/key\n",
      what, static_cast<unsigned long long>(m.total.lookups),
      static_cast<unsigned long long>(m.total.run_filter_negatives),
      static_cast<unsigned long long>(m.total.block_filter_negatives),
      static_cast<unsigned long long>(m.total.block_reads), 100.0 * m.total.block_reads / probes,
      m.filter_bits_per_key);
}

void ExpectEveryLookupReachedEveryRun(const Measured& m) {
  ASSERT_EQ(m.runs, kRuns);
  EXPECT_EQ(m.total.lookups, kAbsentLookups * kRuns);
  EXPECT_EQ(m.total.range_skips, 0u);
  EXPECT_EQ(m.total.hits, 0u);
  EXPECT_EQ(m.total.false_positives, m.total.block_reads);
  testing::ExpectCounterIdentities(m.total, "total");
}

TEST(KvFilterEffectTest, RunAndBlockFiltersTogether) {
  const Measured m = LoadAndProbe(true, true);
  Report("run + block filters", m);
  ExpectEveryLookupReachedEveryRun(m);
  EXPECT_LE(m.total.block_reads, kAbsentLookups * kRuns * 2 / 100);
  EXPECT_EQ(m.total.run_filter_checks, kAbsentLookups * kRuns);
}

TEST(KvFilterEffectTest, BlockFiltersAlone) {
  const Measured m = LoadAndProbe(false, true);
  Report("block filters only", m);
  ExpectEveryLookupReachedEveryRun(m);
  EXPECT_EQ(m.total.run_filter_checks, 0u);
  EXPECT_EQ(m.total.block_filter_checks, kAbsentLookups * kRuns);
  EXPECT_LE(m.total.block_reads, kAbsentLookups * kRuns * 2 / 100);
}

TEST(KvFilterEffectTest, RunFilterAloneMatchesTheBlockedBloomPrediction) {
  const Measured m = LoadAndProbe(true, false);
  Report("run filter only", m);
  ExpectEveryLookupReachedEveryRun(m);
  EXPECT_EQ(m.total.block_filter_checks, 0u);
  const double n = static_cast<double>(kAbsentLookups * kRuns);
  // Each run's filter has ceil(200k * 10 / 512) blocks: 10.0018 bits/key.
  const double bits = std::ceil(kKeys / kRuns * 10.0 / 512) * 512 / (kKeys / kRuns);
  const double p = BlockedFpr(bits, FilterOptions{.bits_per_key = 10}.EffectiveProbes());
  const double sigma = std::sqrt(n * p * (1 - p));
  std::printf("predicted %.1f block reads (%.3f%%), sigma %.1f\n", n * p, 100 * p, sigma);
  EXPECT_NEAR(static_cast<double>(m.total.block_reads), n * p, 6 * sigma);
  EXPECT_LE(m.total.block_reads, kAbsentLookups * kRuns * 2 / 100);
}

TEST(KvFilterEffectTest, CompactRunFilterAloneMatchesTheCompactModel) {
  const Measured m = LoadAndProbe(true, false, 0);
  Report("compact run filter only", m);
  ExpectEveryLookupReachedEveryRun(m);
  EXPECT_EQ(m.total.block_filter_checks, 0u);
  const double n = static_cast<double>(kAbsentLookups * kRuns);
  const double p = CompactFpr(10, kKeys / kRuns);
  const double sigma = std::sqrt(n * p * (1 - p));
  std::printf("predicted %.1f block reads (%.3f%%), sigma %.1f\n", n * p, 100 * p, sigma);
  EXPECT_NEAR(static_cast<double>(m.total.block_reads), n * p, 6 * sigma + 0.1 * n * p);
}

}  // namespace
}  // namespace linebloom::kvstore
