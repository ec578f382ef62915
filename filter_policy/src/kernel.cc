// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.

#include "linebloom/kernel.h"

#include <cstdlib>
#include <cstring>

#include "kernel_state.h"

namespace linebloom {
namespace internal {

static Kernel DetectKernel() {
  const char* forced = std::getenv("LINEBLOOM_KERNEL");
  if (forced != nullptr) {
    if (std::strcmp(forced, "portable") == 0) return Kernel::kPortable;
    if (std::strcmp(forced, "avx2") == 0 && KernelSupported(Kernel::kAvx2)) return Kernel::kAvx2;
    if (std::strcmp(forced, "avx512") == 0 && KernelSupported(Kernel::kAvx512)) return Kernel::kAvx512;
  }
  if (KernelSupported(Kernel::kAvx512)) return Kernel::kAvx512;
  return KernelSupported(Kernel::kAvx2) ? Kernel::kAvx2 : Kernel::kPortable;
}

std::atomic<Kernel> active_kernel{DetectKernel()};

}  // namespace internal

bool KernelSupported(Kernel kernel) {
  switch (kernel) {
    case Kernel::kPortable: return true;
    case Kernel::kAvx2:
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
      // The AVX2 build loop also uses BMI2 (shlx); every AVX2 CPU has it.
      return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi2");
#else
      return false;
#endif
    case Kernel::kAvx512:
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
      return KernelSupported(Kernel::kAvx2) && __builtin_cpu_supports("avx512f");
#else
      return false;
#endif
  }
  return false;
}

Kernel ActiveKernel() { return internal::CurrentKernel(); }

const char* KernelName(Kernel kernel) {
  switch (kernel) {
    case Kernel::kPortable: return "portable";
    case Kernel::kAvx2: return "avx2";
    case Kernel::kAvx512: return "avx512";
  }
  return "unknown";
}

bool ForceKernel(Kernel kernel) {
  if (!KernelSupported(kernel)) return false;
  internal::active_kernel.store(kernel, std::memory_order_relaxed);
  return true;
}

}  // namespace linebloom
