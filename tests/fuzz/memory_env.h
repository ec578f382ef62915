// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// An in-memory kvstore::Env for fuzzing the store's recovery: a flat map from
// path to contents, so a fuzz input can be written as a store's log or
// MANIFEST and the store opened on it thousands of times a second, with no
// disk, no fsync and nothing left behind. Durability is not modelled (every
// append is "durable"): the fault-injection tests cover that; here only the
// bytes the store finds at Open matter.
//
// Directories are implicit: a file "d/name" lives in directory "d". Errors
// mirror the POSIX Env where the store depends on them (NotFound for a missing
// file in ReadFileToString, GetFileSize and RemoveFile).

#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "linebloom/kvstore/env.h"
#include "linebloom/foundation/file.h"

namespace linebloom::fuzz {

using kvstore::FileLock;

class MemoryEnv final : public kvstore::Env {
 public:
  // Direct access for the harness (not used by the store).
  void SetFile(const std::string& path, std::string contents) {
    std::lock_guard lock(mu_);
    files_[path] = std::move(contents);
  }
  bool GetFile(const std::string& path, std::string* contents) const {
    std::lock_guard lock(mu_);
    auto it = files_.find(path);
    if (it == files_.end()) return false;
    *contents = it->second;
    return true;
  }
  // Every file, to copy a prepared store into a fresh Env per fuzz input.
  std::map<std::string, std::string> Files() const {
    std::lock_guard lock(mu_);
    return files_;
  }
  void SetFiles(std::map<std::string, std::string> files) {
    std::lock_guard lock(mu_);
    files_ = std::move(files);
  }

  Status NewWritableFile(const std::string& path, std::unique_ptr<WritableFile>* file) override {
    std::lock_guard lock(mu_);
    files_[path].clear();
    *file = std::make_unique<File>(this, path);
    return Status::Ok();
  }
  Status NewAppendableFile(const std::string& path, std::unique_ptr<WritableFile>* file) override {
    std::lock_guard lock(mu_);
    if (files_.count(path) == 0) return Status::IOError(path + ": open for appending: no such file");
    *file = std::make_unique<File>(this, path);
    return Status::Ok();
  }
  Status NewRandomAccessFile(const std::string& path, IoMode, std::unique_ptr<RandomAccessFile>* file) override {
    std::lock_guard lock(mu_);
    auto it = files_.find(path);
    if (it == files_.end()) return Status::NotFound(path + ": no such file");
    // A snapshot: the store only reads files it no longer writes.
    *file = NewMemoryFile(path, it->second);
    return Status::Ok();
  }
  Status ReadFileToString(const std::string& path, std::string* contents) override {
    if (!GetFile(path, contents)) return Status::NotFound(path + ": no such file");
    return Status::Ok();
  }
  Status GetFileSize(const std::string& path, uint64_t* size) override {
    std::lock_guard lock(mu_);
    auto it = files_.find(path);
    if (it == files_.end()) return Status::NotFound(path + ": no such file");
    *size = it->second.size();
    return Status::Ok();
  }
  Status GetChildren(const std::string& dir, std::vector<std::string>* names) override {
    std::lock_guard lock(mu_);
    names->clear();
    const std::string prefix = dir + "/";
    for (const auto& [path, contents] : files_) {
      if (path.compare(0, prefix.size(), prefix) == 0 && path.find('/', prefix.size()) == std::string::npos) {
        names->push_back(path.substr(prefix.size()));
      }
    }
    return Status::Ok();
  }
  Status CreateDirIfMissing(const std::string&) override { return Status::Ok(); }
  Status RenameFile(const std::string& from, const std::string& to) override {
    std::lock_guard lock(mu_);
    auto it = files_.find(from);
    if (it == files_.end()) return Status::IOError(from + ": rename: no such file");
    std::string contents = std::move(it->second);
    files_.erase(it);
    files_[to] = std::move(contents);
    return Status::Ok();
  }
  Status RemoveFile(const std::string& path) override {
    std::lock_guard lock(mu_);
    if (files_.erase(path) == 0) return Status::NotFound(path + ": no such file");
    return Status::Ok();
  }
  Status TruncateFile(const std::string& path, uint64_t size) override {
    std::lock_guard lock(mu_);
    auto it = files_.find(path);
    if (it == files_.end()) return Status::IOError(path + ": truncate: no such file");
    if (size < it->second.size()) it->second.resize(size);
    return Status::Ok();
  }
  Status SyncDir(const std::string&) override { return Status::Ok(); }
  Status LockFile(const std::string& path, std::unique_ptr<FileLock>* lock) override {
    std::lock_guard guard(mu_);
    if (!locked_.insert(path).second) return Status::IOError(path + ": the store is locked");
    files_.try_emplace(path);
    *lock = std::make_unique<Lock>(this, path);
    return Status::Ok();
  }

 private:
  // Appends go to the map entry by name, so a file removed or renamed under
  // an open writer fails its next append instead of writing somewhere stale.
  class File final : public WritableFile {
   public:
    File(MemoryEnv* env, std::string path) : env_(env), path_(std::move(path)) {}
    Status Append(std::string_view data) override {
      if (closed_) return Status::IOError(path_ + ": append after close");
      std::lock_guard lock(env_->mu_);
      auto it = env_->files_.find(path_);
      if (it == env_->files_.end()) return Status::IOError(path_ + ": append: file removed");
      it->second.append(data);
      return Status::Ok();
    }
    Status Sync() override {
      if (closed_) return Status::IOError(path_ + ": sync after close");
      return Status::Ok();
    }
    Status Close() override {
      closed_ = true;
      return Status::Ok();
    }
    const std::string& name() const override { return path_; }

   private:
    MemoryEnv* env_;
    std::string path_;
    bool closed_ = false;
  };

  class Lock final : public FileLock {
   public:
    Lock(MemoryEnv* env, std::string path) : env_(env), path_(std::move(path)) {}
    ~Lock() override {
      std::lock_guard guard(env_->mu_);
      env_->locked_.erase(path_);
    }

   private:
    MemoryEnv* env_;
    std::string path_;
  };

  mutable std::mutex mu_;
  std::map<std::string, std::string> files_;
  std::set<std::string> locked_;
};

}  // namespace linebloom::fuzz
