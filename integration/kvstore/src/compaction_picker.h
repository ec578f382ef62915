// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// Size-tiered compaction (docs/KVSTORE.md, "Compaction"). Runs are kept
// newest first with non-decreasing levels; a flush adds a level-0 run at the
// front. When a level holds `fanout` runs, all of them (adjacent in the list)
// are merged into one run at the next level, which takes their place. Each
// key is rewritten about once per level, and a lookup meets at most
// fanout - 1 runs per level. Internal header.

#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

namespace linebloom::kvstore::internal {

struct CompactionPick {
  size_t begin = 0;  // runs [begin, end) of the newest-first list
  size_t end = 0;
  int output_level = 0;
  // Tombstones may go only when no older run could hold a value they hide.
  bool drop_tombstones = false;
};

// The tiering rule over the runs' levels (newest first); nullopt when no
// level is full. Levels are capped at max_level: a full last level merges
// into itself.
std::optional<CompactionPick> PickTieredCompaction(std::span<const uint32_t> levels, size_t fanout, int max_level);

// Every run into one, at the highest level present.
CompactionPick PickFullCompaction(std::span<const uint32_t> levels);

}  // namespace linebloom::kvstore::internal
