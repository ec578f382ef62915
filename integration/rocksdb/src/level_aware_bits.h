// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// LevelAwareBits: the level-aware state of one LinebloomFilterPolicy
// (level_aware=true). Under leveled compaction it decides each new SST's
// filter options (bits per key, probes) from the level the file is created
// at and what the policy has learned of the column family's tree from the
// filters it builds (and from the listener, SyncLiveFiles): the populated
// levels s..D, each level's share of absent-key lookups, and, once the
// deepest level is well covered, the live files themselves (the tracked
// tree). It returns nullopt for a level allocated no filter, and the uniform
// bits_per_key where the model does not apply (level -1, universal and FIFO
// compaction, L0 before any other level is seen).
//
// Formula: over runs j (L0 as one run, then levels s..D) it minimises
//   sum_j w_j FPR_j(b_j)  subject to  sum_j n_j b_j = A N,
// w_j the share of lookups reaching run j (times its block-cache miss
// probability when cache-aware), with levels s..D-1 sharing one b_j so that
// trivially moved files stay within budget (a file that cannot move gets its
// level's own bits at Finish, BitsAtFinish); in the tracked tree A is set so
// the filters take no more real bytes than RocksDB's built-in Bloom filter.
//
// Thread-safety: every member function may be called concurrently (one
// mutex per object, one for the process-wide registry). Observed needs the
// object owned by a shared_ptr: the wrapped builders keep it alive.
//
// Design, derivations and measurements: docs/LEVEL_AWARE.md.

#pragma once

#include <algorithm>
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
#include "linebloom/rocksdb/linebloom_filter_policy.h"

namespace linebloom::rocksdb_plugin {

class LevelAwareBits : public std::enable_shared_from_this<LevelAwareBits> {
 public:
  // Recent filters kept per level for the density estimate, the fewest that
  // give a level a measured weight, and the smallest weight used.
  static constexpr size_t kRecentFilters = 64;
  static constexpr size_t kMinObservations = 4;
  static constexpr double kMinWeight = 1.0 / 2;
  static constexpr size_t kBudgetWindow = 1024;
  // The tracked tree (docs/LEVEL_AWARE.md, "The tracked tree").
  static constexpr double kStableCoverage = 0.9;
  static constexpr size_t kStableMinFiles = 128;  // recorded at the deepest level
  static constexpr double kStableMinWeight = 1.0 / 32;
  // The model L0 run is the shallowest level's records, at most this many
  // times that level's share of the last level's keys, T^(s-D).
  static constexpr double kBaseLevelSlack = 3;
  static constexpr uint64_t kReplanEvery = 64;
  static constexpr int kBudgetBisections = 40;
  static constexpr int kCheIterations = 8;
  static constexpr double kMaxCarryBlocks = 4;
  // Upper-level rewrites that may end after the last level's last file:
  // compactions run side by side (max_background_jobs, 2 by default).
  static constexpr double kLateUpperRewrites = 2;
  static constexpr double kMinMissProbability = 1.0 / 1024;

  struct CacheOptions {
    bool enabled = true;
    double block_cache_bytes = 0;       // 0: the table options' cache capacity
    double data_bytes_per_key = 0;      // 0: mean key bytes + 40
    std::vector<double> level_weights;  // configured, L0 first; empty: none
  };

  // average_bits_per_key: the memory budget; num_probes: 0 = the
  // allocator's (best) probe count for each level's bits, else fixed.
  LevelAwareBits(double average_bits_per_key, int num_probes, double size_ratio, CacheOptions cache);
  LevelAwareBits(double average_bits_per_key, int num_probes, double size_ratio)
      : LevelAwareBits(average_bits_per_key, num_probes, size_ratio, CacheOptions()) {}

  // "w0:w1:..." (each in [0, 1]) as numbers; empty string: an empty list;
  // nullopt if malformed.
  static std::optional<std::vector<double>> ParseLevelWeights(const std::string& text);

  // RocksDB's built-in Bloom filter's bytes (format_version 5) for `keys` keys
  // at `bits_per_key`: 5 + 64 ceil(ceil(keys * millibits / 8000) / 64).
  static uint64_t BuiltinFilterBytes(uint64_t keys, double bits_per_key);

  // Che's approximation: the probability that a request for a block of run
  // j misses an LRU cache of `capacity_blocks` blocks, for runs of
  // blocks[j] blocks each requested at rates[j] per lookup in total (spread
  // evenly over the run's blocks). 1 everywhere when capacity is 0.
  static std::vector<double> CheMissProbabilities(std::span<const double> blocks, std::span<const double> rates,
                                                  double capacity_blocks);

  // The stable-mode plan of a column family (tests): per run (L0 first,
  // then shallowest..deepest) bits per key, weights used and entries.
  struct Plan {
    int shallowest = -1;
    std::vector<double> bits_per_key, weights, entries, miss;
    // Per run, the bits of an upper-level file that cannot move (its
    // level's own, BitsAtFinish), at which such recorded files are booked.
    std::vector<double> own_bits_per_key;
    double average = 0;        // the nominal average A solved for
    double real_bytes = 0;     // predicted for the recorded files
    double builtin_bytes = 0;  // the built-in's for the same files
    // The last level's share of the built-in's bytes per key (what is left
    // after the other levels' real bytes), for the per-file block dither.
    double last_bytes_per_key = 0;
  };
  std::optional<Plan> StablePlan(const std::string& column_family);

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

  // The bits per key for a filter of `keys` keys, bytewise
  // smallest..largest, about to be finished in a file created at `level` of
  // `column_family`, when it is pinned: the tracked tree, an upper level,
  // and a recorded file of the level below overlaps it (docs/LEVEL_AWARE.md,
  // "Files that cannot move"). nullopt otherwise (the file keeps the bits it
  // was created with). Thread-safe.
  std::optional<double> BitsAtFinish(const std::string& column_family, int level, std::string_view smallest,
                                     std::string_view largest, uint64_t keys);

  // Replaces the recorded live files of `column_family` at levels >= 1 by
  // `files`, the DB's own list (LinebloomFilterPolicy::SyncLiveFiles); the
  // next file gets a fresh plan. Files without filter entries are skipped.
  // Thread-safe.
  void SyncLiveFiles(const std::string& column_family, std::span<const LiveSstFile> files);
  // The recorded live files of `column_family` at levels >= 1 (tests).
  std::vector<LiveSstFile> RecordedLiveFiles(const std::string& column_family);
  // Whether this state allocated or observed a filter of `column_family`.
  bool BuildsFor(const std::string& column_family);
  // Whether a file recorded live in `column_family` starts at the smallest
  // key of one of `files`, at any level (a file moved down keeps its keys).
  // The smallest key alone: a file's first filter partition, and with it
  // the first recorded range, starts there too.
  bool RecordsAnyOf(const std::string& column_family, std::span<const LiveSstFile> files);

  // The policies' states alive in the process, for a listener that has no
  // handle of a column family, and so cannot read its policy from its
  // options (level_aware_listener.cc). Register adds `state` (weakly: it
  // stays registered while it lives). OwnerOf returns the registered state
  // that records one of `files` live in `column_family`, when exactly one
  // does; null when none does, or several (column families of the same name
  // in two DBs of the process holding equal files) -- no guess is made.
  static void Register(const std::shared_ptr<LevelAwareBits>& state);
  static std::shared_ptr<LevelAwareBits> OwnerOf(const std::string& column_family, std::span<const LiveSstFile> files);
  // Whether a registered state builds for `column_family` (BuildsFor): if
  // none does, a listener need not list the live files.
  static bool AnyBuildsFor(const std::string& column_family);

  // The average bits per key the next file of `column_family` is allocated
  // with: bits_per_key corrected by the estimated live ratio
  // (docs/LEVEL_AWARE.md, "The memory books").
  double BudgetAverage(const std::string& column_family);

  // The lookup weights the next file of `column_family` would be allocated
  // with, one per model run (L0 first), as ForNewFile uses them; empty
  // before any non-L0 level has been seen.
  std::vector<double> LookupWeights(const std::string& column_family);

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
  struct Live {  // a recorded live file (stable mode)
    std::string largest;
    uint64_t keys = 0, bytes = 0;
  };
  struct ColumnFamily {
    int shallowest = -1;  // -1: no non-L0 level seen yet
    int deepest = -1;
    bool any_filter = false;                                       // smallest/largest are set
    std::string smallest, largest;                                 // of every filter observed
    std::map<int, std::deque<Filter>> recent;                      // by level, newest last
    std::map<int, Spend> spend;                                    // by level
    std::vector<int> last_logged;                                  // allocation key last logged
    std::map<int, std::map<std::string, Live, std::less<>>> live;  // by level >= 1, by smallest key
    double key_bytes = 0, key_samples = 0;                         // for the mean key length
    uint64_t observations = 0;
    std::optional<Plan> plan;  // stable mode's, when computed
    double carry_bytes = 0;    // last level: budgeted minus real bytes so far (dither)
    uint64_t plan_at = 0;      // observations when computed
    double cache_bytes = 0, block_size = 4096, cached_filter_bytes = 0;  // from the last context

    // A file of keys smallest..largest: the key space grows to hold it.
    void WidenKeySpace(std::string_view file_smallest, std::string_view file_largest);
    // Records a file built at `level` >= 1: recorded files of that level it
    // overlaps leave (live files of a level never overlap, so they were the
    // inputs of the compaction that wrote it).
    void RecordLive(int level, std::string_view file_smallest, std::string_view file_largest, uint64_t keys,
                    uint64_t bytes);
    // Whether a file file_smallest..file_largest at `level` is pinned: an
    // upper level's (shallowest..deepest-1) that overlaps a recorded file
    // of the level below, so RocksDB cannot move it down unrewritten.
    bool Pinned(int level, std::string_view file_smallest, std::string_view file_largest) const;
    // A file at non-L0 `level`: the shape estimate's levels grow to hold it.
    void SeeLevel(int level) {
      shallowest = shallowest < 0 ? level : std::min(shallowest, level);
      deepest = std::max(deepest, level);
    }
  };

  FilterOptions Uniform() const;
  // The key is the runs' quantized weights and, last, the quantized average.
  // Cached; the reference is valid until the next call.
  const LevelAllocation& AllocationForLocked(const std::vector<int>& key) LINEBLOOM_REQUIRES(mutex_);
  double BudgetAverageLocked(const ColumnFamily& cf) const LINEBLOOM_REQUIRES(mutex_);
  double LiveRatioLocked(const ColumnFamily& cf) const LINEBLOOM_REQUIRES(mutex_);
  std::vector<double> WeightsLocked(const ColumnFamily& cf) const LINEBLOOM_REQUIRES(mutex_);
  std::vector<int> QuantizedWeightsLocked(const ColumnFamily& cf) const LINEBLOOM_REQUIRES(mutex_);

  bool StableLocked(const ColumnFamily& cf) const LINEBLOOM_REQUIRES(mutex_);
  // move_safe: levels s..D-1 share their bits (AllocateBitsSharedMiddle); else
  // each run gets its own (AllocateBitsPerRun).
  std::optional<Plan> ComputePlanLocked(const ColumnFamily& cf, bool move_safe = true) const LINEBLOOM_REQUIRES(mutex_);
  double CoverageLocked(const ColumnFamily& cf, int level) const LINEBLOOM_REQUIRES(mutex_);

  const double average_bits_per_key_;
  const int num_probes_;
  const double size_ratio_;
  const CacheOptions cache_;

  mutable Mutex mutex_;
  std::map<std::string, ColumnFamily> column_families_ LINEBLOOM_GUARDED_BY(mutex_);  // by name
  // By the model runs' quantized weights (64ths; all 64 = unweighted) and,
  // as the last element, the average in 64ths of a bit.
  std::map<std::vector<int>, LevelAllocation> allocations_ LINEBLOOM_GUARDED_BY(mutex_);
};

}  // namespace linebloom::rocksdb_plugin
