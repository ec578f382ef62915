// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// Merges sorted sources (the memtable and runs, newest first) into one
// sorted stream holding each key once, in the state of the newest source
// that has it. Scan and compaction both read through it. Internal header.

#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "entry.h"
#include "linebloom/foundation/status.h"
#include "memtable.h"
#include "run.h"

namespace linebloom::kvstore::internal {

class EntrySource {
 public:
  virtual ~EntrySource() = default;
  virtual void Seek(std::string_view target) = 0;
  virtual bool Valid() const = 0;
  virtual void Next() = 0;
  virtual std::string_view key() const = 0;
  virtual EntryKind kind() const = 0;
  virtual std::string_view value() const = 0;
  virtual Status status() const = 0;
};

// Over a copy of (part of) a memtable.
std::unique_ptr<EntrySource> NewMemSource(std::vector<std::pair<std::string, MemEntry>> entries);
// Over a run; the run must outlive the source.
std::unique_ptr<EntrySource> NewRunSource(const Run& run);

class MergingIterator {
 public:
  // sources[0] is the newest.
  explicit MergingIterator(std::vector<std::unique_ptr<EntrySource>> sources);

  void Seek(std::string_view target);
  bool Valid() const { return current_ >= 0; }
  void Next();
  std::string_view key() const { return sources_[current_]->key(); }
  EntryKind kind() const { return sources_[current_]->kind(); }
  std::string_view value() const { return sources_[current_]->value(); }
  // The first error of any source; iteration stops at it.
  Status status() const { return status_; }

 private:
  // Points current_ at the newest source holding the smallest key.
  void FindSmallest();

  std::vector<std::unique_ptr<EntrySource>> sources_;
  int current_ = -1;
  Status status_;
};

}  // namespace linebloom::kvstore::internal
