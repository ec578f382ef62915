// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// Which probe kernel answers queries. The kernel is chosen once, at start-up,
// from the CPU (the widest one it supports) unless the environment variable
// LINEBLOOM_KERNEL names one ("portable", "avx2", "avx512"). Every kernel reads and
// writes the same bytes: a filter built under one answers identically under
// another.

#pragma once

namespace linebloom {

enum class Kernel {
  kPortable,  // plain C++, one probe at a time with early exit
  kAvx2,      // x86-64 AVX2 (+BMI2): 8 probes per instruction, no branch per probe
  kAvx512,    // x86-64 AVX-512F: the block in one register, 16 probes per instruction
};

bool KernelSupported(Kernel kernel);
Kernel ActiveKernel();
const char* KernelName(Kernel kernel);
// For tests and benchmarks: switches every reader in the process to
// `kernel`. Returns false (and changes nothing) if the CPU lacks it. Not meant
// to race with queries in production, though doing so is memory-safe.
bool ForceKernel(Kernel kernel);

}  // namespace linebloom
