// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// ForEachOtherKernel(fn): runs fn() once under every probe kernel the CPU
// supports other than the active one, then restores the active kernel, so a
// target can check that all kernels give the same bytes and answers. A no-op
// until linebloom/kernel.h exists; picks up Kernel::kAvx512 when it appears.

#pragma once

#if __has_include("linebloom/kernel.h")
#include <vector>

#include "fuzz_check.h"
#include "linebloom/kernel.h"

namespace linebloom::fuzz {

template <typename K>
std::vector<K> AllKernels() {
  std::vector<K> kernels{K::kPortable, K::kAvx2};
  if constexpr (requires { K::kAvx512; }) kernels.push_back(K::kAvx512);
  return kernels;
}

template <typename Fn>
void ForEachOtherKernel(Fn fn) {
  const Kernel original = ActiveKernel();
  for (Kernel k : AllKernels<Kernel>()) {
    if (k == original || !KernelSupported(k)) continue;
    FUZZ_CHECK(ForceKernel(k), "a supported kernel can be forced");
    FUZZ_CHECK(ActiveKernel() == k, "the forced kernel is active");
    fn();
  }
  ForceKernel(original);
}

}  // namespace linebloom::fuzz

#else

namespace linebloom::fuzz {
template <typename Fn>
void ForEachOtherKernel(Fn) {}
}  // namespace linebloom::fuzz

#endif
