// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.

#include "progress.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>

namespace linebloom::harness {

using Clock = std::chrono::steady_clock;

Progress::Progress(uint64_t total, bool enabled)
    : total_(std::max<uint64_t>(total, 1)), enabled_(enabled && ::isatty(STDERR_FILENO) == 1), start_(Clock::now()) {}

Progress::~Progress() { Clear(); }

void Progress::SetPhase(std::string phase) {
  phase_ = std::move(phase);
  Draw();
}

void Progress::Advance(uint64_t units) {
  done_ += units;
  Draw();
}

void Progress::Draw() {
  if (!enabled_) return;
  const auto now = Clock::now();
  if (now - start_ < std::chrono::seconds(2) || now - last_draw_ < std::chrono::milliseconds(100)) return;
  last_draw_ = now;
  constexpr int kWidth = 30;
  const double f = std::min(1.0, static_cast<double>(done_) / total_);
  const int filled = static_cast<int>(f * kWidth);
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  std::fprintf(stderr, "\r[%.*s%*s] %3.0f%% %5.1fs  %-40.40s", filled, "##############################",
               kWidth - filled, "", 100 * f, elapsed, phase_.c_str());
  std::fflush(stderr);
  drawn_ = true;
}

void Progress::Clear() {
  if (!drawn_) return;
  std::fprintf(stderr, "\r%*s\r", 90, "");
  std::fflush(stderr);
  drawn_ = false;
}

}  // namespace linebloom::harness
