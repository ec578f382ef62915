// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// How a micro-SSTable is written and read (byte layout: docs/FORMAT.md,
// section 2).

#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "linebloom/sstable/block_filter.h"

namespace linebloom::sstable {

enum class FilterMode : uint8_t {
  kNone = 0,      // no filter: every lookup in the key range reads a block
  kPerBlock = 1,  // one filter per data block (BigTable-style), the default
  kPerFile = 2,   // one filter over every key of the file
};

const char* FilterModeName(FilterMode mode);

// Limits the writer enforces, so the reader can reject anything larger as
// corrupt without allocating it.
inline constexpr size_t kMaxKeySize = size_t{1} << 20;      // 1 MiB
inline constexpr size_t kMaxValueSize = size_t{64} << 20;   // 64 MiB
inline constexpr size_t kMaxBlockSize = size_t{256} << 20;  // target, 256 MiB

struct TableWriterOptions {
  // A data block is closed once its uncompressed size reaches this; a single
  // entry larger than it gets a block of its own.
  size_t block_size = 4096;
  // LZ4-compress a block when that saves at least 1/8 of its size.
  bool compress = true;
  FilterMode filter_mode = FilterMode::kPerBlock;
  // Used when filter_mode is not kNone.
  std::shared_ptr<const BlockFilterPolicy> filter_policy = NewLinebloomLinePairPolicy();
  // fsync the file in Finish. Durability of the directory entry of a new
  // file is the caller's business (it knows which directory to sync).
  bool sync_on_finish = true;
};

struct TableReaderOptions {
  // Policies the reader may use; it picks the one whose Name() the table
  // recorded. With no match the table is read without its filters (correct,
  // just slower) and TableReader::filter_in_use() says so.
  // The default reads linebloom's filters of both table formats and the
  // compact filter.
  std::vector<std::shared_ptr<const BlockFilterPolicy>> filter_policies = {
      NewLinebloomLinePairPolicy(), NewLinebloomBlocked512Policy(), NewLinebloomCompactPolicy()};
  // Ignore filters even when a policy matches (for measuring their benefit).
  bool use_filters = true;
};

}  // namespace linebloom::sstable
