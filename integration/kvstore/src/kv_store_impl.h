// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// The store's state and how it is guarded (docs/KVSTORE.md, "Concurrency"):
//
//  * write_mu_ serialises everything that changes the store: writes, flushes,
//    compactions, Close. A flush or compaction therefore blocks writers (not
//    readers) while it runs: simple, and this store is small.
//  * state_mu_ guards only the read view: the current memtable and the
//    immutable list of runs (shared_ptr snapshots). A reader copies both
//    under the lock and then works without it; a flush or compaction swaps
//    in new ones. Runs live as long as some snapshot holds them.
//
// The rules are annotations (LINEBLOOM_GUARDED_BY, LINEBLOOM_REQUIRES) that
// clang's -Wthread-safety checks. Internal header.

#pragma once

#include <array>
#include <atomic>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "compaction_picker.h"
#include "linebloom/foundation/mutex.h"
#include "linebloom/kvstore/kv_store.h"
#include "manifest.h"
#include "memtable.h"
#include "merging_iterator.h"
#include "run.h"
#include "wal.h"

namespace linebloom::kvstore {

class KvStore::Impl {
 public:
  Impl(std::string dir, const Options& options);
  ~Impl();

  Status Recover();
  Status Write(const WriteBatch& batch);
  Status Get(std::string_view key, std::string* value) const;
  Status Scan(std::string_view from, std::optional<std::string_view> to, const ScanVisitor& visit) const;
  Status Flush();
  Status Compact();
  StoreStats Stats() const;
  Status Close();

 private:
  struct Version {
    std::vector<std::shared_ptr<internal::Run>> runs;  // newest first
  };
  struct ReadView {
    std::shared_ptr<internal::MemTable> mem;
    std::shared_ptr<const Version> version;
  };

  ReadView View() const;
  Status CheckOpen() const;

  // Recovery (kv_store.cc).
  Status CreateStore(internal::ManifestState* state);
  Status ReplayLog() LINEBLOOM_REQUIRES(write_mu_);
  void RemoveObsoleteFiles() LINEBLOOM_REQUIRES(write_mu_);
  void LoadStats();
  void SaveStats();
  // Copies the operation counts (gets .. compactions) into `to`: a
  // StoreStats or an internal::SavedStats, which name them alike.
  template <typename Counts>
  void CopyOperationCounts(Counts* to) const {
    to->gets = gets_;
    to->memtable_hits = memtable_hits_;
    to->puts = puts_;
    to->deletes = deletes_;
    to->scans = scans_;
    to->flushes = flushes_;
    to->compactions = compactions_;
  }

  // Writers (kv_store_write.cc).
  Status FlushLocked() LINEBLOOM_REQUIRES(write_mu_);
  Status MaybeCompactLocked() LINEBLOOM_REQUIRES(write_mu_);
  Status CompactLocked(const internal::CompactionPick& pick) LINEBLOOM_REQUIRES(write_mu_);
  // Writes `input` as a run at `level`. Its filters are sized for
  // estimated_entries (an upper bound) next to the runs in `others`, which
  // stay live (filter_allocation.h).
  Status BuildRun(internal::MergingIterator* input, int level, bool drop_tombstones, uint64_t estimated_entries,
                  std::span<const internal::RunShape> others, std::shared_ptr<internal::Run>* run)
      LINEBLOOM_REQUIRES(write_mu_);
  // Installs `version` with `log_number` as the new MANIFEST; on failure
  // removes `new_files` unless the rename happened (then the error sticks).
  Status InstallLocked(const Version& version, uint64_t log_number, const std::vector<std::string>& new_files)
      LINEBLOOM_REQUIRES(write_mu_);
  void RemoveRunFiles(uint64_t number);
  void SetBackgroundError(const Status& s);

  const std::string dir_;
  const Options options_;
  Env* const env_;
  std::unique_ptr<FileLock> lock_;

  mutable Mutex write_mu_;
  std::unique_ptr<internal::WalWriter> wal_ LINEBLOOM_GUARDED_BY(write_mu_);
  uint64_t log_number_ LINEBLOOM_GUARDED_BY(write_mu_) = 0;
  uint64_t next_file_number_ LINEBLOOM_GUARDED_BY(write_mu_) = 1;
  // A failed log write, or a MANIFEST rename whose durability is unknown:
  // writes are refused until the store is reopened.
  Status sticky_error_ LINEBLOOM_GUARDED_BY(write_mu_);
  std::atomic<bool> closed_{true};

  mutable Mutex state_mu_;
  std::shared_ptr<internal::MemTable> mem_ LINEBLOOM_GUARDED_BY(state_mu_);
  std::shared_ptr<const Version> version_ LINEBLOOM_GUARDED_BY(state_mu_);

  mutable Mutex background_error_mu_;
  std::string background_error_ LINEBLOOM_GUARDED_BY(background_error_mu_);

  mutable std::atomic<uint64_t> gets_{0}, memtable_hits_{0}, scans_{0};
  std::atomic<uint64_t> puts_{0}, deletes_{0}, flushes_{0}, compactions_{0};
  uint64_t wal_records_replayed_ = 0, wal_bytes_dropped_ = 0;
  // Per level, including runs since merged away.
  mutable std::array<internal::AtomicLookupCounters, kMaxLevels> level_counters_;
};

}  // namespace linebloom::kvstore
