// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// ForEachOtherKernel(fn): runs fn() once under every probe kernel the CPU
// supports other than the active one, then restores the active kernel, so a
// target can check that all kernels give the same bytes and answers.

#pragma once

#include "fuzz_check.h"
#include "linebloom/kernel.h"

namespace linebloom::fuzz {

inline constexpr Kernel kAllKernels[] = {Kernel::kPortable, Kernel::kAvx2, Kernel::kAvx512};

template <typename Fn>
void ForEachOtherKernel(Fn fn) {
  const Kernel original = ActiveKernel();
  for (Kernel k : kAllKernels) {
    if (k == original || !KernelSupported(k)) continue;
    FUZZ_CHECK(ForceKernel(k), "a supported kernel can be forced");
    FUZZ_CHECK(ActiveKernel() == k, "the forced kernel is active");
    fn();
  }
  ForceKernel(original);
}

}  // namespace linebloom::fuzz
