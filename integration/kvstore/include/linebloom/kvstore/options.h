// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// How a KvStore is opened and tuned. The defaults favour safety: every write
// is fsynced before it is acknowledged.

#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>

#include "linebloom/foundation/file.h"
#include "linebloom/kvstore/env.h"

namespace linebloom::kvstore {

// Levels are numbered 0 (fresh flushes) to kMaxLevels - 1; see docs/KVSTORE.md.
inline constexpr int kMaxLevels = 8;

// Filter memory per key for the runs of one level.
using BitsPerKeyForLevel = std::function<double(int level)>;

// The same bits per key at every level.
BitsPerKeyForLevel UniformBitsPerKey(double bits_per_key);

// How a new run's filter bits per key are chosen (docs/KVSTORE.md, "Filter
// allocation").
enum class FilterAllocation {
  // Options::bits_per_key(level), for the run filter and the block filters.
  kPerLevel,
  // Monkey-style: an average_bits_per_key budget over all runs, spent where
  // it removes the most false positives: small (recent) runs get more bits
  // per key than big (old) ones. Same memory, fewer wasted block reads.
  kRunAware,
};

struct Options {
  bool create_if_missing = true;
  bool error_if_exists = false;

  // The memtable is flushed to a new run once its approximate size (keys,
  // values and per-entry overhead) reaches this.
  size_t write_buffer_size = size_t{4} << 20;
  // fsync the write-ahead log before a write is acknowledged. Without it an
  // acknowledged write survives a process crash (it is in the kernel) but
  // not a power loss until the next sync (Flush, Close).
  bool sync_writes = true;

  // Micro-SSTable data blocks.
  size_t block_size = 4096;
  bool compress = true;

  // Filter bits per key for runs written at a level (flushes write level 0,
  // compactions rebuild filters for their output level). Values are clamped
  // to [1, 100] by the filter library.
  BitsPerKeyForLevel bits_per_key = UniformBitsPerKey(10.0);
  // kPerLevel uses bits_per_key; kRunAware ignores it and spends
  // average_bits_per_key per stored key (per filter kind that is on) over
  // the runs of a full tier shape. Must be in [1, 100].
  FilterAllocation filter_allocation = FilterAllocation::kPerLevel;
  double average_bits_per_key = 10.0;
  // A filter over the whole run, checked before the run's index: a Get for
  // an absent key skips the run without touching it (docs/KVSTORE.md).
  bool run_filters = true;
  // A filter per data block, checked before reading the block.
  bool block_filters = true;
  // Runs written at this level or deeper get a compact run filter instead
  // of a Bloom one (as RocksDB's bloom_before_level picks its filter by
  // level): about a quarter less memory for the same false-positive rate,
  // slower to build. Its bits per key are those of the allocation above,
  // clamped to the compact filter's [5.5, 30]. The default, kMaxLevels,
  // gives every run a Bloom filter; 0 gives every run a compact one. Runs
  // keep the kind they were written with, so a store reads runs of both
  // kinds whatever this says (docs/KVSTORE.md).
  int compact_run_filters_from_level = kMaxLevels;

  // Size-tiered compaction: when a level holds this many runs they are
  // merged into one run of the next level (>= 2).
  size_t tier_fanout = 4;
  // Compact after each flush when a level is full. Off: only Compact() does.
  bool auto_compaction = true;

  IoMode io_mode = IoMode::kBuffered;
  // Not owned; nullptr means PosixEnv().
  Env* env = nullptr;
};

}  // namespace linebloom::kvstore
