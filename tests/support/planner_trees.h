// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// Trees fed to a LevelPlanner the way the RocksDB adapter feeds it, shared
// by the planner's own tests and the adapter's: keys are 8-byte big-endian
// numbers, so a key's position in the key space is the number itself.

#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "linebloom/level_allocator.h"
#include "linebloom/planner/level_planner.h"

namespace linebloom::testing {

inline std::string KeyAt(uint64_t x) {
  std::string key(8, '\0');
  for (int i = 7; i >= 0; --i, x >>= 8) key[static_cast<size_t>(i)] = static_cast<char>(x & 0xff);
  return key;
}

// A new file of the default tree at `level` under leveled compaction.
inline planner::LevelPlanner::NewFile FileAt(int level, std::string tree = "default") {
  planner::LevelPlanner::NewFile file;
  file.tree = std::move(tree);
  file.level = level;
  file.num_levels = 7;
  return file;
}

// The model runs L0, L3..L6 at ratio 10 (L0 as large as L3).
inline std::vector<uint64_t> ModelL3ToL6() {
  std::vector<uint64_t> model = LeveledEntries(uint64_t{1} << 60, 10, 4);
  model.insert(model.begin(), model.front());
  return model;
}

inline constexpr uint64_t kShapeSpace = uint64_t{1} << 32;

// Levels L3..L6 whose recent files, 1000 keys each, span 1/2, 3/5, 3/40 and
// 1/100 of the key space (L0 files span all of it). Densities (keys per key
// space): 2000, 1667, 13 333, 100 000. With the model's sizes
// n_l = 10^(l-6) n_6 and L6 covering everything (n_6 = 100 000), the levels
// cover
//   L5: 0.1 * 100000 / 13333 = 0.75,  L4: 0.01 * 100000 / 1667 = 0.6,
//   L3: 0.001 * 100000 / 2000 = 0.05 -> the floor, 1/2,
// so the weights are (L0, L3, L4, L5, L6) = (1, 0.5, 0.6, 0.75, 1), in 64ths
// (64, 32, 38, 48, 64). Every filter but L6's is exactly as large as a
// uniform one at 10 bits per key; L6's are bytes_over_uniform times that.
inline void ObserveShape(planner::LevelPlanner& planner, double bytes_over_uniform) {
  const uint64_t uniform_bytes = 1000 * 10 / 8 + 16;  // the budget: 10 bits/key + trailer
  auto observe = [&](int level, uint64_t first, uint64_t last) {
    const uint64_t bytes =
        level == 6 ? static_cast<uint64_t>(std::llround(uniform_bytes * bytes_over_uniform)) : uniform_bytes;
    planner.ObserveFilter("default", level, KeyAt(first), KeyAt(last), 1000, bytes);
  };
  for (uint64_t i = 0; i < 100; ++i) observe(6, i * kShapeSpace / 100, (i + 1) * kShapeSpace / 100 - 1);
  for (uint64_t i = 0; i < 8; ++i) {
    observe(0, 0, kShapeSpace - 1);
    observe(3, i * kShapeSpace / 16, i * kShapeSpace / 16 + kShapeSpace / 2 - 1);
    observe(4, i * kShapeSpace / 32, i * kShapeSpace / 32 + kShapeSpace / 5 * 3 - 1);
    observe(5, i * kShapeSpace / 32, i * kShapeSpace / 32 + kShapeSpace / 40 * 3 - 1);
  }
}

inline constexpr uint64_t kToySpace = uint64_t{1} << 40;

// A tracked toy tree: L6 in 400 files and L5 in 40 cover the key space,
// L4's 4 files a quarter of it; 1280 keys per file.
inline void BuildToyTree(planner::LevelPlanner& planner) {
  for (int level : {4, 5, 6}) planner.PlanNewFile(FileAt(level));
  for (uint64_t i = 0; i < 400; ++i) {
    planner.ObserveFilter("default", 6, KeyAt(i * kToySpace / 400), KeyAt((i + 1) * kToySpace / 400 - 1), 1280, 1616);
  }
  for (uint64_t i = 0; i < 40; ++i) {  // all of L5
    planner.ObserveFilter("default", 5, KeyAt(i * kToySpace / 40), KeyAt((i + 1) * kToySpace / 40 - 1), 1280, 1616);
  }
  for (uint64_t i = 0; i < 4; ++i) {  // L4: a quarter of the key space
    planner.ObserveFilter("default", 4, KeyAt(i * kToySpace / 16), KeyAt((i + 1) * kToySpace / 16 - 1), 1280, 1616);
  }
  // Rewriting a file replaces its record (same range), it does not add one.
  planner.ObserveFilter("default", 4, KeyAt(0), KeyAt(kToySpace / 16 - 1), 1280, 1616);
}

// A planner of the policy's defaults (10 bits per key, best probes, ratio
// 10: PlannerOptions' own) with `cache`.
inline planner::PlannerOptions DefaultPlannerOptions(planner::CacheOptions cache = {}) {
  planner::PlannerOptions options;
  options.cache = std::move(cache);
  return options;
}

}  // namespace linebloom::testing
