// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// The end of a benchmark that collects a report: print its tables, and its
// JSON to a file if one was asked for.

#pragma once

#include <cstdio>
#include <string>

namespace linebloom::bench {

// Prints `report` (Print(FILE*)) to stdout and, with a `json_path`, writes
// its WriteJson there. Returns main's exit code.
template <typename Report>
int PrintReport(const Report& report, const std::string& json_path) {
  report.Print(stdout);
  if (!json_path.empty() && !report.WriteJson(json_path)) {
    std::fprintf(stderr, "cannot write %s\n", json_path.c_str());
    return 1;
  }
  return 0;
}

}  // namespace linebloom::bench
