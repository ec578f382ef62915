// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// A rocksdb::Logger that keeps every line, so tests can count what the
// linebloom policy reported.

#pragma once

#include <cstdarg>
#include <cstdio>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include <rocksdb/env.h>

namespace linebloom::rocksdb_plugin::testing {

class CapturingLogger : public ::rocksdb::Logger {
 public:
  CapturingLogger() : Logger(::rocksdb::InfoLogLevel::INFO_LEVEL) {}

  using ::rocksdb::Logger::Logv;
  void Logv(const char* format, va_list ap) override {
    char buf[2048];
    std::vsnprintf(buf, sizeof buf, format, ap);
    std::lock_guard<std::mutex> lock(mutex_);
    lines_.emplace_back(buf);
  }

  // Lines containing `needle`.
  std::vector<std::string> Matching(std::string_view needle) const {
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<std::string> out;
    for (const auto& line : lines_) {
      if (line.find(needle) != std::string::npos) out.push_back(line);
    }
    return out;
  }

 private:
  mutable std::mutex mutex_;
  std::vector<std::string> lines_;
};

}  // namespace linebloom::rocksdb_plugin::testing
