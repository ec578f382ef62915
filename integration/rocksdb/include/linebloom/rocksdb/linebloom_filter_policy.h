// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// linebloom as a RocksDB filter: a rocksdb::FilterPolicy whose filter blocks
// (full, or one per partition) are linebloom filters (docs/FORMAT.md): Bloom,
// or from a chosen level down compact (linebloom/compact_filter.h).
//
//   BlockBasedTableOptions t;
//   t.filter_policy = linebloom::rocksdb_plugin::NewLinebloomFilterPolicy(10);
//
// or, after RegisterLinebloom (registration.h), from a string:
//   "linebloom:10"  or  "id=linebloom;bits_per_key=10;verify_checksum=true"
//   "linebloom:10:6"  (= "id=linebloom;bits_per_key=10;compact_from_level=6")
//
// Options (registered with RocksDB, so they are written to and read back from
// OPTIONS files):
//   bits_per_key     double in [1, 100], default 10 (fractional allowed)
//   num_probes       int in [0, 24], 0 = best k for the bits each filter has
//                    after rounding up to whole blocks (default; ProbesFor)
//   verify_checksum  bool, default true: check the filter's own XXH3 checksum
//                    when RocksDB loads a filter block (see below)
//   align_blocks     bool, default true: filters of 1 MiB or more start with
//                    the lead bytes that put their blocks on cache lines in
//                    the memory RocksDB reads them into (format versions 2
//                    and 4, docs/FORMAT.md); false writes versions 1 and 3
//                    only, which older linebloom releases can read too
//   level_aware      bool, default false: under leveled compaction, give each
//                    SST's filter the bits per key of its level from the
//                    level planner (linebloom/planner/level_planner.h) for
//                    an average of bits_per_key over the tree; see
//                    docs/LEVEL_AWARE.md for the model. A level allocated
//                    0 bits gets no filter block at all
//   size_ratio       double in [1.5, 100], default 10: the model's ratio of
//                    adjacent level sizes; set it to the column family's
//                    max_bytes_for_level_multiplier (FilterBuildingContext
//                    does not carry it)
//   cache_aware      bool, default false: with level_aware, weight each level
//                    by the probability that a false positive there misses
//                    the block cache (Che's approximation for LRU), with the
//                    table options' block cache capacity
//   block_cache_bytes double, default 0: the cache the cache-aware weights
//                    assume; > 0 turns cache_aware on with this capacity
//   data_bytes_per_key double, default 0 (= mean key bytes + 40): data bytes
//                    per entry, for the number of data blocks per level
//   level_weights    string: per-level weights, L0 first, ':'-separated
//   compact_from_level int >= -1, default INT_MAX (never): SSTs created at
//                    this level or deeper get the compact filter, the
//                    others Bloom; levels as RocksDB's Ribbon policy counts
//                    them for bloom_before_level (NewFileFilterKind)
//   compact_bottommost bool, default false: compact also for is_bottommost
//   compact_extra_planes int in [1, 4], default 4; compact_mixed bool, default
//   true; hash_scheme int, 3 (default) or 1: older readers read extra planes
//   1 (versions 3, 4), unmixed (3 to 6), hash scheme 1 (docs/FORMAT.md)
// (Compact bits per key: CompactBitsPerKey, or the level's with level_aware;
// any policy reads every kind, version and scheme: docs/ROCKSDB.md.)
//
// A filter block that does not parse (corrupt, truncated, a future format
// version, another policy's bytes) gets a reader that answers "may match"
// for every key -- never a false negative -- and the reason is reported once
// per kind of problem: to the info log set with SetInfoLog, or else to
// stderr (GetFilterBitsReader is handed the bytes, not the DB's logger).

#pragma once

#include <climits>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include <rocksdb/convenience.h>
#include <rocksdb/env.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/options.h>

#include "linebloom/compact_filter.h"
#include "linebloom/filter_options.h"
#include "linebloom/planner/tracked_tree.h"

namespace linebloom::planner {
class LevelPlanner;
}  // namespace linebloom::planner

namespace linebloom::rocksdb_plugin {

struct LinebloomPolicyOptions {
  static const char* kName() { return "LinebloomPolicyOptions"; }

  double bits_per_key = 10.0;
  int num_probes = 0;
  // RocksDB already checksums every block it reads (unless a ReadOptions
  // turns verify_checksums off), so this second check costs one XXH3 pass
  // over the filter per load and guards against the remaining cases:
  // blocks read without verification and bytes damaged in memory.
  bool verify_checksum = true;
  // Lead bytes for large filters (see the file comment).
  bool align_blocks = true;
  // Level-aware bits per key (see the file comment).
  bool level_aware = false;
  double size_ratio = 10.0;
  // Level-aware, cache-aware weighting (docs/LEVEL_AWARE.md): weight each
  // level by the probability that a false positive there misses the block
  // cache. block_cache_bytes > 0 turns it on with that capacity.
  // data_bytes_per_key 0: estimated from the keys (mean key bytes + 40).
  bool cache_aware = false;
  double block_cache_bytes = 0;
  double data_bytes_per_key = 0;
  // Configured cost weights per level, L0 first, ':'-separated (e.g.
  // "0.1:1:1:1:1:1:1"); empty: computed. A configured list replaces the
  // cache-aware weights.
  std::string level_weights;
  // The compact filter from this level down (NewFileFilterKind);
  // kNeverCompact: the Bloom filter everywhere. A compact filter costs
  // about 25 % less memory than Bloom at the same false-positive rate and
  // takes longer to build. The options choose only what new files get:
  // readers tell the kinds apart by their bytes (linebloom releases without
  // the compact filter read its blocks as malformed: "may match").
  static constexpr int kNeverCompact = INT_MAX;
  int compact_from_level = kNeverCompact;
  bool compact_bottommost = false;
  // The most planes a compact filter's line gets above its fingerprint
  // bits (CompactFilterBuilder::SetExtraPlanes): 4 writes format versions 5
  // and 6; 1 versions 3 and 4, which older releases read too, at a higher
  // false-positive rate between the compact filter's efficient settings.
  int compact_extra_planes = kCompactExtraPlanes;
  // Whether a compact filter's first layer may mix lines of r - 1 and r
  // planes (CompactFilterBuilder::SetMixed): true writes format versions 7
  // and 8 where that gives a lower false-positive rate for the bits; false
  // versions 3 to 6, which older releases read too.
  bool compact_mixed = true;
  // How Bloom filters hash their keys (KeyHashScheme, linebloom/key_hash.h):
  // 3 hashes keys of 9 to 16 bytes by one multiply, for shorter queries;
  // 1 writes XXH3 for every key, which releases before scheme 3 read too.
  // Readers read both.
  int hash_scheme = static_cast<int>(KeyHashScheme::kShortKeyMultiply);
};

// A live SST as the DB lists it, for LinebloomFilterPolicy::SyncLiveFiles:
// its level, smallest and largest user key, and its filter's entries and
// bytes (table properties num_filter_entries and filter_size).
using LiveSstFile = planner::TrackedFile;

class LinebloomFilterPolicy : public ::rocksdb::FilterPolicy {
 public:
  // The id under which the policy is registered, and its Name() and
  // CompatibilityName(): SSTs name their filter block "fullfilter.linebloom"
  // (or "partitionedfilter.linebloom") and their filter_policy property
  // "linebloom".
  static const char* kClassName() { return "linebloom"; }

  explicit LinebloomFilterPolicy(const LinebloomPolicyOptions& options = {});
  ~LinebloomFilterPolicy() override;
  LinebloomFilterPolicy(const LinebloomFilterPolicy&) = delete;
  LinebloomFilterPolicy& operator=(const LinebloomFilterPolicy&) = delete;

  const char* Name() const override { return kClassName(); }
  const char* CompatibilityName() const override { return kClassName(); }

  ::rocksdb::FilterBitsBuilder* GetBuilderWithContext(const ::rocksdb::FilterBuildingContext& context) const override;
  ::rocksdb::FilterBitsReader* GetFilterBitsReader(const ::rocksdb::Slice& contents) const override;

  // The filter a new SST described by `context` gets: bits_per_key and
  // num_probes, or with level_aware the bits (and best probes) of its level;
  // nullopt means no filter (GetBuilderWithContext returns nullptr). With
  // level_aware this also records the level in the policy's estimate of the
  // tree's shape, so call it only for files that are really being built.
  // A file of the compact kind (NewFileFilterKind) without level_aware gets
  // CompactBitsPerKey().
  std::optional<FilterOptions> PlanNewFileFilter(const ::rocksdb::FilterBuildingContext& context) const;
  // The kind of filter a new SST described by `context` gets: kCompact if
  // compact_bottommost and context.is_bottommost, else kCompact if its level
  // is at least compact_from_level, counted as RocksDB's Ribbon policy
  // counts levels for bloom_before_level: a flush is level -1 (so 0 means
  // every file but flushed ones, -1 every file), a file of unknown level
  // (SstFileWriter) and every file under FIFO or no compaction is at the
  // bottom (INT_MAX - 1); else kBloom.
  FilterKind NewFileFilterKind(const ::rocksdb::FilterBuildingContext& context) const;
  // The bits per key of compact filters without level_aware: the least
  // (to 0.01) whose modeled false-positive rate (CompactFpr) is at most the
  // Bloom filter's at bits_per_key and num_probes (BlockedFpr), within the
  // compact range [5.5, 30]. Computed once. With level_aware a compact file
  // gets its level's bits, clamped to that range.
  double CompactBitsPerKey() const;
  // The former name of PlanNewFileFilter.
  [[deprecated("use PlanNewFileFilter")]] std::optional<FilterOptions> FilterOptionsForNewFile(
      const ::rocksdb::FilterBuildingContext& context) const {
    return PlanNewFileFilter(context);
  }

  // level_aware: replaces the policy's record of `column_family`'s live
  // files at levels >= 1 by `files`, the DB's own list. The policy otherwise
  // learns the live files only from the filters it builds, so a file that
  // compaction deleted without writing an overlapping one at its level stays
  // recorded, and a file moved down unrewritten is not seen at its new
  // level. NewLevelAwareListener (level_aware_listener.h) makes the same
  // update after every compaction. Does nothing without level_aware, nor for a column
  // family the policy has built no filter for. Thread-safe.
  void SyncLiveFiles(const std::string& column_family, std::span<const LiveSstFile> files) const;
  // level_aware: the files of `column_family` the policy counts as live at
  // levels >= 1 (filter entries and bytes as recorded); empty otherwise.
  std::vector<LiveSstFile> RecordedLiveFiles(const std::string& column_family) const;
  // level_aware: the planner that decides each new file's bits, shared with
  // the builders that report filters to it and with NewLevelAwareListener;
  // null otherwise.
  std::shared_ptr<planner::LevelPlanner> level_planner() const;

  // Rejects bits_per_key outside [1, 100] (or NaN), num_probes outside
  // [0, 24], size_ratio outside [1.5, 100] and compact_from_level below -1,
  // and a policy whose option
  // string had a bad value or an unknown option (see ConfigureOptions).
  // RocksDB calls it from DB::Open.
  ::rocksdb::Status ValidateOptions(const ::rocksdb::DBOptions& db_opts,
                                    const ::rocksdb::ColumnFamilyOptions& cf_opts) const override;

  const LinebloomPolicyOptions& options() const { return options_; }

  // Where malformed filter blocks are reported; pass the DB's
  // Options::info_log. Policies are shared as `const`, hence const.
  void SetInfoLog(std::shared_ptr<::rocksdb::Logger> info_log) const;

  // Filter blocks that failed to parse since the policy was created, and the
  // reason for the latest one ("" if none).
  uint64_t num_malformed_filters() const;
  std::string last_malformed_reason() const;
  // Compact filters that could not be built and were written as Bloom
  // filters instead (CompactFilterBuilder::fallback_reason; each is also
  // warned about in the DB's info log).
  uint64_t num_compact_fallbacks() const;

 protected:
  // Configures from an option map (RocksDB's option strings and OPTIONS
  // files). A value that does not parse ("bits_per_key=abc") or an unknown
  // option ("bogus=1") is an error RocksDB returns from FilterPolicy::
  // CreateFromString, but swallows where the policy is one option of the
  // table options (an OPTIONS file, GetBlockBasedTableOptionsFromString),
  // leaving a policy with default options. So the policy also writes a
  // warning naming the option to stderr (no info log is known yet) and
  // remembers it: ValidateOptions, and so DB::Open, then fail with it.
  // Unknown options under ConfigOptions::ignore_unknown_options are only
  // warned about.
  ::rocksdb::Status ConfigureOptions(const ::rocksdb::ConfigOptions& config_options,
                                     const std::unordered_map<std::string, std::string>& opts_map,
                                     std::unordered_map<std::string, std::string>* unused) override;

 private:
  struct Diagnostics;  // logger, counters, warn-once flags
  struct LazyPlanner;  // the level planner, made on first use

  void WarnOnceAboutContext(const ::rocksdb::FilterBuildingContext& context) const;
  ::rocksdb::FilterBitsReader* MalformedFilterReader(size_t size, const char* kind, ParseResult parsed) const;
  void ReportCompactFallback(::rocksdb::Logger* info_log, const std::string& reason) const;

  LinebloomPolicyOptions options_;
  std::unique_ptr<Diagnostics> diagnostics_;
  std::unique_ptr<LazyPlanner> planner_;
  struct LazyCompactBits;  // CompactBitsPerKey, computed on first use
  std::unique_ptr<LazyCompactBits> compact_bits_;
};

// A policy with `bits_per_key` and default options otherwise.
std::shared_ptr<const LinebloomFilterPolicy> NewLinebloomFilterPolicy(double bits_per_key = 10.0);
// The same with the compact filter from `compact_from_level` down (as
// RocksDB's NewRibbonFilterPolicy(bits, bloom_before_level)).
std::shared_ptr<const LinebloomFilterPolicy> NewLinebloomFilterPolicy(double bits_per_key, int compact_from_level);
std::shared_ptr<const LinebloomFilterPolicy> NewLinebloomFilterPolicy(const LinebloomPolicyOptions& options);

}  // namespace linebloom::rocksdb_plugin
