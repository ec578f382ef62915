// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// The process-wide kernel choice, read on every query: one relaxed atomic
// load, a branch that is always predicted. Internal header.

#pragma once

#include <atomic>

#include "linebloom/kernel.h"

namespace linebloom::internal {

extern std::atomic<Kernel> active_kernel;

inline Kernel CurrentKernel() { return active_kernel.load(std::memory_order_relaxed); }

// The AVX-512 kernel builds with the AVX2 kernel's (BMI2) loop: only its
// probe differs. True only where the CPU has AVX2 and BMI2: a kernel other
// than the portable one is active only where KernelSupported says so, and
// the AVX-512 kernel requires the AVX2 kernel's support.
inline bool UseAvx2Build() { return CurrentKernel() != Kernel::kPortable; }

}  // namespace linebloom::internal
