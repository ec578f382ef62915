// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// Walking an encoded WriteBatch (a log record's payload). Internal header.

#pragma once

#include <functional>
#include <string_view>

#include "entry.h"
#include "linebloom/foundation/status.h"

namespace linebloom::kvstore::internal {

using BatchOpVisitor = std::function<Status(EntryKind kind, std::string_view key, std::string_view value)>;

// Calls `visit` for each operation in order (sizes are the caller's to check). A payload that does not parse
// exactly (bad kind, lengths past the end, count mismatch, trailing bytes) is
// a Corruption naming `where`; nothing is visited then.
Status ForEachBatchOp(std::string_view rep, std::string_view where, const BatchOpVisitor& visit);

}  // namespace linebloom::kvstore::internal
