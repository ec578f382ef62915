// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// Helpers shared by the key-value store tests.

#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>

#include "linebloom/kvstore/env.h"
#include "linebloom/kvstore/kv_store.h"

namespace linebloom::kvstore::testing {

// A fresh directory under $TMPDIR (or /tmp), removed with its contents.
class TempDir {
 public:
  TempDir() {
    const char* base = std::getenv("TMPDIR");
    std::string pattern = std::string(base && *base ? base : "/tmp").append("/linebloom-kv-test-XXXXXX");
    if (::mkdtemp(pattern.data()) == nullptr) std::abort();
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }
  // A path inside it that does not exist yet.
  std::string Sub(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

// Every live entry, via Scan.
inline std::map<std::string, std::string> Contents(const KvStore& store) {
  std::map<std::string, std::string> out;
  Status s = store.Scan("", std::nullopt, [&](std::string_view k, std::string_view v) {
    out.emplace(k, v);
    return true;
  });
  EXPECT_TRUE(s.ok()) << s.ToString();
  return out;
}

inline std::string ReadBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline void WriteBytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
}

// Overwrites one byte in place (no truncation, which some file systems
// answer with a flush).
inline void PatchByte(const std::string& path, size_t offset, char byte) {
  std::fstream f(path, std::ios::binary | std::ios::in | std::ios::out);
  f.seekp(static_cast<std::streamoff>(offset));
  f.put(byte);
}

// Files in `dir` whose names end in `suffix`, sorted.
inline std::vector<std::string> FilesWithSuffix(const std::string& dir, const std::string& suffix) {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (name.size() >= suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0) {
      out.push_back(e.path().string());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Checks the identities stats.h documents, for one set of counters.
inline void ExpectCounterIdentities(const LookupCounters& c, const std::string& where) {
  EXPECT_EQ(c.lookups, c.range_skips + c.run_filter_negatives + c.block_filter_negatives + c.block_reads) << where;
  EXPECT_EQ(c.block_reads, c.hits + c.false_positives) << where;
  EXPECT_LE(c.run_filter_negatives, c.run_filter_checks) << where;
  EXPECT_LE(c.block_filter_negatives, c.block_filter_checks) << where;
}

// PosixEnv without fsync: for tests whose durability is modelled by a
// FaultInjectionEnv on top (or not tested at all), where real syncs would
// only cost time.
class NoSyncEnv final : public Env {
 public:
  Status NewWritableFile(const std::string& path, std::unique_ptr<WritableFile>* file) override {
    std::unique_ptr<WritableFile> base;
    if (Status s = PosixEnv()->NewWritableFile(path, &base); !s.ok()) return s;
    *file = std::make_unique<File>(std::move(base));
    return Status::Ok();
  }
  Status NewAppendableFile(const std::string& path, std::unique_ptr<WritableFile>* file) override {
    std::unique_ptr<WritableFile> base;
    if (Status s = PosixEnv()->NewAppendableFile(path, &base); !s.ok()) return s;
    *file = std::make_unique<File>(std::move(base));
    return Status::Ok();
  }
  Status NewRandomAccessFile(const std::string& path, IoMode mode, std::unique_ptr<RandomAccessFile>* file) override {
    return PosixEnv()->NewRandomAccessFile(path, mode, file);
  }
  Status ReadFileToString(const std::string& path, std::string* contents) override {
    return PosixEnv()->ReadFileToString(path, contents);
  }
  Status GetFileSize(const std::string& path, uint64_t* size) override { return PosixEnv()->GetFileSize(path, size); }
  Status GetChildren(const std::string& dir, std::vector<std::string>* names) override {
    return PosixEnv()->GetChildren(dir, names);
  }
  Status CreateDirIfMissing(const std::string& dir) override { return PosixEnv()->CreateDirIfMissing(dir); }
  Status RenameFile(const std::string& from, const std::string& to) override {
    return PosixEnv()->RenameFile(from, to);
  }
  Status RemoveFile(const std::string& path) override { return PosixEnv()->RemoveFile(path); }
  Status TruncateFile(const std::string& path, uint64_t size) override {
    std::error_code ec;
    std::filesystem::resize_file(path, size, ec);
    return ec ? Status::IOError(path + ": truncate: " + ec.message()) : Status::Ok();
  }
  Status SyncDir(const std::string&) override { return Status::Ok(); }
  Status LockFile(const std::string& path, std::unique_ptr<FileLock>* lock) override {
    return PosixEnv()->LockFile(path, lock);
  }

 private:
  class File final : public WritableFile {
   public:
    explicit File(std::unique_ptr<WritableFile> base) : base_(std::move(base)) {}
    Status Append(std::string_view data) override { return base_->Append(data); }
    Status Sync() override { return Status::Ok(); }
    Status Close() override { return base_->Close(); }
    const std::string& name() const override { return base_->name(); }

   private:
    std::unique_ptr<WritableFile> base_;
  };
};

// Key number i of the filter tests: "user" + 9 digits (even i present, odd
// i absent, so absent keys fall inside every run's key range).
inline std::string KeyFor(uint64_t i) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "user%09llu", static_cast<unsigned long long>(i));
  return buf;
}

}  // namespace linebloom::kvstore::testing
