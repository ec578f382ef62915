// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.

#include "file_names.h"

#include <charconv>
#include <cstdio>

namespace linebloom::kvstore::internal {
namespace {

std::string Numbered(const std::string& dir, uint64_t number, const char* suffix) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "/%06llu", static_cast<unsigned long long>(number));
  return std::string(dir).append(buf).append(suffix);
}

}  // namespace

std::string LogFileName(const std::string& dir, uint64_t number) { return Numbered(dir, number, ".log"); }
std::string TableFileName(const std::string& dir, uint64_t number) { return Numbered(dir, number, ".sst"); }
std::string RunFilterFileName(const std::string& dir, uint64_t number) { return Numbered(dir, number, ".lbf"); }
std::string ManifestFileName(const std::string& dir) { return std::string(dir).append("/MANIFEST"); }
std::string ManifestTempFileName(const std::string& dir) { return std::string(dir).append("/MANIFEST.tmp"); }
std::string LockFileName(const std::string& dir) { return std::string(dir).append("/LOCK"); }
std::string StatsFileName(const std::string& dir) { return std::string(dir).append("/STATS"); }
std::string StatsTempFileName(const std::string& dir) { return std::string(dir).append("/STATS.tmp"); }

bool ParseFileName(std::string_view name, FileType* type, uint64_t* number) {
  *number = 0;
  if (name == "MANIFEST") return *type = FileType::kManifest, true;
  if (name == "MANIFEST.tmp") return *type = FileType::kManifestTemp, true;
  if (name == "LOCK") return *type = FileType::kLock, true;
  if (name == "STATS") return *type = FileType::kStats, true;
  if (name == "STATS.tmp") return *type = FileType::kStatsTemp, true;

  const size_t dot = name.find('.');
  if (dot == std::string_view::npos || dot < 6) return false;
  const std::string_view digits = name.substr(0, dot);
  const std::string_view suffix = name.substr(dot);
  for (char c : digits) {
    if (c < '0' || c > '9') return false;
  }
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), *number);
  if (ec != std::errc() || end != digits.data() + digits.size()) return false;
  if (suffix == ".log") return *type = FileType::kLog, true;
  if (suffix == ".sst") return *type = FileType::kTable, true;
  if (suffix == ".lbf") return *type = FileType::kRunFilter, true;
  return false;
}

}  // namespace linebloom::kvstore::internal
