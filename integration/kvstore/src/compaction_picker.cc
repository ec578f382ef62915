// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.

#include "compaction_picker.h"

#include <algorithm>

namespace linebloom::kvstore::internal {

std::optional<CompactionPick> PickTieredCompaction(std::span<const uint32_t> levels, size_t fanout, int max_level) {
  size_t begin = 0;
  while (begin < levels.size()) {
    size_t end = begin;
    while (end < levels.size() && levels[end] == levels[begin]) ++end;
    if (end - begin >= fanout) {
      const int level = static_cast<int>(levels[begin]);
      return CompactionPick{begin, end, std::min(level + 1, max_level), end == levels.size()};
    }
    begin = end;
  }
  return std::nullopt;
}

CompactionPick PickFullCompaction(std::span<const uint32_t> levels) {
  const uint32_t top = levels.empty() ? 0 : *std::max_element(levels.begin(), levels.end());
  return CompactionPick{0, levels.size(), static_cast<int>(top), true};
}

}  // namespace linebloom::kvstore::internal
