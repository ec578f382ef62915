// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// The names of the files in a store directory (docs/KVSTORE.md, "Files").
// Numbered files share one counter, so a number names exactly one log or
// run. Internal header.

#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace linebloom::kvstore::internal {

enum class FileType {
  kLog,           // NNNNNN.log   write-ahead log
  kTable,         // NNNNNN.sst   a run's micro-SSTable
  kRunFilter,     // NNNNNN.lbf   a run's whole-run linebloom filter
  kManifest,      // MANIFEST
  kManifestTemp,  // MANIFEST.tmp
  kLock,          // LOCK
  kStats,         // STATS
  kStatsTemp,     // STATS.tmp
};

std::string LogFileName(const std::string& dir, uint64_t number);
std::string TableFileName(const std::string& dir, uint64_t number);
std::string RunFilterFileName(const std::string& dir, uint64_t number);
std::string ManifestFileName(const std::string& dir);
std::string ManifestTempFileName(const std::string& dir);
std::string LockFileName(const std::string& dir);
std::string StatsFileName(const std::string& dir);
std::string StatsTempFileName(const std::string& dir);

// Recognises a directory entry the store owns; false for anything else
// (which the store never touches). `number` is 0 for unnumbered files.
bool ParseFileName(std::string_view name, FileType* type, uint64_t* number);

}  // namespace linebloom::kvstore::internal
