// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// Every file-system operation the key-value store performs goes through an
// Env, so that a test can substitute one that fails or "crashes" at the Nth
// operation (FaultInjectionEnv) and then check what survived. The POSIX Env
// is the real thing: unbuffered appends (an acknowledged record is in the
// kernel even without fsync), fsync, fsync of the directory, flock.

#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "linebloom/foundation/file.h"
#include "linebloom/foundation/status.h"

namespace linebloom::kvstore {

// An exclusive lock on a file; released (and the descriptor closed) when the
// object is destroyed or the process dies.
class FileLock {
 public:
  virtual ~FileLock() = default;
};

class Env {
 public:
  virtual ~Env() = default;

  // Creates `path`, or truncates it if it exists.
  virtual Status NewWritableFile(const std::string& path, std::unique_ptr<WritableFile>* file) = 0;
  // Opens an existing `path` for appending at its end.
  virtual Status NewAppendableFile(const std::string& path, std::unique_ptr<WritableFile>* file) = 0;
  virtual Status NewRandomAccessFile(const std::string& path, IoMode mode, std::unique_ptr<RandomAccessFile>* file) = 0;
  // The whole file (NotFound if it does not exist).
  virtual Status ReadFileToString(const std::string& path, std::string* contents) = 0;
  virtual Status GetFileSize(const std::string& path, uint64_t* size) = 0;
  // Names (not paths) of the entries of `dir`, without "." and "..".
  virtual Status GetChildren(const std::string& dir, std::vector<std::string>* names) = 0;
  virtual Status CreateDirIfMissing(const std::string& dir) = 0;
  // Atomically replaces `to` (if it exists) by `from`.
  virtual Status RenameFile(const std::string& from, const std::string& to) = 0;
  virtual Status RemoveFile(const std::string& path) = 0;
  // Cuts `path` to `size` bytes and makes the new size durable.
  virtual Status TruncateFile(const std::string& path, uint64_t size) = 0;
  // Makes the creation, renaming and removal of entries of `dir` durable.
  virtual Status SyncDir(const std::string& dir) = 0;
  // Takes an exclusive advisory lock on `path` (created if missing). Fails
  // with IOError if another process, or another open store in this process,
  // holds it.
  virtual Status LockFile(const std::string& path, std::unique_ptr<FileLock>* lock) = 0;
};

// The process-wide POSIX Env. Never destroyed.
Env* PosixEnv();

}  // namespace linebloom::kvstore
