// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// The write(2) loop under every POSIX file of the project that appends (the
// table writer's here, the key-value store's Env). One copy, so EINTR and
// short writes are handled the same way everywhere.

#pragma once

#include <string>
#include <string_view>

#include "linebloom/sstable/status.h"

namespace linebloom::sstable {

// Writes all of `data` to `fd`, retrying after EINTR and short writes. An
// error is an IOError "<name>: write: <strerror>".
Status WriteFully(int fd, std::string_view data, const std::string& name);

}  // namespace linebloom::sstable
