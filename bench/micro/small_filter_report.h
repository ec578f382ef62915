// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// The cells linebloom-small-filters times (one metric at one number of
// keys per filter and one working set, every repetition of both filters)
// and their report: per cell the median over repetitions of the ratio
// plugin / built-in taken within each repetition, as Markdown tables, and
// every timing as JSON.

#pragma once

#include <cstdio>
#include <string>
#include <vector>

namespace linebloom::bench {

// Side 0 is linebloom's plugin, side 1 RocksDB's built-in filter (Bloom,
// or Ribbon against the plugin's compact filter).
struct SmallFilterCell {
  std::string metric;  // build, build_one_builder (ns/key), neg, pos (ns/query), batch<n> (ns/key)
  size_t keys_per_filter = 0;
  double working_set_mb = 0;  // as asked; 0 for build
  size_t num_filters = 0;
  double bytes[2] = {0, 0};            // of the filters queried
  double false_positives[2] = {0, 0};  // neg: true answers / queries
  std::vector<double> ns[2];           // one per repetition
};

class SmallFilterReport {
 public:
  // `plugin_label` names the plugin's filter kind, `builtin_label` the
  // built-in (BuiltinLabel()).
  SmallFilterReport(std::string plugin_label, std::string builtin_label, std::string kernel, size_t key_length,
                    double bits_per_key, int reps)
      : plugin_label_(std::move(plugin_label)),
        builtin_label_(std::move(builtin_label)),
        kernel_(std::move(kernel)),
        key_length_(key_length),
        bits_per_key_(bits_per_key),
        reps_(reps) {}

  void Add(SmallFilterCell cell) { cells_.push_back(std::move(cell)); }
  size_t size() const { return cells_.size(); }

  void Print(FILE* out) const;
  bool WriteJson(const std::string& path) const;

 private:
  const SmallFilterCell* Find(size_t keys_per_filter, const std::string& metric, double working_set_mb) const;
  void PrintBuild(FILE* out) const;
  void PrintQueries(FILE* out) const;
  void PrintSummary(FILE* out) const;

  std::string plugin_label_, builtin_label_, kernel_;
  size_t key_length_;
  double bits_per_key_;
  int reps_;
  std::vector<SmallFilterCell> cells_;
};

}  // namespace linebloom::bench
