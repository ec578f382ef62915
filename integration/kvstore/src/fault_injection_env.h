// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// An Env wrapper for crash and error tests. It numbers every mutating
// operation (create, append, sync, close, rename, remove, truncate, sync-dir)
// and can make the Nth one fail:
//
//   kError  the operation fails with IOError and has no effect; later
//           operations work again (a transient error the store must survive).
//   kCrash  the process "dies" during the operation: an append writes only the
//           first half of its bytes, any other operation does nothing, and
//           every later mutating operation fails. Destroy the store, then
//           optionally SimulatePowerLoss, then reopen on the base Env.
//
// A test walks N = 1, 2, ... until the fault no longer fires (fault_fired()
// stays false), which covers every I/O of the operation under test.
//
// Power loss is modelled as the worst POSIX allows: bytes appended since the
// file's last Sync are lost, and entries created, renamed or removed since
// the directory's last SyncDir are undone (all of them, or a random subset,
// since the file system may persist them in any order).
//
// For tests only, so not installed: tests link linebloom_kvstore_internal.
// Internal header.

#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "linebloom/foundation/mutex.h"
#include "linebloom/kvstore/env.h"

namespace linebloom::kvstore {

enum class FaultMode { kError, kCrash };

enum class PowerLossMode {
  kUndoAllDirOps,     // every unsynced create/rename/remove is undone
  kUndoRandomDirOps,  // each is undone with probability 1/2 (seeded)
};

class FaultInjectionEnv final : public Env {
 public:
  // `base` must outlive this Env.
  explicit FaultInjectionEnv(Env* base);
  ~FaultInjectionEnv() override;

  // Fails the `nth` mutating operation from now (1-based) and resets the
  // operation counter. Clears an earlier crash.
  void Arm(uint64_t nth, FaultMode mode);
  void Disarm();
  // Mutating operations since construction or the last Arm/Disarm.
  uint64_t op_count() const;
  bool fault_fired() const;
  bool crashed() const;
  // One line per operation since the last Arm ("append 000007.sst 4096"), so
  // a failing test can name the step it broke.
  std::vector<std::string> op_log() const;

  // Applies the power-loss model to the files this Env has written, then
  // forgets its bookkeeping. Call after the store is destroyed.
  Status SimulatePowerLoss(PowerLossMode mode, uint64_t seed = 0);

  Status NewWritableFile(const std::string& path, std::unique_ptr<WritableFile>* file) override;
  Status NewAppendableFile(const std::string& path, std::unique_ptr<WritableFile>* file) override;
  Status NewRandomAccessFile(const std::string& path, IoMode mode, std::unique_ptr<RandomAccessFile>* file) override;
  Status ReadFileToString(const std::string& path, std::string* contents) override;
  Status GetFileSize(const std::string& path, uint64_t* size) override;
  Status GetChildren(const std::string& dir, std::vector<std::string>* names) override;
  Status CreateDirIfMissing(const std::string& dir) override;
  Status RenameFile(const std::string& from, const std::string& to) override;
  Status RemoveFile(const std::string& path) override;
  Status TruncateFile(const std::string& path, uint64_t size) override;
  Status SyncDir(const std::string& dir) override;
  Status LockFile(const std::string& path, std::unique_ptr<FileLock>* lock) override;

 private:
  class TrackedFile;
  friend class TrackedFile;

  // What happens to the operation about to run.
  enum class Verdict { kProceed, kFail, kCrashNow };
  Verdict NextOp(const std::string& what) LINEBLOOM_EXCLUDES(mu_);
  Status Refuse(const std::string& what) const;

  // Bookkeeping for the power-loss model.
  struct FileState {
    uint64_t size = 0;
    uint64_t synced = 0;
  };
  struct DirOp {
    enum class Kind { kCreate, kRename, kRemove } kind;
    std::string dir;
    std::string path;  // created / removed / renamed-to
    std::string from;  // renamed-from
    // The durable bytes of the file a rename replaced or a remove deleted.
    std::optional<std::string> lost_contents;
  };
  void OnAppend(const std::string& path, uint64_t bytes);
  void OnSync(const std::string& path);
  std::string DurableContents(const std::string& path) LINEBLOOM_REQUIRES(mu_);

  Env* const base_;
  mutable Mutex mu_;
  uint64_t ops_ LINEBLOOM_GUARDED_BY(mu_) = 0;
  uint64_t fail_at_ LINEBLOOM_GUARDED_BY(mu_) = 0;  // 0 = disarmed
  FaultMode mode_ LINEBLOOM_GUARDED_BY(mu_) = FaultMode::kError;
  bool fired_ LINEBLOOM_GUARDED_BY(mu_) = false;
  bool crashed_ LINEBLOOM_GUARDED_BY(mu_) = false;
  std::vector<std::string> log_ LINEBLOOM_GUARDED_BY(mu_);
  std::map<std::string, FileState> files_ LINEBLOOM_GUARDED_BY(mu_);
  std::vector<DirOp> dir_ops_ LINEBLOOM_GUARDED_BY(mu_);
};

}  // namespace linebloom::kvstore
