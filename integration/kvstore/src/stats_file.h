// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// The STATS file: lookup counters saved by Close and restored by Open, so
// that `linebloom-kv DIR stats` reports the workload of earlier commands.
// Advisory: written without fsync, and a missing or unreadable file just
// means counters start at zero. Text, one record per line:
//   linebloom-kv-stats 1
//   store <gets> <memtable_hits> <puts> <deletes> <scans> <flushes> <compactions>
//   level <level> <10 counters in kLookupCounterFields order>
//   run <file number> <10 counters>
// Internal header.

#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "linebloom/kvstore/stats.h"

namespace linebloom::kvstore::internal {

struct SavedStats {
  uint64_t gets = 0, memtable_hits = 0, puts = 0, deletes = 0, scans = 0, flushes = 0, compactions = 0;
  std::map<int, LookupCounters> levels;
  std::map<uint64_t, LookupCounters> runs;
};

std::string EncodeStatsFile(const SavedStats& stats);
// False (and *stats untouched) if `text` is not a well-formed STATS file.
bool DecodeStatsFile(std::string_view text, SavedStats* stats);

}  // namespace linebloom::kvstore::internal
