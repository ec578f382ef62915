// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.

#include "compact_planes.h"

#include <atomic>

namespace linebloom::internal::compact {
namespace {
std::atomic<bool> vpclmul_enabled{true};
}  // namespace

bool CompactAvx512Supported() {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  static const bool supported = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                                __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vbmi") &&
                                __builtin_cpu_supports("avx512vbmi2") && __builtin_cpu_supports("avx512vpopcntdq") &&
                                __builtin_cpu_supports("bmi2");
  return supported;
#else
  return false;
#endif
}

bool CompactAvx2Supported() {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  static const bool supported = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("pclmul") &&
                                __builtin_cpu_supports("popcnt") && __builtin_cpu_supports("bmi") &&
                                __builtin_cpu_supports("bmi2");
  return supported;
#else
  return false;
#endif
}

bool CompactVpclmulSupported() {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  static const bool supported = CompactAvx2Supported() && __builtin_cpu_supports("vpclmulqdq");
  return supported && vpclmul_enabled.load(std::memory_order_relaxed);
#else
  return false;
#endif
}

void EnableCompactVpclmulForTesting(bool enabled) { vpclmul_enabled.store(enabled, std::memory_order_relaxed); }

}  // namespace linebloom::internal::compact
