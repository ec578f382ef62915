// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// The in-memory table of recent writes: an ordered map from key to its
// newest state. One writer at a time (the store serialises writers) and any
// number of readers, under a reader-writer lock. Internal header.

#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "entry.h"
#include "linebloom/foundation/mutex.h"

namespace linebloom::kvstore::internal {

struct MemEntry {
  EntryKind kind = EntryKind::kValue;
  std::string value;
};

class MemTable {
 public:
  void Apply(EntryKind kind, std::string_view key, std::string_view value);

  // The key's newest state, if the memtable has one.
  std::optional<MemEntry> Get(std::string_view key) const;

  // A copy of the entries with from <= key < to (no `to`: to the end).
  std::vector<std::pair<std::string, MemEntry>> Range(std::string_view from, std::optional<std::string_view> to) const;

  size_t ApproximateBytes() const;
  size_t Count() const;
  bool Empty() const { return Count() == 0; }

 private:
  // Per-entry cost beyond key and value bytes: map node and two strings,
  // roughly, so the flush threshold tracks real memory.
  static constexpr size_t kEntryOverhead = 96;

  mutable SharedMutex mu_;
  std::map<std::string, MemEntry, std::less<>> entries_ LINEBLOOM_GUARDED_BY(mu_);
  size_t bytes_ LINEBLOOM_GUARDED_BY(mu_) = 0;
};

}  // namespace linebloom::kvstore::internal
