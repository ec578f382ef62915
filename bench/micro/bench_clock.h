// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// The wall clock the micro benchmarks time with: steady (never set back),
// in nanoseconds as a double, so differences of two readings are timings.

#pragma once

#include <chrono>

namespace linebloom::bench {

inline double NowNs() {
  return std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace linebloom::bench
