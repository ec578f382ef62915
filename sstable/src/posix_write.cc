// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.

#include "linebloom/sstable/posix_write.h"

#include <unistd.h>

#include <cerrno>

namespace linebloom::sstable {

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

}  // namespace linebloom::sstable
