// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.

#include "alloc_tracker.h"

#include <malloc.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <new>

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define LINEBLOOM_TRACK_C_ALLOCATOR 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define LINEBLOOM_TRACK_C_ALLOCATOR 0
#endif
#endif
#ifndef LINEBLOOM_TRACK_C_ALLOCATOR
#define LINEBLOOM_TRACK_C_ALLOCATOR 1
#endif

#if LINEBLOOM_TRACK_C_ALLOCATOR
// glibc's own entry points, so that the replacements below can reach the
// allocator they replace without calling themselves.
extern "C" void* __libc_memalign(size_t alignment, size_t size);
extern "C" void __libc_free(void* p);
#endif

namespace linebloom::bench {
namespace {

std::atomic<size_t> live{0};
std::atomic<size_t> peak{0};

void Count(void* p) {
  const size_t bytes = malloc_usable_size(p);
  const size_t now = live.fetch_add(bytes, std::memory_order_relaxed) + bytes;
  size_t seen = peak.load(std::memory_order_relaxed);
  while (now > seen && !peak.compare_exchange_weak(seen, now, std::memory_order_relaxed)) {
  }
}

void Uncount(void* p) { live.fetch_sub(malloc_usable_size(p), std::memory_order_relaxed); }

#if LINEBLOOM_TRACK_C_ALLOCATOR
void RealFree(void* p) { __libc_free(p); }

// The blocks posix_memalign and aligned_alloc returned and free has not
// yet seen: free must uncount exactly those (operator delete uncounts its
// own, and plain malloc's are never counted). An open-addressing set of
// addresses; a filter build holds a few hundred such blocks at most.
class AlignedBlocks {
 public:
  void Insert(void* p) {
    std::lock_guard<std::mutex> lock(mu_);
    for (size_t i = Slot(p);; i = (i + 1) % kSlots) {
      if (slots_[i] == nullptr || slots_[i] == kTombstone) {
        slots_[i] = p;
        size_.fetch_add(1, std::memory_order_relaxed);
        return;
      }
    }
  }
  // True if `p` was in the set (and removes it).
  bool Erase(void* p) {
    if (size_.load(std::memory_order_relaxed) == 0) return false;
    std::lock_guard<std::mutex> lock(mu_);
    for (size_t i = Slot(p), probes = 0; slots_[i] != nullptr && probes < kSlots; i = (i + 1) % kSlots, ++probes) {
      if (slots_[i] == p) {
        slots_[i] = kTombstone;
        size_.fetch_sub(1, std::memory_order_relaxed);
        return true;
      }
    }
    return false;
  }

 private:
  static constexpr size_t kSlots = size_t{1} << 16;
  inline static void* const kTombstone = reinterpret_cast<void*>(uintptr_t{1});
  static size_t Slot(void* p) { return (reinterpret_cast<uintptr_t>(p) >> 4) * 0x9E3779B97F4A7C15ull >> 48; }
  std::mutex mu_;
  std::atomic<size_t> size_{0};
  void* slots_[kSlots] = {};
};

AlignedBlocks& Aligned() {
  static AlignedBlocks* blocks = new (__libc_memalign(alignof(AlignedBlocks), sizeof(AlignedBlocks))) AlignedBlocks;
  return *blocks;
}
#else
void RealFree(void* p) { std::free(p); }
#endif

void* AllocateCounted(size_t size, size_t alignment, bool nothrow) {
  void* p = nullptr;
  if (alignment <= alignof(std::max_align_t)) {
    p = std::malloc(size == 0 ? 1 : size);
  } else if (posix_memalign(&p, alignment, size == 0 ? 1 : size) != 0) {
    p = nullptr;
  }
#if LINEBLOOM_TRACK_C_ALLOCATOR
  // The posix_memalign above is the counting one: it counted the block.
  if (p != nullptr && alignment > alignof(std::max_align_t)) {
    Aligned().Erase(p);
    return p;
  }
#endif
  if (p == nullptr) {
    if (nothrow) return nullptr;
    throw std::bad_alloc();
  }
  Count(p);
  return p;
}

void FreeCounted(void* p) {
  if (p == nullptr) return;
  Uncount(p);
  RealFree(p);
}

}  // namespace

size_t LiveHeapBytes() { return live.load(std::memory_order_relaxed); }
size_t PeakHeapBytes() { return peak.load(std::memory_order_relaxed); }
void ResetPeakHeapBytes() { peak.store(live.load(std::memory_order_relaxed), std::memory_order_relaxed); }

}  // namespace linebloom::bench

#if LINEBLOOM_TRACK_C_ALLOCATOR
extern "C" int posix_memalign(void** out, size_t alignment, size_t size) {
  if (alignment < sizeof(void*) || (alignment & (alignment - 1)) != 0) return EINVAL;
  void* p = __libc_memalign(alignment, size);
  if (p == nullptr) return ENOMEM;
  linebloom::bench::Count(p);
  linebloom::bench::Aligned().Insert(p);
  *out = p;
  return 0;
}

extern "C" void* aligned_alloc(size_t alignment, size_t size) {
  // C11 allows any power of two; posix_memalign wants a multiple of a pointer.
  if (alignment < sizeof(void*)) alignment = sizeof(void*);
  void* p = nullptr;
  return posix_memalign(&p, alignment, size) == 0 ? p : nullptr;
}

extern "C" void free(void* p) {
  if (p != nullptr && linebloom::bench::Aligned().Erase(p)) linebloom::bench::Uncount(p);
  __libc_free(p);
}
#endif

using linebloom::bench::AllocateCounted;
using linebloom::bench::FreeCounted;

void* operator new(size_t size) { return AllocateCounted(size, 0, false); }
void* operator new[](size_t size) { return AllocateCounted(size, 0, false); }
void* operator new(size_t size, const std::nothrow_t&) noexcept { return AllocateCounted(size, 0, true); }
void* operator new[](size_t size, const std::nothrow_t&) noexcept { return AllocateCounted(size, 0, true); }
void* operator new(size_t size, std::align_val_t a) { return AllocateCounted(size, static_cast<size_t>(a), false); }
void* operator new[](size_t size, std::align_val_t a) { return AllocateCounted(size, static_cast<size_t>(a), false); }
void* operator new(size_t size, std::align_val_t a, const std::nothrow_t&) noexcept {
  return AllocateCounted(size, static_cast<size_t>(a), true);
}
void* operator new[](size_t size, std::align_val_t a, const std::nothrow_t&) noexcept {
  return AllocateCounted(size, static_cast<size_t>(a), true);
}
void operator delete(void* p) noexcept { FreeCounted(p); }
void operator delete[](void* p) noexcept { FreeCounted(p); }
void operator delete(void* p, size_t) noexcept { FreeCounted(p); }
void operator delete[](void* p, size_t) noexcept { FreeCounted(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { FreeCounted(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { FreeCounted(p); }
void operator delete(void* p, std::align_val_t) noexcept { FreeCounted(p); }
void operator delete[](void* p, std::align_val_t) noexcept { FreeCounted(p); }
void operator delete(void* p, size_t, std::align_val_t) noexcept { FreeCounted(p); }
void operator delete[](void* p, size_t, std::align_val_t) noexcept { FreeCounted(p); }
void operator delete(void* p, std::align_val_t, const std::nothrow_t&) noexcept { FreeCounted(p); }
void operator delete[](void* p, std::align_val_t, const std::nothrow_t&) noexcept { FreeCounted(p); }
