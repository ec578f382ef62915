// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.

#include "linebloom/planner/tracked_tree.h"

#include <algorithm>
#include <cmath>
#include <iterator>

#include "key_space.h"
#include "linebloom/filter_format.h"
#include "linebloom/planner/tracked_plan.h"

namespace linebloom::planner {
namespace {

// A file's fraction of `space` in units of 2^-kCoverageBits: Coverage's
// terms. A level's live files do not overlap, so their terms sum to about
// 2^kCoverageBits at most, far from 2^64.
uint64_t CoverageUnits(const KeySpace& space, std::string_view file_smallest, std::string_view file_largest) {
  return static_cast<uint64_t>(
      std::llround(std::ldexp(space.Fraction(file_smallest, file_largest), TrackedTree::kCoverageBits)));
}

// The first live file of `files` (by smallest key) that may overlap a range
// starting at `smallest`: the one before it, if that one reaches it.
template <typename Files>
auto FirstOverlapCandidate(Files& files, std::string_view smallest) {
  auto it = files.upper_bound(smallest);
  if (it != files.begin()) {
    auto prev = std::prev(it);
    if (std::string_view(prev->second.largest) >= smallest) it = prev;
  }
  return it;
}

// RecordLive, handing the replaced files' nodes to `replaced` if given
// (else they are freed).
void RecordLiveKeeping(TrackedTree& tree, int level, std::string_view file_smallest, std::string_view file_largest,
                       uint64_t keys, uint64_t bytes, std::vector<TrackedTree::LiveLevel::node_type>* replaced) {
  TrackedTree::LiveLevel& files = tree.live[level];
  uint64_t& level_keys = tree.live_keys[level];
  // The level's built-in bytes, if kept, alike.
  auto builtin = tree.builtin_bytes_memo.find(level);
  // The level's coverage sum, if kept, takes the replaced files' terms out
  // and the new one's in.
  auto units = tree.coverage_units.find(level);
  const KeySpace space(tree.smallest, tree.largest);
  if (units != tree.coverage_units.end() && !space.HasWidth()) {
    tree.coverage_units.erase(units);
    units = tree.coverage_units.end();
  }
  // A file outside a trial usually replaces one (a compaction's output
  // for its input): that one's node, strings and all, is reused.
  TrackedTree::LiveLevel::node_type reused;
  auto it = FirstOverlapCandidate(files, file_smallest);
  while (it != files.end() && std::string_view(it->first) <= file_largest) {
    if (units != tree.coverage_units.end()) units->second -= CoverageUnits(space, it->first, it->second.largest);
    if (builtin != tree.builtin_bytes_memo.end()) {
      builtin->second.second -= BuiltinFilterBytes(it->second.keys, builtin->second.first);
    }
    level_keys -= it->second.keys;
    tree.live_bytes -= it->second.bytes;
    if (replaced != nullptr) {
      replaced->push_back(files.extract(it++));
    } else if (reused.empty()) {
      reused = files.extract(it++);
    } else {
      it = files.erase(it);
    }
  }
  // Every file left before `it` ends below file_smallest, and `it` starts
  // above file_largest: the new file goes right before it.
  if (reused.empty()) {
    files.emplace_hint(it, std::string(file_smallest), TrackedTree::Live{std::string(file_largest), keys, bytes});
  } else {
    reused.key().assign(file_smallest);
    reused.mapped().largest.assign(file_largest);
    reused.mapped().keys = keys;
    reused.mapped().bytes = bytes;
    files.insert(it, std::move(reused));
  }
  level_keys += keys;
  tree.live_bytes += bytes;
  if (units != tree.coverage_units.end()) units->second += CoverageUnits(space, file_smallest, file_largest);
  if (builtin != tree.builtin_bytes_memo.end()) {
    builtin->second.second += BuiltinFilterBytes(keys, builtin->second.first);
  }
}

}  // namespace

void TrackedTree::SeeLevel(int level) {
  shallowest = shallowest < 0 ? level : std::min(shallowest, level);
  deepest = std::max(deepest, level);
}

void TrackedTree::WidenKeySpace(std::string_view file_smallest, std::string_view file_largest) {
  if (!any_filter) {
    any_filter = true;
    smallest.assign(file_smallest);
    largest.assign(file_largest);
    coverage_units.clear();
    return;
  }
  const bool lower = file_smallest<std::string_view(smallest), higher = file_largest> std::string_view(largest);
  if (lower) smallest.assign(file_smallest);
  if (higher) largest.assign(file_largest);
  if (lower || higher) coverage_units.clear();  // every fraction changes with the space
}

void TrackedTree::RecordFilter(int level, std::string_view file_smallest, std::string_view file_largest, uint64_t keys,
                               uint64_t filter_bytes, double budget_bits_per_key) {
  WidenKeySpace(file_smallest, file_largest);
  ++observations;
  key_bytes += static_cast<double>(file_smallest.size() + file_largest.size());
  key_samples += 2;
  if (level > 0) RecordLive(level, file_smallest, file_largest, keys, filter_bytes);
  std::deque<Filter>& filters = recent[level];
  uint64_t& filters_keys = recent_keys[level];
  filters_keys += keys;
  if (filters.size() < kRecentFilters) {
    filters.push_back(Filter{std::string(file_smallest), std::string(file_largest), keys});
  } else {
    // The oldest leaves; its strings hold the newest.
    Filter oldest = std::move(filters.front());
    filters.pop_front();
    filters_keys -= oldest.keys;
    oldest.smallest.assign(file_smallest);
    oldest.largest.assign(file_largest);
    oldest.keys = keys;
    filters.push_back(std::move(oldest));
  }

  Spend& s = spend[level];
  const double actual = static_cast<double>(filter_bytes);
  // The budget: exactly the bits per key plus the 16-byte trailer. Rounding
  // up to whole 64-byte blocks is overhead the books make up for elsewhere
  // (a uniform filter pays it on top).
  const double budget = static_cast<double>(keys) * budget_bits_per_key / 8 + kFilterTrailerBytes;
  s.recent.emplace_back(actual, budget);
  s.actual += actual;
  s.budget += budget;
  if (s.recent.size() > kBudgetWindow) {
    s.actual -= s.recent.front().first;
    s.budget -= s.recent.front().second;
    s.recent.pop_front();
  }
}

void TrackedTree::RecordLive(int level, std::string_view file_smallest, std::string_view file_largest, uint64_t keys,
                             uint64_t bytes) {
  RecordLiveKeeping(*this, level, file_smallest, file_largest, keys, bytes, nullptr);
}

TrackedTree::Trial TrackedTree::BeginTrial(int level, std::string_view file_smallest, std::string_view file_largest,
                                           uint64_t keys, uint64_t bytes) {
  Trial trial;
  trial.level = level;
  trial.new_level = !live.contains(level);
  trial.any_filter = any_filter;
  trial.smallest = smallest;
  trial.largest = largest;
  trial.added.assign(file_smallest);
  trial.live_keys = LiveKeys(level);
  trial.live_bytes = live_bytes;
  trial.coverage_units = coverage_units;
  if (auto memo = builtin_bytes_memo.find(level); memo != builtin_bytes_memo.end()) trial.builtin_bytes = memo->second;
  WidenKeySpace(file_smallest, file_largest);
  RecordLiveKeeping(*this, level, file_smallest, file_largest, keys, bytes, &trial.replaced);
  return trial;
}

void TrackedTree::EndTrial(Trial trial) {
  if (trial.new_level) {
    live.erase(trial.level);
    live_keys.erase(trial.level);
  } else {
    LiveLevel& files = live[trial.level];
    files.erase(trial.added);
    for (LiveLevel::node_type& node : trial.replaced) files.insert(std::move(node));
    live_keys[trial.level] = trial.live_keys;
  }
  live_bytes = trial.live_bytes;
  any_filter = trial.any_filter;
  smallest = std::move(trial.smallest);
  largest = std::move(trial.largest);
  coverage_units = std::move(trial.coverage_units);
  if (trial.builtin_bytes) {
    builtin_bytes_memo[trial.level] = *trial.builtin_bytes;
  } else {
    builtin_bytes_memo.erase(trial.level);
  }
}

void TrackedTree::ReplaceLive(std::span<const TrackedFile> files) {
  live.clear();
  live_keys.clear();
  live_bytes = 0;
  coverage_units.clear();
  builtin_bytes_memo.clear();
  for (const TrackedFile& file : files) {
    if (file.level < 1 || file.filter_entries == 0 || file.largest < file.smallest) continue;
    WidenKeySpace(file.smallest, file.largest);
    LiveLevel& level = live[file.level];
    uint64_t& level_keys = live_keys[file.level];
    auto [it, inserted] = level.try_emplace(file.smallest, Live{file.largest, file.filter_entries, file.filter_bytes});
    if (!inserted) {
      level_keys -= it->second.keys;
      live_bytes -= it->second.bytes;
      it->second = Live{file.largest, file.filter_entries, file.filter_bytes};
    }
    level_keys += file.filter_entries;
    live_bytes += file.filter_bytes;
    // A file moved down unrewritten may populate a level no filter was built at.
    SeeLevel(file.level);
  }
}

bool TrackedTree::Pinned(int level, std::string_view file_smallest, std::string_view file_largest) const {
  if (level < shallowest || level >= deepest) return false;  // L0, the last level
  auto found = live.find(level + 1);
  if (found == live.end()) return false;
  auto it = FirstOverlapCandidate(found->second, file_smallest);
  return it != found->second.end() && std::string_view(it->first) <= file_largest;
}

uint64_t TrackedTree::LiveKeys(int level) const {
  auto it = live_keys.find(level);
  return it == live_keys.end() ? 0 : it->second;
}

uint64_t TrackedTree::LiveBuiltinBytes(int level, double bits_per_key) const {
  auto files = live.find(level);
  if (files == live.end()) return 0;
  auto memo = builtin_bytes_memo.find(level);
  if (memo != builtin_bytes_memo.end() && memo->second.first == bits_per_key) return memo->second.second;
  uint64_t sum = 0;
  for (const auto& [file_smallest, file] : files->second) sum += BuiltinFilterBytes(file.keys, bits_per_key);
  builtin_bytes_memo[level] = {bits_per_key, sum};
  return sum;
}

double TrackedTree::Coverage(int level) const {
  auto it = live.find(level);
  if (it == live.end() || it->second.empty()) return 0;
  const KeySpace space(smallest, largest);
  if (!space.HasWidth()) return 1;
  auto [units, absent] = coverage_units.try_emplace(level, 0);
  if (absent) {
    for (const auto& [file_smallest, file] : it->second)
      units->second += CoverageUnits(space, file_smallest, file.largest);
  }
  return std::min(std::ldexp(static_cast<double>(units->second), -kCoverageBits), 1.0);
}

std::vector<TrackedFile> TrackedTree::LiveFiles() const {
  std::vector<TrackedFile> files;
  for (const auto& [level, recorded] : live) {
    for (const auto& [file_smallest, file] : recorded) {
      files.push_back(TrackedFile{level, file_smallest, file.largest, file.keys, file.bytes});
    }
  }
  return files;
}

bool TrackedTree::RecordsAnyOf(std::span<const TrackedFile> files) const {
  for (const auto& [level, recorded] : live) {
    for (const TrackedFile& file : files) {
      if (recorded.contains(file.smallest)) return true;
    }
  }
  return false;
}

}  // namespace linebloom::planner
