// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// Level-aware bits per key for RocksDB's leveled compaction: which bits per
// key (and probes) the filter of a new SST gets, from the level it is
// created at and what the policy has seen of the tree's shape.
//
// The model. A leveled LSM tree whose shallowest non-L0 level is s and
// deepest D holds T^(l-s) units of entries at level l (T = size_ratio: RocksDB
// sizes each level max_bytes_for_level_multiplier times the one above it;
// exactly so from the bottom up with level_compaction_dynamic_level_bytes).
// L0 is modelled as one more run of the same size as level s: RocksDB's
// defaults trigger an L0->base compaction when L0 holds about as much as the
// base level (4 write buffers of 64 MB vs. max_bytes_for_level_base 256 MB).
// linebloom::AllocateBitsPerRun spreads the average budget over these
// D - s + 2 runs to minimise the sum of false-positive rates (Monkey); the
// file gets its run's bits.
//
// Why estimate s and D instead of using num_levels. FilterBuildingContext
// gives the configured num_levels (7 by default), not the populated depth: a
// DB with data in L0..L3 would otherwise have its last level treated as a
// middle level of 7 and get far more bits than the budget allows. Instead the
// policy remembers, per column family name, the shallowest and deepest
// non-L0 levels any file was created at since the policy was made. Both
// settle after a few compactions: with dynamic level bytes the first
// compaction already writes to the last level, and the base level moves up
// as the DB grows; with static level sizes D grows with the tree. Files
// written before the estimate settles (right after DB::Open, or while the
// tree deepens) keep the bits they were given until compaction rewrites
// them -- fewer than optimal for upper levels, never more than the budget
// for a level that turns out to be the last.
//
// FilterBuildingContext::is_bottommost is not used: under leveled compaction
// it says only that no older data overlaps the file's key range below it,
// which holds at upper levels too while the tree is sparse; the deepest level
// seen is the better estimate of the last level. num_levels only bounds the
// level.
//
// Files moved between levels without a rewrite (trivial moves, which
// leveled compaction uses whenever an input file overlaps nothing below)
// keep the filter of the level they were written at; in a tree that has
// settled that is mostly a file moving down one level, so it keeps slightly
// more bits than its new level gets until a later compaction rewrites it.
//
// Uniform bits (the configured bits_per_key) are used where the model does
// not apply: level -1 (SstFileWriter, ingestion, repair), universal and FIFO
// compaction (a sorted run there has no level of fixed relative size), and
// L0 files before any non-L0 level has been seen.

#pragma once

#include <map>
#include <mutex>
#include <optional>
#include <string>

#include <rocksdb/filter_policy.h>

#include "linebloom/filter_options.h"
#include "linebloom/level_allocator.h"

namespace linebloom::rocksdb_plugin {

class LevelAwareBits {
 public:
  // average_bits_per_key: the memory budget; num_probes: 0 = the
  // allocator's (best) probe count for each level's bits, else fixed.
  LevelAwareBits(double average_bits_per_key, int num_probes, double size_ratio);

  // The filter options for a new SST described by `context`, or nullopt when
  // its level is allocated no filter. Records the level in the shape
  // estimate first. Thread-safe.
  std::optional<FilterOptions> ForNewFile(const ::rocksdb::FilterBuildingContext& context);

  // The allocation over `num_runs` model runs (L0 first), cached. The
  // reference stays valid for the object's lifetime.
  const LevelAllocation& AllocationFor(int num_runs);

  // The model's relative entries per run for a tree whose non-L0 levels are
  // shallowest..deepest: L0 first, then levels shallowest..deepest.
  static std::vector<uint64_t> ModelEntries(double size_ratio, int num_non_l0_levels);

 private:
  struct Shape {
    int shallowest = -1;  // -1: no non-L0 level seen yet
    int deepest = -1;
  };

  FilterOptions Uniform() const;
  const LevelAllocation& AllocationForLocked(int num_runs);  // mutex_ held

  const double average_bits_per_key_;
  const int num_probes_;
  const double size_ratio_;

  std::mutex mutex_;
  std::map<std::string, Shape> shapes_;          // by column family name
  std::map<int, LevelAllocation> allocations_;   // by number of model runs
};

}  // namespace linebloom::rocksdb_plugin
