// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.

#include "stats_file.h"

#include <sstream>
#include <vector>

#include "lookup_counter_fields.h"

namespace linebloom::kvstore::internal {
namespace {

void AppendCounters(std::string* out, const LookupCounters& c) {
  for (const LookupCounterField& f : kLookupCounterFields) out->append(" ").append(std::to_string(c.*f.member));
  out->append("\n");
}

bool ReadCounters(std::istringstream* in, LookupCounters* c) {
  for (const LookupCounterField& f : kLookupCounterFields) {
    if (!(*in >> c->*f.member)) return false;
  }
  return true;
}

}  // namespace

std::string EncodeStatsFile(const SavedStats& s) {
  std::string out = "linebloom-kv-stats 1\nstore";
  for (uint64_t v : {s.gets, s.memtable_hits, s.puts, s.deletes, s.scans, s.flushes, s.compactions}) {
    out.append(" ").append(std::to_string(v));
  }
  out.append("\n");
  for (const auto& [level, c] : s.levels) {
    out.append("level ").append(std::to_string(level));
    AppendCounters(&out, c);
  }
  for (const auto& [number, c] : s.runs) {
    out.append("run ").append(std::to_string(number));
    AppendCounters(&out, c);
  }
  return out;
}

bool DecodeStatsFile(std::string_view text, SavedStats* stats) {
  std::istringstream lines{std::string(text)};
  std::string line;
  if (!std::getline(lines, line) || line != "linebloom-kv-stats 1") return false;
  SavedStats s;
  bool saw_store = false;
  while (std::getline(lines, line)) {
    std::istringstream in(line);
    std::string tag;
    in >> tag;
    if (tag == "store") {
      for (uint64_t* f : {&s.gets, &s.memtable_hits, &s.puts, &s.deletes, &s.scans, &s.flushes, &s.compactions}) {
        if (!(in >> *f)) return false;
      }
      saw_store = true;
    } else if (tag == "level") {
      int level = -1;
      LookupCounters c;
      if (!(in >> level) || level < 0 || level >= 64 || !ReadCounters(&in, &c)) return false;
      s.levels[level] = c;
    } else if (tag == "run") {
      uint64_t number = 0;
      LookupCounters c;
      if (!(in >> number) || !ReadCounters(&in, &c)) return false;
      s.runs[number] = c;
    } else {
      return false;
    }
    std::string extra;
    if (in >> extra) return false;
  }
  if (!saw_store) return false;
  *stats = std::move(s);
  return true;
}

}  // namespace linebloom::kvstore::internal
