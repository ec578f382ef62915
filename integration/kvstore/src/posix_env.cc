// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <system_error>

#include "linebloom/kvstore/env.h"

namespace linebloom::kvstore {
namespace {

class PosixFileLock final : public FileLock {
 public:
  explicit PosixFileLock(int fd) : fd_(fd) {}
  ~PosixFileLock() override {
    ::flock(fd_, LOCK_UN);
    ::close(fd_);
  }

 private:
  int fd_;
};

// Files are unbuffered: a record the store has acknowledged is in the kernel
// even when it is not fsynced, so a process crash cannot lose it.
class PosixEnvImpl final : public Env {
 public:
  Status NewWritableFile(const std::string& path, std::unique_ptr<WritableFile>* file) override {
    return linebloom::NewWritableFile(path, file, WriteBuffering::kUnbuffered);
  }

  Status NewAppendableFile(const std::string& path, std::unique_ptr<WritableFile>* file) override {
    return linebloom::NewAppendableFile(path, file, WriteBuffering::kUnbuffered);
  }

  Status NewRandomAccessFile(const std::string& path, IoMode mode, std::unique_ptr<RandomAccessFile>* file) override {
    return OpenRandomAccessFile(path, mode, file);
  }

  Status ReadFileToString(const std::string& path, std::string* contents) override {
    contents->clear();
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return PosixError(path, "open", errno);
    char buf[64 * 1024];
    Status s;
    for (;;) {
      const ssize_t n = ::read(fd, buf, sizeof buf);
      if (n < 0) {
        if (errno == EINTR) continue;
        s = Status::FromErrno(path + ": read", errno);
        break;
      }
      if (n == 0) break;
      contents->append(buf, static_cast<size_t>(n));
    }
    ::close(fd);
    return s;
  }

  Status GetFileSize(const std::string& path, uint64_t* size) override {
    struct stat st;
    if (::stat(path.c_str(), &st) != 0) return PosixError(path, "stat", errno);
    *size = static_cast<uint64_t>(st.st_size);
    return Status::Ok();
  }

  Status GetChildren(const std::string& dir, std::vector<std::string>* names) override {
    names->clear();
    std::error_code ec;
    std::filesystem::directory_iterator it(dir, ec);
    if (ec) return Status::IOError(dir + ": list directory: " + ec.message());
    for (; it != std::filesystem::directory_iterator(); it.increment(ec)) {
      if (ec) break;
      names->push_back(it->path().filename().string());
    }
    if (ec) return Status::IOError(dir + ": list directory: " + ec.message());
    return Status::Ok();
  }

  Status CreateDirIfMissing(const std::string& dir) override {
    if (::mkdir(dir.c_str(), 0755) == 0) return Status::Ok();
    const int err = errno;
    struct stat st;
    if (err == EEXIST && ::stat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) return Status::Ok();
    if (err == EEXIST) return Status::InvalidArgument(dir + ": exists and is not a directory");
    return Status::FromErrno(dir + ": mkdir", err);
  }

  Status RenameFile(const std::string& from, const std::string& to) override {
    if (::rename(from.c_str(), to.c_str()) != 0) {
      return Status::FromErrno(from + ": rename to " + to, errno);
    }
    return Status::Ok();
  }

  Status RemoveFile(const std::string& path) override {
    if (::unlink(path.c_str()) != 0) return PosixError(path, "unlink", errno);
    return Status::Ok();
  }

  Status TruncateFile(const std::string& path, uint64_t size) override {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) return Status::FromErrno(path + ": open for truncation", errno);
    Status s;
    if (::ftruncate(fd, static_cast<off_t>(size)) != 0) {
      s = Status::FromErrno(path + ": ftruncate", errno);
    } else if (::fsync(fd) != 0) {
      s = Status::FromErrno(path + ": fsync", errno);
    }
    ::close(fd);
    return s;
  }

  Status SyncDir(const std::string& dir) override {
    const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return Status::FromErrno(dir + ": open directory", errno);
    Status s;
    if (::fsync(fd) != 0) s = Status::FromErrno(dir + ": fsync directory", errno);
    ::close(fd);
    return s;
  }

  Status LockFile(const std::string& path, std::unique_ptr<FileLock>* lock) override {
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) return Status::FromErrno(path + ": open lock file", errno);
    // flock locks belong to the open file description, so a second open of
    // the same store in this process is refused just like another process.
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      const int err = errno;
      ::close(fd);
      if (err == EWOULDBLOCK) {
        return Status::IOError(path +
                               ": the store is locked: another process (or another open "
                               "KvStore in this process) is using it");
      }
      return Status::FromErrno(path + ": flock", err);
    }
    *lock = std::make_unique<PosixFileLock>(fd);
    return Status::Ok();
  }
};

}  // namespace

Env* PosixEnv() {
  static PosixEnvImpl env;  // stateless, so safe to use during static destruction
  return &env;
}

}  // namespace linebloom::kvstore
