// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// TrackedTree: what the planner knows of one leveled LSM tree (a RocksDB
// column family), learned from the filters built for it and the engine's
// own lists of live files: the populated levels shallowest..deepest, the
// key space the filters span, each level's recent filters (for the density
// estimate of lookup weights) and spend (actual against budgeted bytes),
// and the live files of levels >= 1 by smallest key.
//
// Model runs: run 0 is L0 (its files overlap: one run in the model), run
// 1 + (l - shallowest) is level l. A value type; not thread-safe.

#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace linebloom::planner {

// A live SST: its level, smallest and largest user key, and its filter's
// entries and bytes.
struct TrackedFile {
  int level = 0;
  std::string smallest, largest;
  uint64_t filter_entries = 0, filter_bytes = 0;
};

struct TrackedTree {
  // Recent filters kept per level, and the fewest that give a level a
  // measured density or spend.
  static constexpr size_t kRecentFilters = 64;
  static constexpr size_t kMinObservations = 4;
  static constexpr size_t kBudgetWindow = 1024;

  struct Filter {  // one finished filter
    std::string smallest, largest;
    uint64_t keys = 0;
  };
  struct Spend {                                   // filters built at one level: actual vs. budgeted bytes
    std::deque<std::pair<double, double>> recent;  // newest last
    double actual = 0, budget = 0;                 // sums over `recent`
  };
  struct Live {  // a live file, keyed by its smallest key
    std::string largest;
    uint64_t keys = 0, bytes = 0;
  };
  using LiveLevel = std::map<std::string, Live, std::less<>>;

  int shallowest = -1;  // -1: no level >= 1 seen yet
  int deepest = -1;
  bool any_filter = false;                   // smallest/largest are set
  std::string smallest, largest;             // of every filter seen
  std::map<int, std::deque<Filter>> recent;  // by level, newest last
  // By level, the keys of `recent`'s filters: each last-level file's bits
  // use their mean, so it is kept as filters come and go, not summed.
  std::map<int, uint64_t> recent_keys;
  std::map<int, Spend> spend;     // by level
  std::map<int, LiveLevel> live;  // by level >= 1
  // The keys of each level's live files, kept with `live` (a plan sums
  // them for every file built, so it does not walk the levels' files).
  std::map<int, uint64_t> live_keys;
  // The filter bytes of every live file, kept with `live` alike (every new
  // file's cache estimate counts them).
  uint64_t live_bytes = 0;
  double key_bytes = 0, key_samples = 0;  // for the mean key length
  uint64_t observations = 0;              // filters recorded
  // Every file of the tree asks whether the deepest level covers enough of
  // the key space (IsTracked), and every plan weighs the levels by their
  // coverage: a sum over all of a level's live files, of which each file
  // built changes one term. So each level keeps the sum of its files'
  // fractions in fixed point (each rounded to units of 2^-kCoverageBits),
  // updated by each file recorded and each file it replaces: integers sum
  // exactly in any order, so the kept sum is the one a walk of the files
  // gives. A new key-space bound changes every fraction: it empties them
  // all, and Coverage walks a level again.
  static constexpr int kCoverageBits = 56;
  mutable std::map<int, uint64_t> coverage_units;
  // Each level's LiveBuiltinBytes as last computed, with the bits per key
  // it was computed at: every plan needs them. A file recorded at the level
  // updates the sum (its term in, those of the files it replaces out; whole
  // bytes, so the sum stays the one a walk gives), EndTrial puts it back,
  // ReplaceLive empties them all.
  mutable std::map<int, std::pair<double, uint64_t>> builtin_bytes_memo;

  bool HasShape() const { return shallowest >= 0; }
  size_t NumRuns() const { return static_cast<size_t>(deepest - shallowest + 2); }
  int LevelOfRun(size_t run) const { return run == 0 ? 0 : shallowest + static_cast<int>(run) - 1; }
  size_t RunOfLevel(int level) const { return level == 0 ? 0 : static_cast<size_t>(1 + level - shallowest); }

  // A file at `level` >= 1: the levels grow to hold it.
  void SeeLevel(int level);
  // A file of keys file_smallest..file_largest: the key space grows to hold it.
  void WidenKeySpace(std::string_view file_smallest, std::string_view file_largest);
  // Records a finished filter of a file created at `level` >= 0: its key
  // range, keys, bytes, and the budget it had (budget_bits_per_key per key
  // plus the trailer); a file of level >= 1 is recorded live (RecordLive).
  void RecordFilter(int level, std::string_view file_smallest, std::string_view file_largest, uint64_t keys,
                    uint64_t filter_bytes, double budget_bits_per_key);
  // Records a file built at `level` >= 1: recorded files of that level it
  // overlaps leave (live files of a level never overlap, so they were the
  // inputs of the compaction that wrote it).
  void RecordLive(int level, std::string_view file_smallest, std::string_view file_largest, uint64_t keys,
                  uint64_t bytes);

  // A file recorded for a trial plan only (LevelPlanner::BitsAtFinish): the
  // tree as it was, less what it can take back whole. The live files the
  // file replaced are kept as map nodes and reinserted, so a trial neither
  // copies the tree nor allocates per live file.
  struct Trial {
    int level = 0;
    bool new_level = false;  // the level had no live entry before
    bool any_filter = false;
    std::string smallest, largest, added;
    std::vector<LiveLevel::node_type> replaced;
    uint64_t live_keys = 0;   // of the level before
    uint64_t live_bytes = 0;  // of the tree before
    std::map<int, uint64_t> coverage_units;
    std::optional<std::pair<double, uint64_t>> builtin_bytes;  // the level's memo before
  };
  // Records the file as WidenKeySpace and then RecordLive would.
  Trial BeginTrial(int level, std::string_view file_smallest, std::string_view file_largest, uint64_t keys,
                   uint64_t bytes);
  // Puts the tree back as it was before BeginTrial returned `trial`.
  void EndTrial(Trial trial);
  // Replaces the live files by `files` (levels >= 1 with filter entries).
  void ReplaceLive(std::span<const TrackedFile> files);

  // Whether a file file_smallest..file_largest at `level` is pinned: an
  // upper level's (shallowest..deepest-1) that overlaps a live file of the
  // level below, so the engine cannot move it down unrewritten.
  bool Pinned(int level, std::string_view file_smallest, std::string_view file_largest) const;
  // The keys of the live files of `level` (live_keys).
  uint64_t LiveKeys(int level) const;
  // RocksDB's built-in Bloom filter's bytes for the live files of `level`
  // at `bits_per_key` (BuiltinFilterBytes of each file, summed).
  uint64_t LiveBuiltinBytes(int level, double bits_per_key) const;
  // The fraction of the key space the live files of `level` span, at most 1.
  double Coverage(int level) const;
  // Coverage(level) >= threshold.
  bool CoverageAtLeast(int level, double threshold) const { return Coverage(level) >= threshold; }
  // Mean length of the keys seen, `fallback` before any.
  double MeanKeyBytes(double fallback) const { return key_samples > 0 ? key_bytes / key_samples : fallback; }
  // The live files, by level then smallest key.
  std::vector<TrackedFile> LiveFiles() const;
  // Whether a live file starts at the smallest key of one of `files`, at any
  // level (a file moved down keeps its keys).
  bool RecordsAnyOf(std::span<const TrackedFile> files) const;
};

}  // namespace linebloom::planner
