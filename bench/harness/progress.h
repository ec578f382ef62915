// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// A one-line progress bar on stderr, shown only when stderr is a terminal
// and the run has already taken two seconds (short runs stay quiet).

#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace linebloom::harness {

class Progress {
 public:
  // `total` units of work in all; `enabled` false never draws.
  explicit Progress(uint64_t total, bool enabled = true);
  ~Progress();

  void SetPhase(std::string phase);
  void Advance(uint64_t units);
  // Erases the bar (before printing results).
  void Clear();

 private:
  void Draw();

  uint64_t total_, done_ = 0;
  std::string phase_;
  bool enabled_, drawn_ = false;
  std::chrono::steady_clock::time_point start_, last_draw_;
};

}  // namespace linebloom::harness
