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
// D - s + 2 runs to minimise the expected false positives per absent-key
// lookup, sum_j w_j FPR_j (Monkey, weighted by lookup probability); the file
// gets its run's bits.
//
// Lookup weights: w_j is the probability that an absent-key lookup consults
// run j's filter. Leveled RocksDB consults level l only if the key falls in
// one of its files' key ranges, and in a growing tree the upper levels cover
// only part of the key space, so the unweighted optimum over-spends on them.
// FilterBuildingContext says nothing about key ranges, so the policy learns
// them from the filters it builds: each builder is wrapped to record the
// bytewise smallest and largest key and the key count of every filter it
// finishes. Positions in the key space are the 8 bytes after the common
// prefix of the smallest and largest key ever seen, read as a big-endian
// number and scaled to [0, 1]; a filter's width is the share of the key
// space between its smallest and largest key. The policy never learns which
// files are deleted, so it does not add widths up; it keeps the last
// kRecentFilters filters per level and their density
//     rho_l = sum keys / sum widths   (keys per whole key space)
// and uses the model's level sizes n_l = T^(l-D) n_D: level l covers
//     c_l = n_l / rho_l = T^(l-D) rho_D / rho_l      (c_D = 1),
// i.e. the deepest level is taken to cover every key and the others are as
// sparse, relative to it, as their recent files. L0's weight is the mean
// width of recent L0 files (a flush of random writes spans nearly
// everything; of sequential writes, little). A level with fewer than
// kMinObservations recent filters, or a tree whose deepest level has none,
// gets weight 1 (the unweighted allocation). Weights are clamped to
// [kMinWeight, 1] and rounded to 1/64 so the cached allocations stay few.
// The floor of 1/2: the estimate is biased low (while compaction lags behind
// writes the tree is far off the model, and RocksDB sizes the base level at
// least max_bytes_for_level_base, which the policy cannot see), and the
// costs are lopsided. FPR is convex in the bits, so a weight set too low
// starves a level that lookups do reach, costing far more than a weight
// set too high wastes; at 1/2 a level reached by every lookup loses little,
// while a sparse level still gives up some bits.
//
// Trivial moves. Leveled compaction moves a file down a level without
// rewriting it when it overlaps nothing there; no filter is built, so the
// policy never sees it, and the file keeps the bits of the level it was
// written for. So the allocation is move-safe: levels s..D-1 all get the
// same bits, and a file moved down to any level above D costs nothing
// extra. That is a constraint of the optimisation (MoveSafeAllocation: the
// shared levels are allocated as one run holding their keys together,
// consulted with the sum of their lookup weights), not a cap applied to the
// unconstrained optimum, which would leave the shared bits at what D-1 alone
// gets. (Moves into the last level D keep D-1's bits; they are rare, as the
// last level covers the whole key space.)
//
// Memory. The allocation keeps the model's budget, but the live tree mixes
// files built under earlier estimates, its levels are not exactly the
// model's sizes, and each filter is rounded up to whole 64-byte blocks, so
// the live filter bytes could drift from the budget. The policy therefore
// keeps books: for each filter it builds it records the actual bytes and the
// budget for its keys, exactly bits_per_key per key plus the 16-byte trailer
// (no rounding to whole blocks), per level over the last kBudgetWindow
// filters; with the model's level sizes it estimates the live ratio
// r = actual / budget and allocates the next file with an average of
// bits_per_key / r (clamped to [0.8, 1.1] * bits_per_key, in 1/64 bits):
// over-spending lowers the next files' bits, under-spending raises them. The
// correction is proportional only: an integral term would wind up while the
// window lags a fill's transient. The books see only the filters the policy
// builds, so they settle near, not exactly at, the budget.
// This assumes keys spread over their range roughly evenly in that 8-byte
// window (true for hashed or random keys; skewed key sets get a noisier
// estimate, which changes how the budget is split but never the budget).
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
// Uniform bits (the configured bits_per_key) are used where the model does
// not apply: level -1 (SstFileWriter, ingestion, repair), universal and FIFO
// compaction (a sorted run there has no level of fixed relative size), and
// L0 files before any non-L0 level has been seen.

#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <rocksdb/filter_policy.h>

#include "bits_builder.h"
#include "linebloom/filter_options.h"
#include "linebloom/foundation/mutex.h"
#include "linebloom/level_allocator.h"
#include "linebloom/rocksdb/filter_bits.h"

namespace linebloom::rocksdb_plugin {

class LevelAwareBits : public std::enable_shared_from_this<LevelAwareBits> {
 public:
  // Recent filters kept per level for the density estimate, the fewest that
  // give a level a measured weight, and the smallest weight used.
  static constexpr size_t kRecentFilters = 64;
  static constexpr size_t kMinObservations = 4;
  static constexpr double kMinWeight = 1.0 / 2;
  static constexpr size_t kBudgetWindow = 1024;

  // average_bits_per_key: the memory budget; num_probes: 0 = the
  // allocator's (best) probe count for each level's bits, else fixed.
  LevelAwareBits(double average_bits_per_key, int num_probes, double size_ratio);

  // The filter options for a new SST described by `context`, or nullopt when
  // its level is allocated no filter. Records the level in the shape
  // estimate first. Thread-safe.
  std::optional<FilterOptions> ForNewFile(const ::rocksdb::FilterBuildingContext& context);

  // `builder`, wrapped so that every filter it finishes is recorded (via
  // ObserveFilter) for the lookup-weight estimate of the context's column
  // family and level. Files at level -1 or outside leveled compaction are
  // not observed (the builder is returned as is).
  std::unique_ptr<::rocksdb::FilterBitsBuilder> Observed(const ::rocksdb::FilterBuildingContext& context,
                                                         std::unique_ptr<LinebloomBitsBuilder> builder);

  // Records one finished filter: `keys` keys, bytewise smallest..largest,
  // `filter_bytes` long, in a file created at `level` (>= 0) of
  // `column_family`. Thread-safe.
  void ObserveFilter(const std::string& column_family, int level, std::string_view smallest, std::string_view largest,
                     uint64_t keys, uint64_t filter_bytes);

  // The average bits per key the next file of `column_family` is allocated
  // with: bits_per_key corrected by the estimated live ratio (see above).
  double BudgetAverage(const std::string& column_family);

  // The lookup weights the next file of `column_family` would be allocated
  // with, one per model run (L0 first), as ForNewFile uses them; empty
  // before any non-L0 level has been seen.
  std::vector<double> LookupWeights(const std::string& column_family);

  // MoveSafeAllocation over `num_runs` model runs (L0 first) with weights 1,
  // cached. The reference stays
  // valid for the object's lifetime.
  const LevelAllocation& AllocationFor(int num_runs);

  // The allocation over model runs (L0, levels s..D) that minimises
  // sum_j weights[j] * FPR_j within `average` bits per key, subject to the
  // move-safe constraint: levels s..D-1 (runs 1..size-2) all get the same
  // bits per key. With fewer than 4 runs there is no constraint. Missing
  // weights count as 1; the sums in the result use the given weights.
  static LevelAllocation MoveSafeAllocation(std::span<const uint64_t> entries, std::span<const double> weights,
                                            double average);

  // The model's relative entries per run for a tree whose non-L0 levels are
  // shallowest..deepest: L0 first, then levels shallowest..deepest.
  static std::vector<uint64_t> ModelEntries(double size_ratio, int num_non_l0_levels);

 private:
  struct Filter {  // one observed filter
    std::string smallest, largest;
    uint64_t keys = 0;
  };
  struct Spend {                                   // filters built at one level: actual vs. budgeted bytes
    std::deque<std::pair<double, double>> recent;  // newest last
    double actual = 0, budget = 0;                 // sums over `recent`
  };
  struct ColumnFamily {
    int shallowest = -1;  // -1: no non-L0 level seen yet
    int deepest = -1;
    bool any_filter = false;                   // smallest/largest are set
    std::string smallest, largest;             // of every filter observed
    std::map<int, std::deque<Filter>> recent;  // by level, newest last
    std::map<int, Spend> spend;                // by level
    std::vector<int> last_logged;              // allocation key last logged
  };

  FilterOptions Uniform() const;
  // The key is the runs' quantized weights and, last, the quantized average.
  const LevelAllocation& AllocationForLocked(const std::vector<int>& key) LINEBLOOM_REQUIRES(mutex_);
  double BudgetAverageLocked(const ColumnFamily& cf) const LINEBLOOM_REQUIRES(mutex_);
  double LiveRatioLocked(const ColumnFamily& cf) const LINEBLOOM_REQUIRES(mutex_);
  std::vector<double> WeightsLocked(const ColumnFamily& cf) const LINEBLOOM_REQUIRES(mutex_);
  std::vector<int> QuantizedWeightsLocked(const ColumnFamily& cf) const LINEBLOOM_REQUIRES(mutex_);

  const double average_bits_per_key_;
  const int num_probes_;
  const double size_ratio_;

  mutable Mutex mutex_;
  std::map<std::string, ColumnFamily> column_families_ LINEBLOOM_GUARDED_BY(mutex_);  // by name
  // By the model runs' quantized weights (64ths; all 64 = unweighted) and,
  // as the last element, the average in 64ths of a bit.
  std::map<std::vector<int>, LevelAllocation> allocations_ LINEBLOOM_GUARDED_BY(mutex_);
};

}  // namespace linebloom::rocksdb_plugin
