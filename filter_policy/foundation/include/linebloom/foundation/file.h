// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// The I/O layer under the micro-SSTable and the key-value store: an abstract
// file for positional reads and one for appends, so that a store or a
// fault-injection test can substitute its own, plus POSIX implementations.
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

#include "linebloom/foundation/status.h"

namespace linebloom {

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
  // Makes everything appended so far durable (fdatasync for POSIX files:
  // the data and the size, which is all a reader needs to get it back).
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
Status OpenRandomAccessFile(const std::string& path, IoMode mode, std::unique_ptr<RandomAccessFile>* file);

enum class WriteBuffering {
  // Appends collect in a 64 KiB user-space buffer and reach the kernel in
  // large writes (at Sync, Close, or when the buffer fills): for files that
  // are only read after they are complete, like a table.
  kBuffered,
  // Every Append is write(2) calls until done, so appended bytes are in the
  // kernel when it returns and a process crash cannot lose them (a log whose
  // records are acknowledged before they are synced).
  kUnbuffered,
};

// Creates (or truncates) `path` for appending.
Status NewWritableFile(const std::string& path, std::unique_ptr<WritableFile>* file,
                       WriteBuffering buffering = WriteBuffering::kBuffered);

// Opens an existing `path` for appending at its end.
Status NewAppendableFile(const std::string& path, std::unique_ptr<WritableFile>* file,
                         WriteBuffering buffering = WriteBuffering::kBuffered);

// The status of a failed POSIX call `op` on `path` with errno `errnum`:
// NotFound "<path>: no such file" for ENOENT, else IOError
// "<path>: <op>: <strerror>".
Status PosixError(const std::string& path, std::string_view op, int errnum);

// A read-only file held in memory, for tests and for callers that already
// have the bytes.
std::unique_ptr<RandomAccessFile> NewMemoryFile(std::string name, std::string contents);

// A writable file that appends to `*out` (which must outlive it); Sync and
// Close do nothing. For tables built in memory.
std::unique_ptr<WritableFile> NewStringWritableFile(std::string* out, std::string name = "(memory)");

}  // namespace linebloom
