// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// level_aware=true: the options, the bits per key chosen for each level
// (against linebloom::AllocateBitsPerRun on the documented model), the
// fallbacks to uniform bits, and a real DB in which one level is allocated
// no filter at all and still answers every key correctly.

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>
#include <rocksdb/convenience.h>
#include <rocksdb/db.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/metadata.h>
#include <rocksdb/options.h>
#include <rocksdb/table.h>
#include <rocksdb/table_properties.h>
#include <rocksdb/utilities/stackable_db.h>

#include "bits_builder.h"  // white-box: the weight estimate
#include "level_aware_bits.h"
#include "db_fixture.h"
#include "linebloom/filter_builder.h"
#include "linebloom/level_allocator.h"
#include "linebloom/rocksdb/builtin_filter.h"
#include "linebloom/rocksdb/level_aware_listener.h"
#include "linebloom/rocksdb/linebloom_filter_policy.h"
#include "linebloom/rocksdb/registration.h"
#include "test_keys.h"

namespace linebloom::rocksdb_plugin {
namespace {

using testing::Keys;
using testing::MakeOptions;
using testing::OpenDb;
using testing::PutAll;
using testing::TempDir;
using testing::Views;

LinebloomPolicyOptions LevelAware(double bits_per_key, double size_ratio = 10) {
  LinebloomPolicyOptions options;
  options.bits_per_key = bits_per_key;
  options.level_aware = true;
  options.size_ratio = size_ratio;
  return options;
}

// A context as RocksDB fills it for a leveled column family.
struct Context {
  ::rocksdb::BlockBasedTableOptions table;
  ::rocksdb::FilterBuildingContext context{table};

  explicit Context(int level, std::string cf = "default", int num_levels = 7) {
    context.compaction_style = ::rocksdb::kCompactionStyleLevel;
    context.num_levels = num_levels;
    context.level_at_creation = level;
    context.column_family_name = std::move(cf);
    context.reason =
        level == 0 ? ::rocksdb::TableFileCreationReason::kFlush : ::rocksdb::TableFileCreationReason::kCompaction;
  }
};

std::optional<FilterOptions> Choose(const LinebloomFilterPolicy& policy, int level, const std::string& cf = "default") {
  Context c(level, cf);
  return policy.FilterOptionsForNewFile(c.context);
}

TEST(RocksdbLevelAwareOptions, StringsSetAndRoundTrip) {
  RegisterLinebloomWithDefaultLibrary();
  ::rocksdb::ConfigOptions config;
  config.ignore_unsupported_options = false;
  std::shared_ptr<const ::rocksdb::FilterPolicy> policy, again;
  ASSERT_TRUE(::rocksdb::FilterPolicy::CreateFromString(
                  config, "id=linebloom;bits_per_key=10;level_aware=true;size_ratio=8", &policy)
                  .ok());
  const auto* lb = policy->CheckedCast<LinebloomFilterPolicy>();
  ASSERT_NE(lb, nullptr);
  EXPECT_TRUE(lb->options().level_aware);
  EXPECT_EQ(lb->options().size_ratio, 8.0);
  EXPECT_TRUE(lb->ValidateOptions(::rocksdb::DBOptions(), ::rocksdb::ColumnFamilyOptions()).ok());

  const std::string serialized = policy->ToString(config);
  EXPECT_NE(serialized.find("level_aware=true"), std::string::npos) << serialized;
  ASSERT_TRUE(::rocksdb::FilterPolicy::CreateFromString(config, serialized, &again).ok());
  const auto* back = again->CheckedCast<LinebloomFilterPolicy>();
  ASSERT_NE(back, nullptr);
  EXPECT_TRUE(back->options().level_aware);
  EXPECT_EQ(back->options().size_ratio, 8.0);

  // Defaults: off, ratio 10 (RocksDB's default level multiplier).
  ASSERT_TRUE(::rocksdb::FilterPolicy::CreateFromString(config, "linebloom:10", &policy).ok());
  lb = policy->CheckedCast<LinebloomFilterPolicy>();
  ASSERT_NE(lb, nullptr);
  EXPECT_FALSE(lb->options().level_aware);
  EXPECT_EQ(lb->options().size_ratio, 10.0);

  for (const char* bad :
       {"id=linebloom;size_ratio=1", "id=linebloom;size_ratio=101", "id=linebloom;level_aware=true;size_ratio=nan"}) {
    ASSERT_TRUE(::rocksdb::FilterPolicy::CreateFromString(config, bad, &policy).ok()) << bad;
    EXPECT_TRUE(policy->ValidateOptions(::rocksdb::DBOptions(), ::rocksdb::ColumnFamilyOptions()).IsInvalidArgument())
        << bad;
  }
  EXPECT_FALSE(::rocksdb::FilterPolicy::CreateFromString(config, "id=linebloom;level_aware=maybe", &policy).ok());
}

TEST(RocksdbLevelAware, OffGivesEveryLevelTheConfiguredBits) {
  LinebloomPolicyOptions options;
  options.bits_per_key = 9;
  LinebloomFilterPolicy policy(options);
  for (int level : {-1, 0, 1, 3, 6}) {
    const auto chosen = Choose(policy, level);
    ASSERT_TRUE(chosen) << level;
    EXPECT_EQ(chosen->bits_per_key, 9.0) << level;
    EXPECT_EQ(chosen->num_probes, 0) << level;
  }
}

// Files seen at levels 3 and 6 (as with dynamic level bytes: base level L3,
// last level L6) make the model L0, L3, L4, L5, L6 with relative sizes
// 1, 1, 10, 100, 1000; each level gets the move-safe allocation for it: L3,
// L4 and L5 share one bits per key (a file moved down costs nothing extra).
TEST(RocksdbLevelAware, LevelsGetTheAllocatorsBits) {
  LinebloomFilterPolicy policy(LevelAware(10));
  ASSERT_TRUE(Choose(policy, 3));
  ASSERT_TRUE(Choose(policy, 6));

  // The documented model: LeveledEntries over L3..L6, L0 as large as L3.
  std::vector<uint64_t> model = LeveledEntries(uint64_t{1} << 60, 10, 4);
  model.insert(model.begin(), model.front());
  const LevelAllocation expected = AllocateBitsSharedMiddle(model, {}, 10);
  const LevelAllocation uniform = UniformAllocation(model, 10);
  // Monkey's prediction for this shape is ~70 % fewer wasted reads; the
  // move-safe constraint keeps ~65 %.
  EXPECT_LT(expected.expected_fpr_sum, 0.37 * uniform.expected_fpr_sum);
  const int levels[] = {0, 3, 4, 5, 6};
  double memory = 0, total = 0;
  for (size_t run = 0; run < model.size(); ++run) {
    const auto chosen = Choose(policy, levels[run]);
    ASSERT_TRUE(chosen) << levels[run];
    EXPECT_EQ(chosen->bits_per_key, expected.bits_per_key[run]) << "L" << levels[run];
    // k is left to the core, which picks it after rounding (ProbesFor).
    EXPECT_EQ(chosen->num_probes, 0) << "L" << levels[run];
    memory += chosen->bits_per_key * static_cast<double>(model[run]);
    total += static_cast<double>(model[run]);
  }
  // Small levels get more bits, the last level fewer than the average, and
  // the tree as modelled stays within the budget.
  EXPECT_GT(Choose(policy, 0)->bits_per_key, Choose(policy, 5)->bits_per_key);
  EXPECT_EQ(Choose(policy, 3)->bits_per_key, Choose(policy, 5)->bits_per_key);
  EXPECT_EQ(Choose(policy, 4)->bits_per_key, Choose(policy, 5)->bits_per_key);
  EXPECT_GT(Choose(policy, 5)->bits_per_key, Choose(policy, 6)->bits_per_key);
  EXPECT_LT(Choose(policy, 6)->bits_per_key, 10.0);
  EXPECT_LE(memory / total, 10.0 + 1e-9);
  // Hand-checked closed form (unblocked) for the last level of this shape,
  // with L3..L5 as one run of 111 units: f = 1000/1112, 111/1112, 1/1112,
  // H = -sum f ln f = 0.3318..., b = 10 + (ln(1/f_L6) - H)/ln^2 2 = 10 - 0.47;
  // the blocked optimum (9.25) gives the last level ~1/4 bit less: the
  // blocked rate of the 16-bit shared levels is well above the unblocked
  // one, so bits there buy more.
  EXPECT_NEAR(Choose(policy, 6)->bits_per_key, 9.53, 0.3);

  // The filter a builder from the policy produces has the chosen size.
  Context c(4);
  std::unique_ptr<::rocksdb::FilterBitsBuilder> builder(policy.GetBuilderWithContext(c.context));
  ASSERT_NE(builder, nullptr);
  const auto keys = Keys(0, 20000, 1);
  for (const auto& key : keys) builder->AddKey(key);
  std::unique_ptr<const char[]> buf;
  const ::rocksdb::Slice filter = builder->Finish(&buf);
  EXPECT_EQ(filter.size(), NumBlocksFor(keys.size(), Choose(policy, 4)->bits_per_key) * 64 + 16);
}

TEST(RocksdbLevelAware, UniformWhereTheModelDoesNotApply) {
  LinebloomFilterPolicy policy(LevelAware(10));
  // L0 before any other level has been seen (e.g. the first flushes after
  // DB::Open): no shape yet.
  auto chosen = Choose(policy, 0);
  ASSERT_TRUE(chosen);
  EXPECT_EQ(chosen->bits_per_key, 10.0);

  // SstFileWriter / unknown level.
  ASSERT_TRUE(Choose(policy, 1));
  ASSERT_TRUE(Choose(policy, 4));
  chosen = Choose(policy, -1);
  ASSERT_TRUE(chosen);
  EXPECT_EQ(chosen->bits_per_key, 10.0);
  EXPECT_EQ(chosen->num_probes, 0);

  // Universal and FIFO compaction.
  for (auto style : {::rocksdb::kCompactionStyleUniversal, ::rocksdb::kCompactionStyleFIFO}) {
    Context c(2);
    c.context.compaction_style = style;
    chosen = policy.FilterOptionsForNewFile(c.context);
    ASSERT_TRUE(chosen);
    EXPECT_EQ(chosen->bits_per_key, 10.0);
  }

  // Each column family has its own shape: "other" has seen nothing yet.
  chosen = Choose(policy, 0, "other");
  ASSERT_TRUE(chosen);
  EXPECT_EQ(chosen->bits_per_key, 10.0);
  EXPECT_GT(Choose(policy, 0)->bits_per_key, 10.0);
}

// The estimate follows the tree: one non-L0 level is like uniform (L0 and it
// are modelled the same size); when a deeper level appears, the old deepest
// becomes a middle level with more bits.
TEST(RocksdbLevelAware, ShapeEstimateGrowsWithTheTree) {
  LinebloomFilterPolicy policy(LevelAware(10));
  const auto only = Choose(policy, 1);
  ASSERT_TRUE(only);
  EXPECT_NEAR(only->bits_per_key, 10.0, 0.125);
  ASSERT_TRUE(Choose(policy, 2));
  const auto l1 = Choose(policy, 1);
  const auto l2 = Choose(policy, 2);
  ASSERT_TRUE(l1 && l2);
  EXPECT_GT(l1->bits_per_key, only->bits_per_key);
  EXPECT_LT(l2->bits_per_key, 10.0);
}

// Allocation 0 bits -> GetBuilderWithContext returns nullptr -> RocksDB
// writes the SST with no filter block, and every key is still found.
// At an average of 1 bit/key over L0, L1, L2 (sizes 1 : 1 : 10) the optimum
// gives L0 and L1 6 bits/key and L2 none (its rate would be ~1 anyway).
TEST(RocksdbLevelAware, LevelWithoutFilterStillAnswersEveryKey) {
  TempDir dir;
  const auto policy = NewLinebloomFilterPolicy(LevelAware(1));
  ::rocksdb::Options options = MakeOptions(policy, testing::FilterMode());
  options.num_levels = 3;
  options.disable_auto_compactions = true;
  auto db = OpenDb(options, dir.path());
  ASSERT_TRUE(db);

  auto flush_and_move = [&](const std::vector<std::string>& keys, int level) {
    PutAll(*db, keys);
    ASSERT_TRUE(db->Flush(::rocksdb::FlushOptions()).ok());
    ::rocksdb::ColumnFamilyMetaData meta;
    db->GetColumnFamilyMetaData(&meta);
    std::vector<std::string> l0;
    for (const auto& f : meta.levels[0].files) l0.push_back(f.name);
    ASSERT_TRUE(db->CompactFiles(::rocksdb::CompactionOptions(), l0, level).ok());
  };
  const auto a = Keys(0, 30000, 2);      // -> L2
  const auto b = Keys(100000, 3000, 2);  // -> L1
  flush_and_move(a, 2);
  flush_and_move(b, 1);
  // Rewrite L2 now that the policy knows L1 and L2 exist.
  {
    ::rocksdb::ColumnFamilyMetaData meta;
    db->GetColumnFamilyMetaData(&meta);
    std::vector<std::string> l2;
    for (const auto& f : meta.levels[2].files) l2.push_back(f.name);
    ASSERT_FALSE(l2.empty());
    const ::rocksdb::Status s = db->CompactFiles(::rocksdb::CompactionOptions(), l2, 2);
    ASSERT_TRUE(s.ok()) << s.ToString();
  }
  const auto c = Keys(200000, 3000, 2);  // stays in L0
  PutAll(*db, c);
  ASSERT_TRUE(db->Flush(::rocksdb::FlushOptions()).ok());

  // Level of each live file, and its filter from the table properties.
  ::rocksdb::ColumnFamilyMetaData meta;
  db->GetColumnFamilyMetaData(&meta);
  std::map<std::string, int> level_of;  // "/000012.sst" -> level
  for (const auto& level : meta.levels) {
    for (const auto& f : level.files) level_of[f.name] = level.level;
  }
  ::rocksdb::TablePropertiesCollection props;
  ASSERT_TRUE(db->GetPropertiesOfAllTables(&props).ok());
  std::map<int, int> files_per_level;
  for (const auto& [path, p] : props) {
    const std::string name = path.substr(path.rfind('/'));
    ASSERT_TRUE(level_of.count(name)) << path;
    const int level = level_of[name];
    ++files_per_level[level];
    std::printf("  L%d %s: %llu filter bytes, %llu entries\n", level, name.c_str(),
                static_cast<unsigned long long>(p->filter_size),
                static_cast<unsigned long long>(p->num_filter_entries));
    if (level == 2) {
      // No filter block. (RocksDB 7.8 still records the configured policy's
      // name in filter_policy_name.)
      EXPECT_EQ(p->filter_size, 0u) << path;
      EXPECT_EQ(p->num_filter_entries, 0u) << path;
    } else {
      ASSERT_GT(p->num_filter_entries, 0u) << path;
      const double bits = 8.0 * static_cast<double>(p->filter_size - 16) / static_cast<double>(p->num_filter_entries);
      EXPECT_NEAR(bits, 6.0, 0.6) << "L" << level << " " << path;
    }
  }
  EXPECT_EQ(files_per_level[0], 1);
  EXPECT_EQ(files_per_level[1], 1);
  EXPECT_GE(files_per_level[2], 1);

  // Every present key is found, every absent one is not.
  ::rocksdb::ReadOptions ro;
  std::string value;
  for (const auto* keys : {&a, &b, &c}) {
    for (const auto& key : *keys) {
      ASSERT_TRUE(db->Get(ro, key, &value).ok()) << key;
      ASSERT_EQ(value, testing::ValueFor(key));
    }
  }
  for (const auto& absent : {Keys(1, 30000, 2), Keys(100001, 3000, 2), Keys(200001, 3000, 2)}) {
    for (const auto& key : absent) ASSERT_TRUE(db->Get(ro, key, &value).IsNotFound()) << key;
  }
}

// ---- Lookup weights from the key ranges of the filters the policy builds ----

// An 8-byte big-endian key: its position in the key space is `x` itself.
std::string KeyAt(uint64_t x) {
  std::string key(8, '\0');
  for (int i = 7; i >= 0; --i, x >>= 8) key[static_cast<size_t>(i)] = static_cast<char>(x & 0xff);
  return key;
}

// Builds one filter through the policy, as RocksDB would for a file created
// at `level`: `keys` keys evenly spread over [first, last].
void BuildFilter(const LinebloomFilterPolicy& policy, int level, uint64_t first, uint64_t last, uint64_t keys) {
  Context c(level);
  std::unique_ptr<::rocksdb::FilterBitsBuilder> builder(policy.GetBuilderWithContext(c.context));
  ASSERT_NE(builder, nullptr);
  for (uint64_t i = 0; i < keys; ++i) builder->AddKey(KeyAt(first + (last - first) / (keys - 1) * i));
  std::unique_ptr<const char[]> buf;
  ::rocksdb::Status status;
  builder->Finish(&buf, &status);
  ASSERT_TRUE(status.ok());
}

// Levels L3..L6 whose recent files, 1000 keys each, span 1/2, 3/5, 3/40 and
// 1/100 of the key space (L0 files span all of it). Densities (keys per key
// space): 2000, 1667, 13 333, 100 000. With the model's sizes
// n_l = 10^(l-6) n_6 and L6 covering everything (n_6 = 100 000), the levels
// cover
//   L5: 0.1 * 100000 / 13333 = 0.75,  L4: 0.01 * 100000 / 1667 = 0.6,
//   L3: 0.001 * 100000 / 2000 = 0.05 -> the floor, 1/2,
// so the weights are (L0, L3, L4, L5, L6) = (1, 0.5, 0.6, 0.75, 1), in 64ths
// (64, 32, 38, 48, 64). Every filter is exactly as large as a uniform one
// (the books balance), so the average stays 10 and each level gets
// AllocateBitsPerRun's weighted answer.
constexpr uint64_t kSpace = uint64_t{1} << 32;

void ObserveShape(LevelAwareBits& bits, double bytes_over_uniform) {
  const uint64_t uniform_bytes = 1000 * 10 / 8 + 16;  // the budget: 10 bits/key + trailer
  auto observe = [&](int level, uint64_t first, uint64_t last) {
    const uint64_t bytes =
        level == 6 ? static_cast<uint64_t>(std::llround(uniform_bytes * bytes_over_uniform)) : uniform_bytes;
    bits.ObserveFilter("default", level, KeyAt(first), KeyAt(last), 1000, bytes);
  };
  for (uint64_t i = 0; i < 100; ++i) observe(6, i * kSpace / 100, (i + 1) * kSpace / 100 - 1);
  for (uint64_t i = 0; i < 8; ++i) {
    observe(0, 0, kSpace - 1);
    observe(3, i * kSpace / 16, i * kSpace / 16 + kSpace / 2 - 1);
    observe(4, i * kSpace / 32, i * kSpace / 32 + kSpace / 5 * 3 - 1);
    observe(5, i * kSpace / 32, i * kSpace / 32 + kSpace / 40 * 3 - 1);
  }
}

std::vector<uint64_t> ModelL3ToL6() {
  std::vector<uint64_t> model = LeveledEntries(uint64_t{1} << 60, 10, 4);
  model.insert(model.begin(), model.front());
  return model;
}

TEST(RocksdbLevelAwareWeights, KeyRangesOfObservedFiltersWeighTheLevels) {
  const auto bits = std::make_shared<LevelAwareBits>(10, 0, 10);
  const int levels[] = {0, 3, 4, 5, 6};
  for (int level : {3, 6}) ASSERT_TRUE(bits->ForNewFile(Context(level).context));
  const std::vector<uint64_t> model = ModelL3ToL6();
  const LevelAllocation unweighted = AllocateBitsSharedMiddle(model, {}, 10);
  // Nothing observed yet: weight 1 everywhere.
  EXPECT_EQ(bits->LookupWeights("default"), std::vector<double>(5, 1.0));
  EXPECT_EQ(bits->ForNewFile(Context(3).context)->bits_per_key, unweighted.bits_per_key[1]);

  ObserveShape(*bits, 1.0);
  const std::vector<double> weights = bits->LookupWeights("default");
  ASSERT_EQ(weights.size(), 5u);
  const double expected_weights[] = {1.0, 0.5, 0.6, 0.75, 1.0};
  for (size_t run = 0; run < 5; ++run) EXPECT_NEAR(weights[run], expected_weights[run], 0.01) << run;
  EXPECT_DOUBLE_EQ(bits->BudgetAverage("default"), 10.0);

  const double quantized[] = {1.0, 32.0 / 64, 38.0 / 64, 48.0 / 64, 1.0};
  const LevelAllocation expected = AllocateBitsSharedMiddle(model, quantized, 10);
  for (size_t run = 0; run < model.size(); ++run) {
    const auto chosen = bits->ForNewFile(Context(levels[run]).context);
    ASSERT_TRUE(chosen) << levels[run];
    EXPECT_EQ(chosen->bits_per_key, expected.bits_per_key[run]) << "L" << levels[run];
    // k is left to the core, which picks it after rounding (ProbesFor).
    EXPECT_EQ(chosen->num_probes, 0) << "L" << levels[run];
  }
  // Sparse upper levels never get more bits than with weight 1, nor the
  // last level fewer, and the expected false positives per lookup (with
  // these weights) are no higher. (Here the shared levels' weights still sum
  // to 1.84, and both land on the same 1/8-bit grid point, 16.625; sparser
  // levels move it: SharedMiddleAllocationIsTheConstrainedOptimum.)
  EXPECT_LE(expected.bits_per_key[1], unweighted.bits_per_key[1]);
  EXPECT_GE(expected.bits_per_key[4], unweighted.bits_per_key[4]);
  double unweighted_cost = 0;
  for (size_t run = 0; run < model.size(); ++run) unweighted_cost += quantized[run] * unweighted.expected_fpr[run];
  EXPECT_LE(expected.expected_weighted_fpr_sum, unweighted_cost * (1 + 1e-12));
}

// The move-safe allocation against two references on the same weights: the
// unconstrained optimum (never beaten: it has no constraint) and the
// earlier rule, the unconstrained optimum with levels s..D-2 cut down to
// D-1's bits afterwards (never better: it satisfies the same constraint).
// Each answer stays within the budget and gives levels s..D-1 one value.
TEST(RocksdbLevelAwareWeights, SharedMiddleAllocationIsTheConstrainedOptimum) {
  const std::vector<uint64_t> model = ModelL3ToL6();
  const std::vector<std::vector<double>> cases = {
      {1, 1, 1, 1, 1}, {1, 0.5, 0.6, 0.75, 1}, {0.3, 0.5, 0.5, 0.5, 1}, {1, 1, 1, 0.5, 1}, {1, 0.05, 0.2, 0.9, 1}};
  for (double average : {6.0, 10.0, 16.0}) {
    for (const std::vector<double>& w : cases) {
      const LevelAllocation safe = AllocateBitsSharedMiddle(model, w, average);
      const LevelAllocation free = AllocateBitsPerRun(model, w, average);
      LevelAllocation capped = free;
      double capped_cost = 0;
      for (size_t run = 0; run < model.size(); ++run) {
        if (run == 1 || run == 2) {
          capped.expected_fpr[run] = std::max(capped.expected_fpr[run], capped.expected_fpr[3]);
        }
        capped_cost += w[run] * capped.expected_fpr[run];
      }
      double memory = 0, total = 0;
      for (size_t run = 0; run < model.size(); ++run) {
        memory += safe.bits_per_key[run] * static_cast<double>(model[run]);
        total += static_cast<double>(model[run]);
      }
      SCOPED_TRACE(::testing::Message() << "average " << average << " weights " << w[0] << "," << w[1] << "," << w[2]
                                        << "," << w[3] << "," << w[4]);
      EXPECT_LE(memory, average * total * (1 + 1e-12));
      EXPECT_EQ(safe.bits_per_key[1], safe.bits_per_key[3]);
      EXPECT_EQ(safe.bits_per_key[2], safe.bits_per_key[3]);
      EXPECT_GE(safe.expected_weighted_fpr_sum, free.expected_weighted_fpr_sum * (1 - 1e-9));
      EXPECT_LE(safe.expected_weighted_fpr_sum, capped_cost * (1 + 1e-9));
    }
  }
  // Where every lookup reaches every level, the shared levels get more bits
  // than the old rule left them (D-1's unconstrained share), and the
  // expected false positives fall by more than 5 % (8 % here).
  const double ones[] = {1, 1, 1, 1, 1};
  const LevelAllocation safe = AllocateBitsSharedMiddle(model, ones, 10);
  const LevelAllocation free = AllocateBitsPerRun(model, ones, 10);
  EXPECT_GT(safe.bits_per_key[3], free.bits_per_key[3]);
  const double capped_sum = free.expected_fpr[0] + 3 * free.expected_fpr[3] + free.expected_fpr[4];
  EXPECT_LT(safe.expected_fpr_sum, 0.95 * capped_sum);
  // Levels that one lookup in ten reaches give bits to the last level.
  const double sparse[] = {1, 0.1, 0.1, 0.1, 1};
  const LevelAllocation sparse_safe = AllocateBitsSharedMiddle(model, sparse, 10);
  EXPECT_LT(sparse_safe.bits_per_key[3], safe.bits_per_key[3]);
  EXPECT_GT(sparse_safe.bits_per_key[4], safe.bits_per_key[4]);
}

// The books: L6 filters 4 % larger than the budget for their keys. L6 is
// 1000/1111 of the model, so the live ratio r is ~1 + 0.04 * 1000/1111 and
// the next files get an average of 10 / r (to 1/64 bit). On-budget filters
// that push the over-spent ones out of the window bring it back to 10.
// Under-spending raises the average, up to 1.1 times bits_per_key.
TEST(RocksdbLevelAwareWeights, OverAndUnderSpendingMoveTheAverage) {
  const std::vector<uint64_t> model = ModelL3ToL6();
  {
    const auto bits = std::make_shared<LevelAwareBits>(10, 0, 10);
    for (int level : {3, 6}) ASSERT_TRUE(bits->ForNewFile(Context(level).context));
    ObserveShape(*bits, 1.04);
    // (The L6 filters are whole bytes: 1266 * 1.04 -> 1317.)
    const double budget_bytes = 1000 * 10 / 8 + 16;
    const double l6_ratio = std::round(budget_bytes * 1.04) / budget_bytes;
    const double ratio = 1 + (l6_ratio - 1) * static_cast<double>(model[4]) /
                                 static_cast<double>(model[0] + model[1] + model[2] + model[3] + model[4]);
    const double average = bits->BudgetAverage("default");
    EXPECT_NEAR(average, 10 / ratio, 1e-9);
    const double quantized[] = {1.0, 32.0 / 64, 38.0 / 64, 48.0 / 64, 1.0};
    const LevelAllocation expected = AllocateBitsSharedMiddle(model, quantized, std::round(average * 64) / 64);
    EXPECT_EQ(bits->ForNewFile(Context(6).context)->bits_per_key, expected.bits_per_key[4]);
    EXPECT_LT(expected.total_bits, 10 * static_cast<double>(model[0] + model[1] + model[2] + model[3] + model[4]));

    // On-budget L6 filters fill the window: r -> 1.
    for (int i = 0; i < 1024; ++i) {
      bits->ObserveFilter("default", 6, KeyAt(0), KeyAt(kSpace / 100), 1000, static_cast<uint64_t>(budget_bytes));
    }
    EXPECT_DOUBLE_EQ(bits->BudgetAverage("default"), 10.0);
  }
  {
    const auto bits = std::make_shared<LevelAwareBits>(10, 0, 10);
    for (int level : {3, 6}) ASSERT_TRUE(bits->ForNewFile(Context(level).context));
    ObserveShape(*bits, 0.5);
    EXPECT_DOUBLE_EQ(bits->BudgetAverage("default"), 11.0);
  }
}

// Through the policy: the builders it hands out report their filters, so
// after files at every level the sparse upper levels get fewer bits than the
// unweighted model gives them.
TEST(RocksdbLevelAwareWeights, PolicyBuildersFeedTheEstimate) {
  LinebloomFilterPolicy policy(LevelAware(10));
  for (uint64_t i = 0; i < 100; ++i) BuildFilter(policy, 6, i * kSpace / 100, (i + 1) * kSpace / 100 - 1, 1000);
  for (uint64_t i = 0; i < 8; ++i) {
    BuildFilter(policy, 3, i * kSpace / 16, i * kSpace / 16 + kSpace / 2 - 1, 1000);
    BuildFilter(policy, 4, i * kSpace / 32, i * kSpace / 32 + kSpace / 4 - 1, 1000);
    BuildFilter(policy, 5, i * kSpace / 32, i * kSpace / 32 + kSpace / 20 - 1, 1000);
  }
  const LevelAllocation unweighted = AllocateBitsSharedMiddle(ModelL3ToL6(), {}, 10);
  // (L3, L4 and L5 share one value either way.)
  EXPECT_LT(Choose(policy, 5)->bits_per_key, unweighted.bits_per_key[3]);
}

// Filters with one key each have no width: no density, weight 1. Builders
// for level -1 (SstFileWriter) are not observed at all.
TEST(RocksdbLevelAwareWeights, NoUsableRangesMeansUnweighted) {
  const auto bits = std::make_shared<LevelAwareBits>(10, 0, 10);
  for (int level : {3, 6}) ASSERT_TRUE(bits->ForNewFile(Context(level).context));
  for (int i = 0; i < 8; ++i) {
    const std::string key = KeyAt(static_cast<uint64_t>(i) * 1000);
    bits->ObserveFilter("default", i % 2 == 0 ? 3 : 6, key, key, 1, 80);
  }
  EXPECT_EQ(bits->LookupWeights("default"), std::vector<double>(5, 1.0));

  auto builder = std::make_unique<LinebloomBitsBuilder>(FilterOptions{}, false);
  const ::rocksdb::FilterBitsBuilder* raw = builder.get();
  EXPECT_EQ(bits->Observed(Context(-1).context, std::move(builder)).get(), raw);
}

// A real leveled DB with automatic compactions and partitioned filters: the
// observing builder forwards partition sizing and post-verification, and
// every key is found, every absent key not.
TEST(RocksdbLevelAwareWeights, RealDbWithObservedPartitionedFilters) {
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

namespace linebloom::rocksdb_plugin {
namespace {

// The built-in's size formula (FastLocalBloom, format_version 5) on values
// sst_dump reported for RocksDB 7.8.3's filters at 10 bits/key.
TEST(RocksdbLevelAwareBooks, BuiltinBytesMatchRocksdb) {
  EXPECT_EQ(LevelAwareBits::BuiltinFilterBytes(1283, 10), 1669u);
  EXPECT_EQ(LevelAwareBits::BuiltinFilterBytes(891, 10), 1157u);
  EXPECT_EQ(LevelAwareBits::BuiltinFilterBytes(1847, 10), 2373u);
}

TEST(RocksdbLevelAwareBooks, LevelWeightsParse) {
  EXPECT_EQ(LevelAwareBits::ParseLevelWeights("")->size(), 0u);
  const auto w = LevelAwareBits::ParseLevelWeights("0.1:1:0.25");
  ASSERT_TRUE(w);
  EXPECT_EQ(*w, (std::vector<double>{0.1, 1, 0.25}));
  for (const char* bad : {"1:", ":1", "2", "-0.5", "x", "1::1"})
    EXPECT_FALSE(LevelAwareBits::ParseLevelWeights(bad)) << bad;
}

// Che's approximation on a toy tree: the fixed point fills the cache exactly
// (sum_j B_j h_j = C), the hotter run (more requests per block) hits more,
// and a cache that holds everything misses nothing.
TEST(RocksdbLevelAwareCache, CheFixedPointFillsTheCache) {
  const std::vector<double> blocks = {10, 100, 10000};
  const std::vector<double> rates = {0.002, 0.005, 0.01};
  const double capacity = 256;
  const std::vector<double> miss = LevelAwareBits::CheMissProbabilities(blocks, rates, capacity);
  double occupied = 0;
  for (size_t j = 0; j < blocks.size(); ++j) occupied += blocks[j] * (1 - miss[j]);
  EXPECT_NEAR(occupied, capacity, 1e-6 * capacity);
  EXPECT_LT(miss[0], miss[1]);  // 2e-4 per block vs 5e-5
  EXPECT_LT(miss[1], miss[2]);  // vs 1e-6
  EXPECT_GT(miss[2], 0.9);      // the big run barely fits
  // h_j = 1 - exp(-lambda_j T) with one T for every run.
  const double t0 = -std::log(miss[0]) / (rates[0] / blocks[0]);
  const double t2 = -std::log(miss[2]) / (rates[2] / blocks[2]);
  EXPECT_NEAR(t0, t2, 1e-6 * t0);
  for (double m : LevelAwareBits::CheMissProbabilities(blocks, rates, 20000)) EXPECT_EQ(m, 0.0);
  for (double m : LevelAwareBits::CheMissProbabilities(blocks, rates, 0)) EXPECT_EQ(m, 1.0);
}

// A tracked tree (the deepest level's recorded files cover the key space):
// the plan's real bytes stay within the built-in's for the same files, the
// recorded coverage of a sparse upper level is its weight, and the levels
// above the last share their bits.
// The toy tree: L6 in 400 files and L5 in 40 cover the key space, L4's 4
// files a quarter of it; 1280 keys per file.
std::string BigEndianKey(uint64_t x) {
  std::string k(8, '\0');
  for (int i = 7; i >= 0; --i, x >>= 8) k[static_cast<size_t>(i)] = static_cast<char>(x & 0xff);
  return k;
}

void BuildToyTree(LevelAwareBits* bits) {
  for (int level : {4, 5, 6}) ASSERT_TRUE(bits->ForNewFile(Context(level).context));
  const auto key = BigEndianKey;
  constexpr uint64_t kToySpace = uint64_t{1} << 40;
  for (uint64_t i = 0; i < 400; ++i) {
    bits->ObserveFilter("default", 6, key(i * kToySpace / 400), key((i + 1) * kToySpace / 400 - 1), 1280, 1616);
  }
  for (uint64_t i = 0; i < 40; ++i) {  // all of L5
    bits->ObserveFilter("default", 5, key(i * kToySpace / 40), key((i + 1) * kToySpace / 40 - 1), 1280, 1616);
  }
  for (uint64_t i = 0; i < 4; ++i) {  // L4: a quarter of the key space
    bits->ObserveFilter("default", 4, key(i * kToySpace / 16), key((i + 1) * kToySpace / 16 - 1), 1280, 1616);
  }
  // Rewriting a file replaces its record (same range), it does not add one.
  bits->ObserveFilter("default", 4, key(0), key(kToySpace / 16 - 1), 1280, 1616);
}

TEST(RocksdbLevelAwareBooks, TrackedTreeStaysWithinTheBuiltinsBytes) {
  auto bits = std::make_shared<LevelAwareBits>(10, 0, 10);
  BuildToyTree(bits.get());
  const auto plan = bits->StablePlan("default");
  ASSERT_TRUE(plan);
  EXPECT_LE(plan->real_bytes, plan->builtin_bytes);
  EXPECT_DOUBLE_EQ(plan->builtin_bytes, 444.0 * LevelAwareBits::BuiltinFilterBytes(1280, 10));
  ASSERT_EQ(plan->weights.size(), 4u);  // L0, L4, L5, L6
  EXPECT_NEAR(plan->weights[1], 0.25, 0.01);
  EXPECT_DOUBLE_EQ(plan->entries[1], 4 * 1280.0);
  EXPECT_GT(plan->bits_per_key[1], plan->bits_per_key[3]);
  // Move-safe: a file L4 moves down unrewritten brings L5's bits.
  EXPECT_EQ(plan->bits_per_key[1], plan->bits_per_key[2]);
  // Real bytes within one block per file of the built-in's.
  EXPECT_GT(plan->real_bytes, plan->builtin_bytes - 444.0 * 64);
}

// A file that cannot move down unrewritten -- an upper level's, overlapping
// a recorded file of the level below -- gets its level's own bits once its
// key range is known, from the plan without the shared constraint with the
// file recorded; one that could move keeps the bits it was created with.
// Toy tree: L4's 4 files cover a quarter of the key space; a new L4 file
// spanning all of it raises L4's coverage, and so its bits, above the
// shared bits of L4 and L5.
TEST(RocksdbLevelAwareBooks, PinnedUpperFileGetsItsLevelsOwnBits) {
  auto bits = std::make_shared<LevelAwareBits>(10, 0, 10);
  BuildToyTree(bits.get());
  const auto plan = bits->StablePlan("default");
  ASSERT_TRUE(plan);
  const double shared = plan->bits_per_key[1];
  ASSERT_EQ(shared, plan->bits_per_key[2]);
  const auto key = BigEndianKey;
  constexpr uint64_t kToySpace = uint64_t{1} << 40;
  // Spans the key space: overlaps L5's files, so it is pinned.
  const std::optional<double> wide = bits->BitsAtFinish("default", 4, key(0), key(kToySpace - 1), 1280);
  ASSERT_TRUE(wide);
  EXPECT_GT(*wide, shared + 2);
  // An L5 file (pinned by L6) gets L5's own bits: fewer than L4's.
  const std::optional<double> l5 = bits->BitsAtFinish("default", 5, key(0), key(kToySpace / 40 - 1), 1280);
  ASSERT_TRUE(l5);
  EXPECT_LT(*l5, *wide);
  // Past every recorded L5 file: it may move down, no change.
  EXPECT_FALSE(bits->BitsAtFinish("default", 4, key(2 * kToySpace), key(3 * kToySpace), 1280));
  // The last level and L0 are sized when created.
  EXPECT_FALSE(bits->BitsAtFinish("default", 6, key(0), key(kToySpace / 400 - 1), 1280));
  EXPECT_FALSE(bits->BitsAtFinish("default", 0, key(0), key(kToySpace - 1), 1280));
  EXPECT_FALSE(bits->BitsAtFinish("other", 4, key(0), key(kToySpace - 1), 1280));
  // Asking records nothing: the plan is unchanged.
  const auto again = bits->StablePlan("default");
  ASSERT_TRUE(again);
  EXPECT_EQ(again->bits_per_key, plan->bits_per_key);
  // The plan books the recorded files as they are sized: every L4 and L5
  // file overlaps the level below, so at their levels' own bits; L6 at its.
  ASSERT_EQ(plan->own_bits_per_key.size(), 4u);
  EXPECT_NE(plan->own_bits_per_key[1], shared);
  const double booked = 4.0 * FilterBytesFor(1280, plan->own_bits_per_key[1]) +
                        40.0 * FilterBytesFor(1280, plan->own_bits_per_key[2]) +
                        400.0 * FilterBytesFor(1280, plan->bits_per_key[3]);
  EXPECT_DOUBLE_EQ(plan->real_bytes, booked);
  EXPECT_LE(plan->real_bytes, plan->builtin_bytes);
}

// Through the observing builder RocksDB gets: an L4 file whose first
// partition spans L5's records is sized at L4's own bits, and so is its
// second partition, past every record (one file, one decision); a file that
// overlaps nothing below keeps the bits it was created with.
TEST(RocksdbLevelAwareBooks, ObservedBuilderSizesAPinnedFileAtFinish) {
  auto bits = std::make_shared<LevelAwareBits>(10, 0, 10);
  BuildToyTree(bits.get());
  const auto key = BigEndianKey;
  constexpr uint64_t kToySpace = uint64_t{1} << 40;
  auto finish = [](::rocksdb::FilterBitsBuilder& b, uint64_t from, uint64_t to) {
    for (uint64_t i = 0; i < 1280; ++i) b.AddKey(BigEndianKey(from + (to - from) / 1280 * i));
    std::unique_ptr<const char[]> buf;
    return b.Finish(&buf).size();
  };
  const double created = 10;
  auto observed = [&] {
    return bits->Observed(Context(4).context,
                          std::make_unique<LinebloomBitsBuilder>(FilterOptions{.bits_per_key = created}, false));
  };
  const std::optional<double> own = bits->BitsAtFinish("default", 4, key(0), key(kToySpace - 1), 1280);
  ASSERT_TRUE(own);
  ASSERT_GT(FilterBytesFor(1280, *own), FilterBytesFor(1280, created));
  auto pinned = observed();
  EXPECT_EQ(finish(*pinned, 0, kToySpace - 1), FilterBytesFor(1280, *own));
  EXPECT_EQ(finish(*pinned, 2 * kToySpace, 3 * kToySpace), FilterBytesFor(1280, *own));
  auto movable = observed();
  EXPECT_EQ(finish(*movable, 2 * kToySpace, 3 * kToySpace), FilterBytesFor(1280, created));
}

// Stale records: a tree whose upper levels drained after their files were
// recorded (compacted down with no replacement at their level), as when
// writes stop. L6 covers the key space in 400 files; L5's records cover it
// in 200 (5 x the model's tenth of L6) and L4's in 40 (10 x its hundredth).
// The smaller upper levels get more bits per key, so booked at their
// recorded keys they would take the last level's bytes. Each upper level
// counts as at most its model share, in the allocation and in the books
// alike, so the last level keeps about its bits.
TEST(RocksdbLevelAwareBooks, StaleUpperLevelRecordsDoNotStarveTheLastLevel) {
  auto bits = std::make_shared<LevelAwareBits>(10, 0, 10);
  for (int level : {4, 5, 6}) ASSERT_TRUE(bits->ForNewFile(Context(level).context));
  const auto key = BigEndianKey;
  constexpr uint64_t kToySpace = uint64_t{1} << 40;
  for (auto [level, files] : {std::pair{6, 400}, {5, 200}, {4, 40}}) {
    for (uint64_t i = 0; i < static_cast<uint64_t>(files); ++i) {
      bits->ObserveFilter("default", level, key(i * kToySpace / files), key((i + 1) * kToySpace / files - 1), 1280,
                          1616);
    }
  }
  const auto plan = bits->StablePlan("default");
  ASSERT_TRUE(plan);
  ASSERT_EQ(plan->entries.size(), 4u);  // L0, L4, L5, L6
  const double last = plan->entries[3];
  EXPECT_NEAR(plan->entries[2], last / 10, 1e-6 * last);
  EXPECT_NEAR(plan->entries[1], last / 100, 1e-6 * last);
  EXPECT_GE(plan->bits_per_key[3], 8.0);
  EXPECT_LE(plan->real_bytes, plan->builtin_bytes);

  // L0 is booked as large as the shallowest level as recorded, not as its
  // share (RocksDB keeps the base level at least max_bytes_for_level_base,
  // and L0 grows to about the base level's size before it is compacted),
  // but at most kBaseLevelSlack times the share: L4's 40 files are 10 x.
  EXPECT_DOUBLE_EQ(plan->entries[0], 0.0);  // no L0 file built yet
  bits->ObserveFilter("default", 0, key(0), key(kToySpace - 1), 1280, 1616);
  const auto with_l0 = bits->StablePlan("default");
  ASSERT_TRUE(with_l0);
  EXPECT_NEAR(with_l0->entries[0], LevelAwareBits::kBaseLevelSlack * last / 100, 1e-6 * last);
  EXPECT_LE(with_l0->real_bytes, with_l0->builtin_bytes);
}

}  // namespace
}  // namespace linebloom::rocksdb_plugin

namespace linebloom::rocksdb_plugin {
namespace {

// Cache-aware: a 4 MiB cache (1024 blocks of 4 KiB) holds L4's and L5's
// data blocks (70 + 700 at 56 bytes per key) but a seventh of L6's (7000),
// and L5's blocks are ten times hotter per false positive, so some of its
// false positives hit: its weight falls, it gets fewer bits than without
// the cache and L6 more; the misses follow Che's fixed point and the real
// bytes stay within the built-in's.
TEST(RocksdbLevelAwareCache, CachedUpperLevelGivesUpBits) {
  auto plain = std::make_shared<LevelAwareBits>(10, 0, 10);
  LevelAwareBits::CacheOptions cache;
  cache.enabled = true;
  cache.block_cache_bytes = 4 << 20;
  cache.data_bytes_per_key = 56;
  auto cached = std::make_shared<LevelAwareBits>(10, 0, 10, cache);
  BuildToyTree(plain.get());
  BuildToyTree(cached.get());
  ASSERT_TRUE(plain->ForNewFile(Context(6).context));  // sets the block size, cache capacity
  ASSERT_TRUE(cached->ForNewFile(Context(6).context));
  const auto without = plain->StablePlan("default");
  const auto with = cached->StablePlan("default");
  ASSERT_TRUE(without && with);
  for (double m : without->miss) EXPECT_EQ(m, 1.0);
  EXPECT_LT(with->miss[2], 0.9);  // L5: partly cached
  EXPECT_LT(with->miss[2], with->miss[3]);
  EXPECT_LT(with->bits_per_key[2], without->bits_per_key[2]);
  EXPECT_GT(with->last_bytes_per_key, without->last_bytes_per_key);  // L6 gets the bytes
  EXPECT_LE(with->real_bytes, with->builtin_bytes);
}

}  // namespace
}  // namespace linebloom::rocksdb_plugin

namespace linebloom::rocksdb_plugin {
namespace {

// Waits until no flush or compaction of `cf` (default: the default column
// family) is pending or running (RocksDB 7.8 has no public WaitForCompact).
void WaitForCompactions(::rocksdb::DB& db, ::rocksdb::ColumnFamilyHandle* cf = nullptr) {
  if (cf == nullptr) cf = db.DefaultColumnFamily();
  for (int i = 0; i < 3000; ++i) {
    uint64_t pending = 0, running = 0, flushes = 0;
    db.GetIntProperty(cf, "rocksdb.compaction-pending", &pending);
    db.GetIntProperty(cf, "rocksdb.num-running-compactions", &running);
    db.GetIntProperty(cf, "rocksdb.num-running-flushes", &flushes);
    if (pending + running + flushes == 0) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

using FileList = std::vector<std::tuple<int, std::string, std::string, uint64_t>>;

// (level, smallest, largest, filter entries) of every live SST of `cf`
// (default: the default column family) at levels >= 1.
FileList LiveFilesOf(::rocksdb::DB& db, ::rocksdb::ColumnFamilyHandle* cf = nullptr) {
  if (cf == nullptr) cf = db.DefaultColumnFamily();
  ::rocksdb::TablePropertiesCollection properties;
  EXPECT_TRUE(db.GetPropertiesOfAllTables(cf, &properties).ok());
  std::vector<::rocksdb::LiveFileMetaData> metadata;
  db.GetLiveFilesMetaData(&metadata);
  FileList files;
  for (const auto& file : metadata) {
    if (file.column_family_name != cf->GetName() || file.level < 1) continue;
    const auto it = properties.find(file.db_path + file.name);
    EXPECT_NE(it, properties.end()) << file.name;
    files.emplace_back(file.level, file.smallestkey, file.largestkey,
                       it == properties.end() ? 0 : it->second->num_filter_entries);
  }
  std::sort(files.begin(), files.end());
  return files;
}

FileList RecordedFilesOf(const LinebloomFilterPolicy& policy, const std::string& column_family = "default") {
  FileList files;
  for (const LiveSstFile& file : policy.RecordedLiveFiles(column_family)) {
    files.emplace_back(file.level, file.smallest, file.largest, file.filter_entries);
  }
  std::sort(files.begin(), files.end());
  return files;
}

// Options whose small files and levels give a 60 000-key fill a tree of
// several levels with dynamic level bytes (which moves files down).
::rocksdb::Options SmallTreeOptions(std::shared_ptr<const ::rocksdb::FilterPolicy> policy) {
  ::rocksdb::Options options = MakeOptions(std::move(policy), testing::FilterMode());
  options.write_buffer_size = 64 << 10;
  options.target_file_size_base = 64 << 10;
  options.max_bytes_for_level_base = 256 << 10;
  options.level_compaction_dynamic_level_bytes = true;
  return options;
}

// With the listener, the policy's record of the live files is the DB's own
// list after every compaction: files compacted away are gone, files moved
// down unrewritten (dynamic level bytes moves many) are at their new level.
// The same workload without the listener leaves the record stale.
TEST(RocksdbLevelAwareListener, RecordedFilesAreTheLiveFiles) {
  for (const bool with_listener : {true, false}) {
    SCOPED_TRACE(with_listener ? "with the listener" : "without");
    TempDir dir;
    const auto policy = NewLinebloomFilterPolicy(LevelAware(10));
    ::rocksdb::Options options = SmallTreeOptions(policy);
    if (with_listener) options.listeners.push_back(NewLevelAwareListener());
    auto db = OpenDb(options, dir.path());
    ASSERT_TRUE(db);
    std::mt19937_64 rng(11);
    std::vector<std::string> keys;
    for (int i = 0; i < 60000; ++i) keys.push_back(testing::Key(rng() % 10000000));
    PutAll(*db, keys);
    ASSERT_TRUE(db->Flush(::rocksdb::FlushOptions()).ok());
    WaitForCompactions(*db);
    // Half the key space compacted again: deletes and rewrites files there.
    const std::string middle = testing::Key(5000000);
    ::rocksdb::Slice end(middle);
    ASSERT_TRUE(db->CompactRange(::rocksdb::CompactRangeOptions(), nullptr, &end).ok());
    WaitForCompactions(*db);

    const auto live = LiveFilesOf(*db);
    ASSERT_GE(live.size(), 8u);
    const auto recorded = RecordedFilesOf(*policy);
    if (with_listener) {
      EXPECT_EQ(recorded, live);
    } else {
      EXPECT_NE(recorded, live);
    }
  }
}

// Opens a DB at `path` with the default column family on `options` and
// "other" on `other_options` (default: `options` too, so the two share its
// table factory, and with it the policy): handles[0] is the default's,
// handles[1] the other's.
::rocksdb::Status OpenWithOtherFamily(const ::rocksdb::Options& options, const std::string& path,
                                      std::vector<::rocksdb::ColumnFamilyHandle*>* handles,
                                      std::unique_ptr<::rocksdb::DB>* db,
                                      const ::rocksdb::Options* other_options = nullptr) {
  ::rocksdb::DBOptions db_options(options);
  db_options.create_missing_column_families = true;
  const ::rocksdb::ColumnFamilyOptions cf_options(options);
  const ::rocksdb::ColumnFamilyOptions other_cf_options(other_options != nullptr ? *other_options : options);
  return OpenDB(db_options, path, {{::rocksdb::kDefaultColumnFamilyName, cf_options}, {"other", other_cf_options}},
                handles, db);
}

// Fills "other" (handles[1]) with 60 000 random keys and the default column
// family with every 20th, flushes both, then compacts the lower half of
// "other"'s key space again (deleting and rewriting files there) and
// returns "other"'s live files.
FileList FillAndCompactOther(::rocksdb::DB& db, const std::vector<::rocksdb::ColumnFamilyHandle*>& handles) {
  ::rocksdb::ColumnFamilyHandle* other = handles[1];
  std::mt19937_64 rng(13);
  ::rocksdb::WriteOptions wo;
  wo.disableWAL = true;
  for (int i = 0; i < 60000; ++i) {
    const std::string key = testing::Key(rng() % 10000000);
    EXPECT_TRUE(db.Put(wo, other, key, testing::ValueFor(key)).ok());
    if (i % 20 == 0) {
      EXPECT_TRUE(db.Put(wo, handles[0], key, testing::ValueFor(key)).ok());
    }
  }
  EXPECT_TRUE(db.Flush(::rocksdb::FlushOptions(), handles).ok());
  WaitForCompactions(db, other);
  const std::string middle = testing::Key(5000000);
  ::rocksdb::Slice end(middle);
  EXPECT_TRUE(db.CompactRange(::rocksdb::CompactRangeOptions(), other, nullptr, &end).ok());
  WaitForCompactions(db, other);
  return LiveFilesOf(db, other);
}

// Opens a DB with the default column family on `default_policy` and
// "other" on `other_policy` (null: options copied from the default's, so
// sharing its policy), with the listener or without, fills and compacts
// "other", and checks `recorder`'s record of it: the live files with the
// listener, stale without.
void CheckOtherFamilyRecord(bool with_listener, std::shared_ptr<const ::rocksdb::FilterPolicy> default_policy,
                            std::shared_ptr<const ::rocksdb::FilterPolicy> other_policy,
                            const LinebloomFilterPolicy& recorder) {
  TempDir dir;
  ::rocksdb::Options options = SmallTreeOptions(std::move(default_policy));
  if (with_listener) options.listeners.push_back(NewLevelAwareListener());
  const ::rocksdb::Options other_options = other_policy ? SmallTreeOptions(std::move(other_policy)) : options;
  std::vector<::rocksdb::ColumnFamilyHandle*> handles;
  std::unique_ptr<::rocksdb::DB> db;
  const ::rocksdb::Status opened = OpenWithOtherFamily(options, dir.path(), &handles, &db, &other_options);
  ASSERT_TRUE(opened.ok()) << opened.ToString();

  const FileList live = FillAndCompactOther(*db, handles);
  ASSERT_GE(live.size(), 8u);
  const FileList recorded = RecordedFilesOf(recorder, "other");
  if (with_listener) {
    EXPECT_EQ(recorded, live);
  } else {
    EXPECT_NE(recorded, live);
  }
  for (::rocksdb::ColumnFamilyHandle* handle : handles) ASSERT_TRUE(db->DestroyColumnFamilyHandle(handle).ok());
}

// A column family other than the default, whose options are copied from
// the default's and so share its policy: the listener keeps its record
// exact too, from the tables it saw created. Without the listener the
// record goes stale.
TEST(RocksdbLevelAwareListener, ColumnFamilySharingThePolicyIsSynced) {
  for (const bool with_listener : {true, false}) {
    SCOPED_TRACE(with_listener ? "with the listener" : "without");
    const auto policy = NewLinebloomFilterPolicy(LevelAware(10));
    CheckOtherFamilyRecord(with_listener, policy, nullptr, *policy);
  }
}

// A column family with a level-aware policy of its own, whose options the
// listener cannot read (it has no handle of it): it is synced through the
// policy that records its live files, whether the default column family
// has RocksDB's built-in filter or a level-aware policy of its own. Without
// the listener the record goes stale.
TEST(RocksdbLevelAwareListener, ColumnFamilyWithItsOwnPolicyIsSynced) {
  for (const bool default_level_aware : {false, true}) {
    for (const bool with_listener : {true, false}) {
      SCOPED_TRACE(std::string(default_level_aware ? "default level-aware" : "default built-in") +
                   (with_listener ? ", with the listener" : ", without"));
      const auto default_policy =
          default_level_aware ? std::shared_ptr<const ::rocksdb::FilterPolicy>(NewLinebloomFilterPolicy(LevelAware(10)))
                              : std::shared_ptr<const ::rocksdb::FilterPolicy>(::rocksdb::NewBloomFilterPolicy(10));
      const auto own_policy = NewLinebloomFilterPolicy(LevelAware(10));
      CheckOtherFamilyRecord(with_listener, default_policy, own_policy, *own_policy);
    }
  }
}

// The registry hands a listing to the one live state that records one of
// its files (at any level: here the file has moved down), to none when no
// state does, and to none when two do (column families of one name in two
// DBs holding equal files): it does not guess.
TEST(RocksdbLevelAwareListener, OwnerOfAListingIsTheOneStateRecordingIt) {
  const std::string cf = "owner_of_test";  // no other test's policies build for it
  auto first = std::make_shared<LevelAwareBits>(10, 0, 10);
  auto second = std::make_shared<LevelAwareBits>(10, 0, 10);
  LevelAwareBits::Register(first);
  LevelAwareBits::Register(second);
  first->ObserveFilter(cf, 3, "k100", "k200", 1000, 1296);
  second->ObserveFilter(cf, 3, "k300", "k400", 1000, 1296);
  const std::vector<LiveSstFile> moved{LiveSstFile{4, "k100", "k200", 1000, 1296}};
  const std::vector<LiveSstFile> unknown{LiveSstFile{4, "k500", "k600", 1000, 1296}};
  EXPECT_EQ(LevelAwareBits::OwnerOf(cf, moved), first);
  EXPECT_EQ(LevelAwareBits::OwnerOf(cf, unknown), nullptr);
  EXPECT_EQ(LevelAwareBits::OwnerOf("another_family", moved), nullptr);
  // A listener lists no files for a column family no state builds for.
  EXPECT_TRUE(LevelAwareBits::AnyBuildsFor(cf));
  EXPECT_FALSE(LevelAwareBits::AnyBuildsFor("another_family"));
  second->ObserveFilter(cf, 5, "k100", "k250", 1000, 1296);
  EXPECT_EQ(LevelAwareBits::OwnerOf(cf, moved), nullptr);
  second.reset();
  EXPECT_EQ(LevelAwareBits::OwnerOf(cf, moved), first);
}

// A DB whose live-file listings show, from `live` on, a table at level 6
// of `cf` that the listener is told about separately (Created, Deleted);
// with `create_in_listing` the first listing that does not show it reports
// its creation itself, as a flush finishing during the listing would.
class ListsATableLate : public ::rocksdb::StackableDB {
 public:
  ListsATableLate(::rocksdb::DB* db, LevelAwareListener* listener, std::string cf)
      : StackableDB(db), listener_(listener), cf_(std::move(cf)) {}
  static constexpr const char* kName = "/999999.sst";
  bool live = false;
  bool create_in_listing = false;

  void Created() {
    ::rocksdb::TableFileCreationInfo created;
    created.db_name = GetName();
    created.cf_name = cf_;
    created.file_path = GetName() + kName;
    created.status = ::rocksdb::Status::OK();
    created.table_properties.num_filter_entries = 1000;
    created.table_properties.filter_size = 1296;
    listener_->OnTableFileCreated(created);
  }
  void Deleted() {
    ::rocksdb::TableFileDeletionInfo deleted;
    deleted.db_name = GetName();
    deleted.file_path = GetName() + kName;
    listener_->OnTableFileDeleted(deleted);
  }

  void GetLiveFilesMetaData(std::vector<::rocksdb::LiveFileMetaData>* metadata) override {
    if (!live && create_in_listing) {
      create_in_listing = false;
      Created();
    }
    StackableDB::GetLiveFilesMetaData(metadata);
    if (live) {
      ::rocksdb::LiveFileMetaData file;
      file.column_family_name = cf_;
      file.level = 6;
      file.db_path = GetName();
      file.name = kName;
      file.smallestkey = "zz-created-first";
      file.largestkey = "zz-created-last";
      metadata->push_back(file);
    }
  }

 private:
  LevelAwareListener* listener_;
  std::string cf_;
};

// RocksDB reports a flush's or compaction's table created before it
// installs it, so a sync can list the live files between the two, created
// before the listing or during it. The listener keeps the table's filter
// size until the table is deleted, so the next sync, which finds it live,
// records it (dropping it would leave the column family unsynced from then
// on). Once deleted, it is forgotten: a listing that still showed it would
// leave the column family as it was.
TEST(RocksdbLevelAwareListener, TableCreatedBeforeItIsLiveIsKept) {
  for (const bool during_listing : {true, false}) {
    SCOPED_TRACE(during_listing ? "created during the listing" : "created before the listing");
    TempDir dir;
    const auto policy = NewLinebloomFilterPolicy(LevelAware(10));
    const auto listener = NewLevelAwareListener();
    ::rocksdb::Options options = MakeOptions(policy, testing::FilterMode());
    options.listeners.push_back(listener);
    std::vector<::rocksdb::ColumnFamilyHandle*> handles;
    std::unique_ptr<::rocksdb::DB> db;
    const ::rocksdb::Status opened = OpenWithOtherFamily(options, dir.path(), &handles, &db);
    ASSERT_TRUE(opened.ok()) << opened.ToString();
    ::rocksdb::WriteOptions wo;
    wo.disableWAL = true;
    for (int i = 0; i < 2000; ++i) {
      const std::string key = testing::Key(i);
      ASSERT_TRUE(db->Put(wo, handles[1], key, testing::ValueFor(key)).ok());
    }
    ASSERT_TRUE(db->Flush(::rocksdb::FlushOptions(), handles[1]).ok());
    ::rocksdb::CompactRangeOptions to_bottom;
    to_bottom.bottommost_level_compaction = ::rocksdb::BottommostLevelCompaction::kForce;
    ASSERT_TRUE(db->CompactRange(to_bottom, handles[1], nullptr, nullptr).ok());
    WaitForCompactions(*db, handles[1]);
    const size_t compacted_files = LiveFilesOf(*db, handles[1]).size();
    ASSERT_GE(compacted_files, 1u);

    ListsATableLate wrapped(db.release(), listener.get(), "other");
    if (during_listing) {
      wrapped.create_in_listing = true;
    } else {
      wrapped.Created();
    }
    ::rocksdb::CompactionJobInfo compacted;
    compacted.cf_name = "other";
    compacted.status = ::rocksdb::Status::OK();
    listener->OnCompactionCompleted(&wrapped, compacted);  // the table is not live in this listing
    wrapped.live = true;
    listener->OnCompactionCompleted(&wrapped, compacted);  // and is in this one
    const auto late =
        std::make_tuple(6, std::string("zz-created-first"), std::string("zz-created-last"), uint64_t{1000});
    FileList recorded = RecordedFilesOf(*policy, "other");
    EXPECT_NE(std::find(recorded.begin(), recorded.end(), late), recorded.end());
    EXPECT_EQ(recorded.size(), compacted_files + 1);

    wrapped.Deleted();
    wrapped.live = true;  // a listing that still showed it: its size is unknown now
    policy->SyncLiveFiles("other", {});
    listener->OnCompactionCompleted(&wrapped, compacted);
    EXPECT_TRUE(RecordedFilesOf(*policy, "other").empty());
    for (::rocksdb::ColumnFamilyHandle* handle : handles) ASSERT_TRUE(wrapped.DestroyColumnFamilyHandle(handle).ok());
  }
}

// Syncing a column family the policy has built no filter for records
// nothing: the default's policy does not take over another policy's files.
TEST(RocksdbLevelAwareListener, ColumnFamilyOfAnotherPolicyIsNotRecorded) {
  const auto policy = NewLinebloomFilterPolicy(LevelAware(10));
  const std::vector<LiveSstFile> files{LiveSstFile{6, "a", "m", 1000, 1296}, LiveSstFile{6, "n", "z", 1000, 1296}};
  policy->SyncLiveFiles("never_built", files);
  EXPECT_TRUE(policy->RecordedLiveFiles("never_built").empty());
}

TEST(RocksdbLevelAwareListener, NamedInDbOptions) {
  RegisterLinebloomWithDefaultLibrary();
  ::rocksdb::ConfigOptions config;
  ::rocksdb::DBOptions options;
  const ::rocksdb::Status s = ::rocksdb::GetDBOptionsFromString(config, ::rocksdb::DBOptions(),
                                                                "listeners={id=linebloom_level_aware}", &options);
  ASSERT_TRUE(s.ok()) << s.ToString();
  ASSERT_EQ(options.listeners.size(), 1u);
  EXPECT_STREQ(options.listeners[0]->Name(), LevelAwareListener::kClassName());
}

}  // namespace
}  // namespace linebloom::rocksdb_plugin
