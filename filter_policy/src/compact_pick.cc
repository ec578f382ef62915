// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.

#include "compact_pick.h"

#include <bit>

#include "kernel_state.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace linebloom::internal::compact {
namespace {

size_t PickRangePortable(const uint64_t* hashes, size_t count, uint64_t low, uint64_t last, uint64_t* out) {
  size_t n = 0;
  for (size_t i = 0; i < count; ++i) {
    out[n] = hashes[i];
    n += (hashes[i] - low) <= last;
  }
  return n;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
// The loop above, eight hashes at a time: the compress goes to a register
// and a full store (a compressing store to memory is slow on some CPUs),
// hence the 8 slots of room after the last.
__attribute__((target("avx512f"))) size_t PickRangeAvx512(const uint64_t* hashes, size_t count, uint64_t low,
                                                          uint64_t last, uint64_t* out) {
  const __m512i vlow = _mm512_set1_epi64(static_cast<long long>(low));
  const __m512i vlast = _mm512_set1_epi64(static_cast<long long>(last));
  size_t n = 0, i = 0;
  for (; i + 8 <= count; i += 8) {
    const __m512i h = _mm512_loadu_si512(hashes + i);
    const __mmask8 in = _mm512_cmple_epu64_mask(_mm512_sub_epi64(h, vlow), vlast);
    _mm512_storeu_si512(out + n, _mm512_maskz_compress_epi64(in, h));
    n += static_cast<size_t>(std::popcount(static_cast<unsigned>(in)));
  }
  return n + PickRangePortable(hashes + i, count - i, low, last, out + n);
}
#endif

}  // namespace

size_t PickRange(const uint64_t* hashes, size_t count, uint64_t low, uint64_t last, uint64_t* out) {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  if (CurrentKernel() == Kernel::kAvx512) return PickRangeAvx512(hashes, count, low, last, out);
#endif
  return PickRangePortable(hashes, count, low, last, out);
}

}  // namespace linebloom::internal::compact
