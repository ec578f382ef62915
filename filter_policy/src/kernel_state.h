// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// The process-wide kernel choice, read on every query: one relaxed atomic
// load, a branch that is always predicted. Internal header.

#pragma once

#include <atomic>

namespace linebloom::internal {

extern std::atomic<bool> use_avx2;

inline bool UseAvx2() { return use_avx2.load(std::memory_order_relaxed); }

}  // namespace linebloom::internal
