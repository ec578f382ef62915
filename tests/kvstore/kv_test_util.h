// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// Helpers shared by the key-value store tests.

#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>

#include "linebloom/kvstore/kv_store.h"

namespace linebloom::kvstore::testing {

// A fresh directory under $TMPDIR (or /tmp), removed with its contents.
class TempDir {
 public:
  TempDir() {
    const char* base = std::getenv("TMPDIR");
    std::string pattern = std::string(base && *base ? base : "/tmp").append("/linebloom-kv-test-XXXXXX");
    if (::mkdtemp(pattern.data()) == nullptr) std::abort();
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }
  // A path inside it that does not exist yet.
  std::string Sub(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

// Every live entry, via Scan.
inline std::map<std::string, std::string> Contents(const KvStore& store) {
  std::map<std::string, std::string> out;
  Status s = store.Scan("", std::nullopt, [&](std::string_view k, std::string_view v) {
    out.emplace(k, v);
    return true;
  });
  EXPECT_TRUE(s.ok()) << s.ToString();
  return out;
}

inline std::string ReadBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline void WriteBytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
}

// Files in `dir` whose names end in `suffix`, sorted.
inline std::vector<std::string> FilesWithSuffix(const std::string& dir, const std::string& suffix) {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (name.size() >= suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0) {
      out.push_back(e.path().string());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Checks the identities stats.h documents, for one set of counters.
inline void ExpectCounterIdentities(const LookupCounters& c, const std::string& where) {
  EXPECT_EQ(c.lookups, c.range_skips + c.run_filter_negatives + c.block_filter_negatives + c.block_reads) << where;
  EXPECT_EQ(c.block_reads, c.hits + c.false_positives) << where;
  EXPECT_LE(c.run_filter_negatives, c.run_filter_checks) << where;
  EXPECT_LE(c.block_filter_negatives, c.block_filter_checks) << where;
}

}  // namespace linebloom::kvstore::testing
