// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// A small LSM key-value store on the micro-SSTable: a write-ahead log, a
// memtable, runs of micro-SSTables with a linebloom filter per run and per
// data block, size-tiered compaction and an atomically replaced MANIFEST.
// Design, guarantees and byte layouts: docs/KVSTORE.md.
//
// Keys and values are arbitrary bytes (the empty key included); keys are
// ordered bytewise. Every method returns a Status and never throws.
// Get/Scan/Stats may run from any number of threads concurrently with each
// other and with the writers (Put/Delete/Write/Flush/Compact, which are
// serialised). A directory can be open in one KvStore at a time.

#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "linebloom/foundation/status.h"
#include "linebloom/kvstore/options.h"
#include "linebloom/kvstore/stats.h"
#include "linebloom/kvstore/write_batch.h"

namespace linebloom::kvstore {

// Largest key and value the store accepts (InvalidArgument beyond).
inline constexpr size_t kMaxKeySize = size_t{1} << 20;           // 1 MiB
inline constexpr size_t kMaxValueSize = (size_t{64} << 20) - 1;  // 64 MiB - 1

class KvStore {
 public:
  // Opens (or, with create_if_missing, creates) the store in `dir`: locks
  // it, reads the MANIFEST, opens the runs, replays the write-ahead log
  // (a torn last record is dropped; a damaged record before the end is a
  // Corruption error) and deletes files a crashed flush or compaction left.
  static Status Open(const std::string& dir, const Options& options, std::unique_ptr<KvStore>* store);

  ~KvStore();  // Close()s
  KvStore(const KvStore&) = delete;
  KvStore& operator=(const KvStore&) = delete;

  // Acknowledged (OK) only once the write is in the log (and fsynced with
  // Options::sync_writes). A flush the write triggers does not change the
  // write's status; its error shows in Stats().background_error.
  Status Put(std::string_view key, std::string_view value);
  Status Delete(std::string_view key);
  Status Write(const WriteBatch& batch);

  // The value, NotFound if absent, or the Corruption/IOError met.
  Status Get(std::string_view key, std::string* value) const;

  // Visits the live entries with from <= key < to (no `to`: to the end) in
  // key order, merged over the memtable and every run, newest value winning,
  // deleted keys skipped. `visit` returns false to stop early; the views it
  // gets are valid only during the call.
  using ScanVisitor = std::function<bool(std::string_view key, std::string_view value)>;
  Status Scan(std::string_view from, std::optional<std::string_view> to, const ScanVisitor& visit) const;
  Status Scan(std::string_view from, std::optional<std::string_view> to,
              std::vector<std::pair<std::string, std::string>>* out) const;

  // Writes the memtable to a new run (no-op when empty), then compacts as
  // the tiering policy asks (Options::auto_compaction).
  Status Flush();
  // Flushes, then merges every run into one, dropping overwritten values
  // and tombstones.
  Status Compact();

  StoreStats Stats() const;

  // Syncs the log, saves the stats and releases the directory lock. Later
  // calls on the store fail; Close itself is idempotent.
  Status Close();

 private:
  class Impl;
  explicit KvStore(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace linebloom::kvstore
