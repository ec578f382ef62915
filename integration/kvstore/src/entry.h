// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// A key's newest state: a value or a tombstone. In a run's micro-SSTable the
// table value is one tag byte followed by the user's value, so a deletion can
// shadow older runs until compaction drops it. Internal header.

#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace linebloom::kvstore::internal {

enum class EntryKind : uint8_t {
  kDeletion = 0,
  kValue = 1,
};

inline std::string EncodeTableValue(EntryKind kind, std::string_view value) {
  std::string out;
  out.reserve(1 + value.size());
  out.push_back(static_cast<char>(kind));
  out.append(value);
  return out;
}

// False for a table value that is not a tag followed by bytes (or a tombstone
// with bytes after its tag): the run is corrupt.
inline bool DecodeTableValue(std::string_view stored, EntryKind* kind, std::string_view* value) {
  if (stored.empty()) return false;
  const auto tag = static_cast<uint8_t>(stored.front());
  if (tag == static_cast<uint8_t>(EntryKind::kValue)) {
    *kind = EntryKind::kValue;
    *value = stored.substr(1);
    return true;
  }
  if (tag == static_cast<uint8_t>(EntryKind::kDeletion) && stored.size() == 1) {
    *kind = EntryKind::kDeletion;
    *value = {};
    return true;
  }
  return false;
}

}  // namespace linebloom::kvstore::internal
