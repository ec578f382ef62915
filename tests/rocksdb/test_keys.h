// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// Deterministic keys for the RocksDB tests and the binomial tolerance their
// false-positive checks use.

#pragma once

#include <cmath>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

namespace linebloom::rocksdb_plugin::testing {

// 16-byte key number i: "key" + 13 digits. Even i are the present keys, odd
// i the absent ones, so absent keys fall inside every file's key range and
// each absent lookup really consults a filter.
inline std::string Key(size_t i) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "key%013zu", i);
  return std::string(buf, 16);
}

inline std::vector<std::string> Keys(size_t first, size_t count, size_t step) {
  std::vector<std::string> keys;
  keys.reserve(count);
  for (size_t i = 0; i < count; ++i) keys.push_back(Key(first + i * step));
  return keys;
}

inline std::vector<std::string_view> Views(const std::vector<std::string>& keys) { return {keys.begin(), keys.end()}; }

// |measured - theory| allowed for `trials` Bernoulli(theory) trials: 4.5
// binomial standard deviations (a fixed-seed test then fails by chance with
// probability < 1e-5) plus `model_slack` * theory for what the formula leaves
// out (whole-block rounding of the filter size, partition boundaries).
inline double FprTolerance(double theory, size_t trials, double model_slack = 0.03) {
  return 4.5 * std::sqrt(theory * (1 - theory) / static_cast<double>(trials)) + model_slack * theory;
}

}  // namespace linebloom::rocksdb_plugin::testing
