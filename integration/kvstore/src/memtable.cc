// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.

#include "memtable.h"

namespace linebloom::kvstore::internal {

void MemTable::Apply(EntryKind kind, std::string_view key, std::string_view value) {
  WriterMutexLock lock(&mu_);
  auto it = entries_.find(key);
  if (it == entries_.end()) {
    it = entries_.emplace(std::string(key), MemEntry{}).first;
    bytes_ += key.size() + kEntryOverhead;
  } else {
    bytes_ -= it->second.value.size();
  }
  it->second.kind = kind;
  it->second.value.assign(kind == EntryKind::kValue ? value : std::string_view());
  bytes_ += it->second.value.size();
}

std::optional<MemEntry> MemTable::Get(std::string_view key) const {
  ReaderMutexLock lock(&mu_);
  const auto it = entries_.find(key);
  if (it == entries_.end()) return std::nullopt;
  return it->second;
}

std::vector<std::pair<std::string, MemEntry>> MemTable::Range(std::string_view from,
                                                              std::optional<std::string_view> to) const {
  ReaderMutexLock lock(&mu_);
  std::vector<std::pair<std::string, MemEntry>> out;
  for (auto it = entries_.lower_bound(from); it != entries_.end(); ++it) {
    if (to && !(std::string_view(it->first) < *to)) break;
    out.emplace_back(it->first, it->second);
  }
  return out;
}

size_t MemTable::ApproximateBytes() const {
  ReaderMutexLock lock(&mu_);
  return bytes_;
}

size_t MemTable::Count() const {
  ReaderMutexLock lock(&mu_);
  return entries_.size();
}

}  // namespace linebloom::kvstore::internal
