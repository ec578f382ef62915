// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// Collects Google Benchmark results by (metric, size, filter) and prints
// each as a ratio to the reference filter and to the memory baselines of
// the same size, measured in the same run.

#pragma once

#include <benchmark/benchmark.h>

#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

namespace linebloom::bench {

inline constexpr const char* kBuiltinName = "rocksdb-bloom";

inline std::string FormatSize(double size_mb) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%gMB", size_mb);
  return buf;
}

struct FilterQuality {
  double fpr = 0;
  double bits_per_key = 0;
  size_t bytes = 0;
};

class RatioReport {
 public:
  // `reference_label` says which built-in the reference filter is (version
  // and instruction set, BuiltinLabel()); every ratio is printed with it.
  RatioReport(std::string reference, std::string reference_label, std::string memory)
      : reference_(std::move(reference)), reference_label_(std::move(reference_label)), memory_(std::move(memory)) {}

  void SetQuality(const std::string& filter, double size_mb, FilterQuality q) { quality_[{size_mb, filter}] = q; }
  // ns: per key for build and batches, per query for single queries, per
  // read for the memory baselines.
  void Add(const std::string& metric, const std::string& filter, double size_mb, double ns) {
    ns_[{size_mb, metric, filter}] = ns;
    sizes_[size_mb] = true;
    if (filter != memory_) filters_.insert(filter);
  }

  void Print(FILE* out) const;
  bool WriteJson(const std::string& path) const;

 private:
  double Get(double size, const std::string& metric, const std::string& filter) const {
    auto it = ns_.find({size, metric, filter});
    return it == ns_.end() ? 0 : it->second;
  }
  std::string reference_, reference_label_, memory_;
  std::map<std::tuple<double, std::string, std::string>, double> ns_;
  std::map<std::pair<double, std::string>, FilterQuality> quality_;
  std::map<double, bool> sizes_;
  std::set<std::string> filters_;
};

// A console reporter that also feeds every plain (non-aggregate) run into a
// RatioReport.
class CollectingReporter : public benchmark::ConsoleReporter {
 public:
  explicit CollectingReporter(RatioReport& report) : report_(report) {}
  void ReportRuns(const std::vector<Run>& runs) override;

 private:
  RatioReport& report_;
};

}  // namespace linebloom::bench
