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
// The tracked tree (stable mode). Everything above is a model for a policy
// that has seen little of the tree. The filters it builds also tell it the
// live files, nearly exactly: within a level >= 1 live files never overlap,
// so a new filter at level l whose key range overlaps a recorded one at l
// replaces it (that file was an input of the compaction writing the new
// one). The policy so keeps, per level, the key range, keys and filter bytes
// of every file it built that no later file of the level overlapped. A file
// compacted down without a replacement at its level stays recorded (the
// policy sees no deletions): the record then over-states the level's
// coverage and keys. That is not the safe side: an upper level gets more
// bits per key than the last, so booked at stale keys it takes the last
// level's bytes (when writes stop and upper levels drain, down to a few bits
// per key there). So each upper level's records count at most its model
// share of the last level's keys, T^(l-D) (RocksDB's target for level l
// with dynamic level bytes), in the allocation and in the books alike. The
// cap is the shape compaction returns the tree to, and it also plans a live
// tree's transients for that shape: while writes outrun compaction the
// upper levels hold more than their share (exactly, per the listener), and a
// plan for that shape would give the last level's files, the longest-lived,
// the bits of a tree that is about to drain into them. While an upper level
// is over its share, its excess keys take more than the built-in's bytes;
// once compaction catches up, the tree is within them.
// Upper levels are rewritten about size_ratio times as often as the last,
// so once the recorded files of the deepest level cover kStableCoverage of
// the key space, the policy has seen the whole tree's recent history (and
// with at least kStableMinFiles recorded there, a tree of some size), it
// switches to the tracked tree:
//   entries n_l = recorded keys at l (the last level: recorded keys / its
//     recorded coverage, as it spans the key space),
//   lookup weights c_l = the recorded coverage of l (sum of the widths of
//     its non-overlapping files; c_D = 1; L0 as above), floored at
//     kStableMinWeight instead of kMinWeight: the coverage is measured, not
//     modelled;
//   real bytes: the budget is what RocksDB's built-in Bloom filter
//     (format_version 5) takes for the same files, block rounding included:
//     5 + 64 ceil(ceil(n * millibits / 8000) / 64) bytes for n keys (the
//     metadata is 5 bytes, linebloom's trailer 16). For a candidate average
//     A, the allocation's real bytes are sum_f (16 + 64 ceil(n_f b_l(f) /
//     512)) over the recorded files f. The allocation is made at the
//     nominal average A = (built-in bytes - F (16 + 32)) * 8 / N (F files, N
//     keys: linebloom's trailer and half a block of rounding per file on
//     average), which sets the upper levels' bits; the last level then gets
//     the largest bits per key (continuous, by bisection) at which the real
//     bytes of all recorded files stay at or below the built-in's: no bits
//     left on the allocator's 1/8-bit grid, no rounding unaccounted.
// Trivial moves in the tracked tree. The tracked tree keeps the move-safe
// constraint: levels s..D-1 share their bits. Built live, most of an upper
// level can arrive by trivial moves from the level above (most of L5 on the
// 2 M-key fills of bench/rocksdb/level_aware_live.sh), and with bits of its
// own per level each such file would carry the smaller level's higher bits
// down, over the plan's bytes. Sharing gives up the bits a small upper
// level reached by many lookups is worth, so it is kept only for files that
// can move.
// Files that cannot move. RocksDB moves a file down unrewritten only when
// it overlaps no file of the next level, and the policy knows the file's
// key range once its keys are in, before the filter is sized. So at Finish
// (BitsAtFinish) a file of an upper level whose range overlaps a recorded
// file of the level below is pinned: it gets its level's own bits, from the
// plan without the shared constraint, computed with the file itself
// recorded. That matters most for the small upper levels, whose own bits
// are far above the shared ones when lookups reach them often (a base
// level whose few files span the key space: the shared bits gave such
// files 14 bits per key where the tree's bound gives 27). The plan books
// each recorded upper-level file that overlaps the level below at its
// level's own bits, the others at the shared bits, so the last level's
// share of the bytes counts what the upper levels really take. (A pinned
// file still moves if the files below it are compacted away first without
// a replacement; a small level's files are few.)
//
// Whole blocks per file. Each filter takes whole 64-byte blocks, and with a
// fixed target file size the files of a level hold nearly the same number of
// keys, so the last level's real bytes move in steps of one block per file
// (0.4 bits per key for 1280-key files): a bits per key that just fits the
// budget can leave most of a block per file unspent. So the last level's
// files are dithered: each gets the budget's bytes for its predicted keys
// (the mean of the level's recent filters) plus the carry, the budgeted
// minus the real bytes of the last level's files built so far (clamped to
// +-kMaxCarryBlocks blocks), rounded to whole blocks; some files get one
// block more than others and the level's bytes track the budget.
// The plan is recomputed every kReplanEvery observed filters.
//
// Cache-aware weights. A false positive costs a device read only when the
// data block it fetches is not in the block cache; small upper levels have
// their blocks cached, so their false positives are nearly free. Per run j
// (stable mode, where the absolute sizes are known): B_j data blocks
// (n_j * data_bytes_per_key / block_size), lookup weight c_j and rate f_j.
// An absent-key lookup reaches a block of j with probability c_j f_j, each
// of its B_j blocks equally likely, so each block of j is requested at
// lambda_j = c_j f_j / B_j per lookup. Che's approximation for an LRU cache
// of C blocks: a block stays cached for a characteristic time T (in
// lookups), the same for every block, and is a hit if it was requested
// within the last T lookups: with Poisson requests the hit probability is
//     h_j = 1 - exp(-lambda_j T),
// and T is fixed by the cache being full: sum_j B_j h_j = C (the left side
// rises from 0 to sum_j B_j in T, so T is found by bisection; if all blocks
// fit, every h_j = 1). A false positive at j then costs m_j = 1 - h_j =
// exp(-lambda_j T) device reads, and the objective becomes
//     sum_j c_j m_j f_j,
// i.e. the allocator's weights become c_j m_j. m_j depends on the
// allocation (f_j sets lambda_j), so the two are iterated to a fixed point:
// allocate with weights c_j m_j, recompute f_j, T and m_j, repeat
// (kCheIterations times, m_j averaged geometrically with the previous
// iterate to damp oscillation: fewer bits at j raise lambda_j, which raises
// h_j, which lowers the weight again). The iteration can settle in two
// fixed points -- a level given many bits is read rarely, its blocks are
// cold and its weight stays high; given few, it is read often, stays cached
// and its false positives are nearly free -- so it is run from two starts
// (m = 1, and the misses of a tree without filters) and the one with fewer
// expected device reads, sum_j c_j f_j m_j, is kept. m_j is floored at
// kMinMissProbability (a floor of 1/32 kept the allocator from ever
// reaching the cached fixed point); data_bytes_per_key (the policy sees no values)
// defaults to the mean key length + 40. level_weights configures the
// weights instead (multiplied into c_j).
//
// Uniform bits (the configured bits_per_key) are used where the model does
// not apply: level -1 (SstFileWriter, ingestion, repair), universal and FIFO
// compaction (a sorted run there has no level of fixed relative size), and
// L0 files before any non-L0 level has been seen.

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
  // Stable mode (see above).
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
  // `column_family`, when it is pinned (see "Files that cannot move"):
  // stable mode, an upper level, and a recorded file of the level below
  // overlaps it. nullopt otherwise (the file keeps the bits it was created
  // with). Thread-safe.
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
  const LevelAllocation& AllocationForLocked(const std::vector<int>& key) LINEBLOOM_REQUIRES(mutex_);
  double BudgetAverageLocked(const ColumnFamily& cf) const LINEBLOOM_REQUIRES(mutex_);
  double LiveRatioLocked(const ColumnFamily& cf) const LINEBLOOM_REQUIRES(mutex_);
  std::vector<double> WeightsLocked(const ColumnFamily& cf) const LINEBLOOM_REQUIRES(mutex_);
  std::vector<int> QuantizedWeightsLocked(const ColumnFamily& cf) const LINEBLOOM_REQUIRES(mutex_);

  bool StableLocked(const ColumnFamily& cf) const LINEBLOOM_REQUIRES(mutex_);
  // move_safe: levels s..D-1 share their bits (MoveSafeAllocation); else
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
