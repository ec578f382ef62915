// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// POSIX files: pread (buffered or O_DIRECT) for reads, write + fdatasync for
// appends.

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "linebloom/foundation/file.h"

namespace linebloom {
namespace {

// O_DIRECT requires the buffer address, the file offset and the length to be
// multiples of the device's logical block size. 4096 covers every common
// device (512-byte and 4 KiB sectors).
constexpr size_t kDirectAlignment = 4096;

struct FreeDeleter {
  void operator()(char* p) const { std::free(p); }
};
using AlignedBuffer = std::unique_ptr<char, FreeDeleter>;

AlignedBuffer AllocateAligned(size_t size) {
  return AlignedBuffer(static_cast<char*>(std::aligned_alloc(kDirectAlignment, size)));
}

std::string ReadError(const std::string& name, uint64_t offset, std::string_view what) {
  std::string msg(name);
  msg.append(": offset ").append(std::to_string(offset)).append(": ").append(what);
  return msg;
}

// Writes all of `data` to `fd`, retrying after EINTR and short writes.
Status WriteFully(int fd, std::string_view data, const std::string& name) {
  while (!data.empty()) {
    const ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return Status::FromErrno(name + ": write", errno);
    }
    data.remove_prefix(static_cast<size_t>(n));
  }
  return Status::Ok();
}

// pread until `size` bytes arrive, EOF, or an error. Returns the byte count
// or -1 with errno set.
ssize_t PreadFully(int fd, char* buf, size_t size, uint64_t offset) {
  size_t done = 0;
  while (done < size) {
    const ssize_t n = ::pread(fd, buf + done, size - done, static_cast<off_t>(offset + done));
    if (n < 0) {
      if (errno == EINTR) continue;
      return -1;
    }
    if (n == 0) break;
    done += static_cast<size_t>(n);
  }
  return static_cast<ssize_t>(done);
}

class PosixRandomAccessFile final : public RandomAccessFile {
 public:
  PosixRandomAccessFile(std::string name, int fd, uint64_t size, IoMode mode)
      : name_(std::move(name)), fd_(fd), size_(size), mode_(mode) {}
  ~PosixRandomAccessFile() override { ::close(fd_); }

  Status Read(uint64_t offset, std::span<char> out, uint64_t* bytes_transferred) const override {
    return mode_ == IoMode::kDirect ? ReadDirect(offset, out, bytes_transferred)
                                    : ReadBuffered(offset, out, bytes_transferred);
  }
  uint64_t Size() const override { return size_; }
  const std::string& name() const override { return name_; }

 private:
  Status ReadBuffered(uint64_t offset, std::span<char> out, uint64_t* transferred) const {
    const ssize_t n = PreadFully(fd_, out.data(), out.size(), offset);
    if (n < 0) return Status::FromErrno(ReadError(name_, offset, "pread"), errno);
    if (transferred) *transferred += static_cast<uint64_t>(n);
    if (static_cast<size_t>(n) != out.size()) {
      return Status::IOError(ReadError(name_, offset, "short read (end of file)"));
    }
    return Status::Ok();
  }

  // Reads the aligned range that covers [offset, offset + size) into an
  // aligned buffer and copies the requested part out.
  Status ReadDirect(uint64_t offset, std::span<char> out, uint64_t* transferred) const {
    if (out.empty()) return Status::Ok();
    const uint64_t start = offset / kDirectAlignment * kDirectAlignment;
    const uint64_t end = (offset + out.size() + kDirectAlignment - 1) / kDirectAlignment * kDirectAlignment;
    const size_t span = static_cast<size_t>(end - start);
    AlignedBuffer buf = AllocateAligned(span);
    if (!buf) return Status::IOError(ReadError(name_, offset, "out of memory for an O_DIRECT buffer"));
    const ssize_t n = PreadFully(fd_, buf.get(), span, start);
    if (n < 0) return Status::FromErrno(ReadError(name_, offset, "pread (O_DIRECT)"), errno);
    if (transferred) *transferred += static_cast<uint64_t>(n);
    const size_t have = static_cast<size_t>(n);
    const size_t skip = static_cast<size_t>(offset - start);
    if (have < skip + out.size()) {
      return Status::IOError(ReadError(name_, offset, "short read (end of file)"));
    }
    std::memcpy(out.data(), buf.get() + skip, out.size());
    return Status::Ok();
  }

  std::string name_;
  int fd_;
  uint64_t size_;
  IoMode mode_;
};

class PosixWritableFile final : public WritableFile {
 public:
  PosixWritableFile(std::string name, int fd, WriteBuffering buffering)
      : name_(std::move(name)), fd_(fd), buffer_capacity_(buffering == WriteBuffering::kBuffered ? kBufferSize : 0) {
    buffer_.reserve(buffer_capacity_);
  }
  ~PosixWritableFile() override { (void)Close(); }

  Status Append(std::string_view data) override {
    if (fd_ < 0) return Status::IOError(name_ + ": append after close");
    if (buffer_.size() + data.size() > buffer_capacity_) {
      if (Status s = Flush(); !s.ok()) return s;
    }
    // Appends at least as large as the buffer skip it; smaller ones are
    // batched into one write.
    if (data.size() >= buffer_capacity_) return WriteFully(fd_, data, name_);
    buffer_.append(data);
    return Status::Ok();
  }

  Status Sync() override {
    if (fd_ < 0) return Status::IOError(name_ + ": sync after close");
    if (Status s = Flush(); !s.ok()) return s;
    if (::fdatasync(fd_) != 0) return Status::FromErrno(name_ + ": fdatasync", errno);
    return Status::Ok();
  }

  Status Close() override {
    if (fd_ < 0) return Status::Ok();
    Status s = Flush();
    if (::close(fd_) != 0 && s.ok()) s = Status::FromErrno(name_ + ": close", errno);
    fd_ = -1;
    return s;
  }

  const std::string& name() const override { return name_; }

 private:
  static constexpr size_t kBufferSize = 64 * 1024;

  Status Flush() {
    Status s = WriteFully(fd_, buffer_, name_);
    buffer_.clear();
    return s;
  }

  std::string name_;
  int fd_;
  size_t buffer_capacity_;  // 0: unbuffered
  std::string buffer_;
};

Status OpenForAppend(const std::string& path, int flags, WriteBuffering buffering,
                     std::unique_ptr<WritableFile>* file) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC | flags, 0644);
  if (fd < 0) return Status::FromErrno(path + ": open for writing", errno);
  *file = std::make_unique<PosixWritableFile>(path, fd, buffering);
  return Status::Ok();
}

class MemoryFile final : public RandomAccessFile {
 public:
  MemoryFile(std::string name, std::string contents) : name_(std::move(name)), contents_(std::move(contents)) {}

  Status Read(uint64_t offset, std::span<char> out, uint64_t* transferred) const override {
    if (offset > contents_.size() || out.size() > contents_.size() - offset) {
      return Status::IOError(ReadError(name_, offset, "short read (end of file)"));
    }
    std::memcpy(out.data(), contents_.data() + offset, out.size());
    if (transferred) *transferred += out.size();
    return Status::Ok();
  }
  uint64_t Size() const override { return contents_.size(); }
  const std::string& name() const override { return name_; }

 private:
  std::string name_;
  std::string contents_;
};

}  // namespace

const char* IoModeName(IoMode mode) { return mode == IoMode::kDirect ? "O_DIRECT" : "buffered"; }

Status OpenRandomAccessFile(const std::string& path, IoMode mode, std::unique_ptr<RandomAccessFile>* file) {
  int flags = O_RDONLY | O_CLOEXEC;
  if (mode == IoMode::kDirect) flags |= O_DIRECT;
  const int fd = ::open(path.c_str(), flags);
  if (fd < 0) {
    const int err = errno;
    if (mode == IoMode::kDirect && err == EINVAL) {
      return Status::NotSupported(path + ": the filesystem does not support O_DIRECT");
    }
    return PosixError(path, "open", err);
  }
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    const int err = errno;
    ::close(fd);
    return Status::FromErrno(path + ": fstat", err);
  }
  *file = std::make_unique<PosixRandomAccessFile>(path, fd, static_cast<uint64_t>(st.st_size), mode);
  if (mode == IoMode::kDirect && st.st_size > 0) {
    // Some filesystems accept O_DIRECT at open and refuse it at read time.
    char probe;
    Status s = (*file)->Read(0, std::span<char>(&probe, 1), nullptr);
    if (!s.ok()) {
      file->reset();
      return Status::NotSupported(path + ": O_DIRECT read failed (" + s.message() + ")");
    }
  }
  return Status::Ok();
}

Status NewWritableFile(const std::string& path, std::unique_ptr<WritableFile>* file, WriteBuffering buffering) {
  return OpenForAppend(path, O_CREAT | O_TRUNC, buffering, file);
}

Status NewAppendableFile(const std::string& path, std::unique_ptr<WritableFile>* file, WriteBuffering buffering) {
  return OpenForAppend(path, O_APPEND, buffering, file);
}

Status PosixError(const std::string& path, std::string_view op, int errnum) {
  if (errnum == ENOENT) return Status::NotFound(path + ": no such file");
  std::string context(path);
  context.append(": ").append(op);
  return Status::FromErrno(context, errnum);
}

namespace {

class StringWritableFile final : public WritableFile {
 public:
  StringWritableFile(std::string* out, std::string name) : out_(out), name_(std::move(name)) {}
  Status Append(std::string_view data) override {
    out_->append(data);
    return Status::Ok();
  }
  Status Sync() override { return Status::Ok(); }
  Status Close() override { return Status::Ok(); }
  const std::string& name() const override { return name_; }

 private:
  std::string* out_;
  std::string name_;
};

}  // namespace

std::unique_ptr<WritableFile> NewStringWritableFile(std::string* out, std::string name) {
  return std::make_unique<StringWritableFile>(out, std::move(name));
}

std::unique_ptr<RandomAccessFile> NewMemoryFile(std::string name, std::string contents) {
  return std::make_unique<MemoryFile>(std::move(name), std::move(contents));
}

}  // namespace linebloom
