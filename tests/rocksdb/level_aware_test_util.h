// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// Helpers of the level-aware policy's tests: level-aware options, a
// FilterBuildingContext as RocksDB fills it for a leveled column family,
// and filters built through the policy.

#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include <gtest/gtest.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/table.h>

#include "linebloom/filter_options.h"
#include "linebloom/rocksdb/filter_bits.h"
#include "linebloom/rocksdb/linebloom_filter_policy.h"
#include "support/planner_trees.h"

namespace linebloom::rocksdb_plugin::testing {

inline LinebloomPolicyOptions LevelAware(double bits_per_key, double size_ratio = 10) {
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

inline std::optional<FilterOptions> Choose(const LinebloomFilterPolicy& policy, int level,
                                           const std::string& cf = "default") {
  Context c(level, cf);
  return policy.PlanNewFileFilter(c.context);
}

// Builds one filter through the policy, as RocksDB would for a file created
// at `level`: `keys` keys evenly spread over [first, last].
inline void BuildFilter(const LinebloomFilterPolicy& policy, int level, uint64_t first, uint64_t last, uint64_t keys) {
  Context c(level);
  std::unique_ptr<::rocksdb::FilterBitsBuilder> builder(policy.GetBuilderWithContext(c.context));
  ASSERT_NE(builder, nullptr);
  for (uint64_t i = 0; i < keys; ++i)
    builder->AddKey(linebloom::testing::KeyAt(first + (last - first) / (keys - 1) * i));
  std::unique_ptr<const char[]> buf;
  ::rocksdb::Status status;
  builder->Finish(&buf, &status);
  ASSERT_TRUE(status.ok());
}

}  // namespace linebloom::rocksdb_plugin::testing
