// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// The I/O layer under the micro-SSTable: an abstract file for positional
// reads and one for appends, so that a key-value store or a fault-injection
// test can substitute its own, plus POSIX implementations.
//
// Reads report the bytes they really asked the kernel for: with O_DIRECT a
// 100-byte read costs a whole aligned sector range, and that is what the
// avoided-I/O accounting must count.

#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "linebloom/sstable/status.h"

namespace linebloom::sstable {

class RandomAccessFile {
 public:
  virtual ~RandomAccessFile() = default;

  // Reads exactly out.size() bytes at `offset`. Fewer bytes available (end
  // of file) is an IOError naming the file and offset. Adds the bytes the
  // implementation transferred to *bytes_transferred when it is not null.
  // Safe to call from several threads at once.
  virtual Status Read(uint64_t offset, std::span<char> out, uint64_t* bytes_transferred) const = 0;

  // The file's size when it was opened.
  virtual uint64_t Size() const = 0;
  // The path (or any name) used in error messages.
  virtual const std::string& name() const = 0;
};

class WritableFile {
 public:
  virtual ~WritableFile() = default;
  virtual Status Append(std::string_view data) = 0;
  // Makes everything appended so far durable (fsync for POSIX files).
  virtual Status Sync() = 0;
  // Flushes and closes; further calls fail. Idempotent.
  virtual Status Close() = 0;
  virtual const std::string& name() const = 0;
};

enum class IoMode {
  // pread through the page cache: what a warm system sees.
  kBuffered,
  // O_DIRECT with aligned buffers: every read reaches the device, so the page
  // cache cannot hide the cost of a read the filter failed to avoid.
  kDirect,
};

const char* IoModeName(IoMode mode);

// Opens `path` for positional reads. kDirect on a filesystem without O_DIRECT
// support (tmpfs, some overlay filesystems) returns NotSupported; callers may
// fall back to kBuffered.
Status OpenRandomAccessFile(const std::string& path, IoMode mode,
                            std::unique_ptr<RandomAccessFile>* file);

// Creates (or truncates) `path` for appending.
Status NewWritableFile(const std::string& path, std::unique_ptr<WritableFile>* file);

// A read-only file held in memory, for tests and for callers that already
// have the bytes.
std::unique_ptr<RandomAccessFile> NewMemoryFile(std::string name, std::string contents);

// A writable file that appends to `*out` (which must outlive it); Sync and
// Close do nothing. For tables built in memory.
std::unique_ptr<WritableFile> NewStringWritableFile(std::string* out, std::string name = "(memory)");

}  // namespace linebloom::sstable
