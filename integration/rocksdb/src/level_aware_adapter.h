// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// The level-aware policy's side of RocksDB: it turns RocksDB's
// FilterBuildingContext into the planner's description of a new file, logs
// the planner's changed allocations to the DB's info log, and wraps each
// builder so that the filters it finishes reach the planner (and a pinned
// file is sized at Finish). Every decision is the planner's
// (linebloom/planner/level_planner.h).

#pragma once

#include <memory>
#include <optional>

#include <rocksdb/filter_policy.h>

#include "bits_builder.h"
#include "compact_bits_builder.h"
#include "linebloom/filter_options.h"
#include "linebloom/planner/level_planner.h"
#include "linebloom/rocksdb/filter_bits.h"

namespace linebloom::rocksdb_plugin {

// The filter the planner gives the new SST described by `context` (nullopt:
// none), its changed allocation written to context.info_log.
std::optional<FilterOptions> PlanFromContext(planner::LevelPlanner& planner,
                                             const ::rocksdb::FilterBuildingContext& context);

// `builder`, wrapped so that every filter it finishes is reported to
// `planner` for the context's column family and level. Files at level -1 or
// outside leveled compaction are not observed (the builder is returned as
// is).
std::unique_ptr<::rocksdb::FilterBitsBuilder> ObserveFilters(std::shared_ptr<planner::LevelPlanner> planner,
                                                             const ::rocksdb::FilterBuildingContext& context,
                                                             std::unique_ptr<LinebloomBitsBuilder> builder);
// The same for a compact filter's builder: the planner's bits, clamped to
// the compact range.
std::unique_ptr<::rocksdb::FilterBitsBuilder> ObserveFilters(std::shared_ptr<planner::LevelPlanner> planner,
                                                             const ::rocksdb::FilterBuildingContext& context,
                                                             std::unique_ptr<CompactBitsBuilder> builder);

}  // namespace linebloom::rocksdb_plugin
