// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.

#include "level_aware_bits.h"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace linebloom::rocksdb_plugin {

namespace {

// The model's entries are relative; a large unit keeps the smallest level of
// a deep tree with a big ratio well above zero entries after rounding
// (2^60 / 100^8 is still 1e2).
constexpr uint64_t kModelEntries = uint64_t{1} << 60;

}  // namespace

LevelAwareBits::LevelAwareBits(double average_bits_per_key, int num_probes, double size_ratio)
    : average_bits_per_key_(average_bits_per_key),
      num_probes_(num_probes),
      size_ratio_(size_ratio) {}

std::vector<uint64_t> LevelAwareBits::ModelEntries(double size_ratio, int num_non_l0_levels) {
  std::vector<uint64_t> levels =
      LeveledEntries(kModelEntries, size_ratio, std::max(num_non_l0_levels, 1));
  for (auto& n : levels) n = std::max<uint64_t>(n, 1);
  std::vector<uint64_t> runs;
  runs.reserve(levels.size() + 1);
  runs.push_back(levels.front());  // L0: as large as the shallowest level
  runs.insert(runs.end(), levels.begin(), levels.end());
  return runs;
}

FilterOptions LevelAwareBits::Uniform() const {
  FilterOptions options;
  options.bits_per_key = average_bits_per_key_;
  options.num_probes = num_probes_;
  return options;
}

const LevelAllocation& LevelAwareBits::AllocationForLocked(int num_runs) {
  auto it = allocations_.find(num_runs);
  if (it == allocations_.end()) {
    const std::vector<uint64_t> entries = ModelEntries(size_ratio_, num_runs - 1);
    it = allocations_.emplace(num_runs, AllocateBitsPerRun(entries, average_bits_per_key_)).first;
  }
  return it->second;
}

const LevelAllocation& LevelAwareBits::AllocationFor(int num_runs) {
  std::lock_guard<std::mutex> lock(mutex_);
  return AllocationForLocked(std::max(num_runs, 2));
}

std::optional<FilterOptions> LevelAwareBits::ForNewFile(
    const ::rocksdb::FilterBuildingContext& context) {
  const int level = context.level_at_creation;
  if (context.compaction_style != ::rocksdb::kCompactionStyleLevel || level < 0 ||
      (context.num_levels > 0 && level >= context.num_levels)) {
    return Uniform();
  }
  std::lock_guard<std::mutex> lock(mutex_);
  Shape& shape = shapes_[context.column_family_name];
  if (level > 0) {
    shape.shallowest = shape.shallowest < 0 ? level : std::min(shape.shallowest, level);
    shape.deepest = std::max(shape.deepest, level);
  }
  if (shape.shallowest < 0) return Uniform();  // only L0 so far: no shape yet

  // Run 0 is L0, run 1 + (l - s) is level l.
  const int num_runs = shape.deepest - shape.shallowest + 2;
  const LevelAllocation& allocation = AllocationForLocked(num_runs);
  const size_t run = level == 0 ? 0 : static_cast<size_t>(1 + level - shape.shallowest);
  const double bits = allocation.bits_per_key[run];
  if (bits <= 0) return std::nullopt;
  FilterOptions options;
  options.bits_per_key = bits;
  options.num_probes = num_probes_ != 0 ? num_probes_ : allocation.num_probes[run];
  return options;
}

}  // namespace linebloom::rocksdb_plugin
