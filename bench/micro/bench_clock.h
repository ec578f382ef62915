// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// The wall clock the micro benchmarks time with: steady (never set back),
// in nanoseconds as a double, so differences of two readings are timings;
// and the loop that times queries with it, one at a time or each alone.

#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace linebloom::bench {

inline double NowNs() {
  return std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Waits for every earlier instruction to complete, loads included, before
// any later one starts (LFENCE; elsewhere a full fence, which orders memory
// but may let the next query's work begin).
inline void SerializeExecution() {
#if defined(__x86_64__)
  _mm_lfence();
#else
  std::atomic_thread_fence(std::memory_order_seq_cst);
#endif
}

// How many of `items` query(item) answers true for; kFenced:
// SerializeExecution after each query, so none overlaps the next (each
// query alone: its latency) where without it the processor overlaps the
// independent queries' cache misses.
template <bool kFenced, class Items, class Query>
uint64_t CountYes(const Items& items, const Query& query) {
  uint64_t yes = 0;
  for (const auto& item : items) {
    yes += query(item) ? 1 : 0;
    if constexpr (kFenced) SerializeExecution();
  }
  return yes;
}

// CountYes's time per item in nanoseconds; its count is added to *sink, which
// keeps the answers live.
template <bool kFenced, class Items, class Query>
double NsPerQuery(const Items& items, const Query& query, uint64_t* sink) {
  const double start = NowNs();
  const uint64_t yes = CountYes<kFenced>(items, query);
  const double ns = (NowNs() - start) / static_cast<double>(items.size());
  *sink += yes;
  return ns;
}

}  // namespace linebloom::bench
