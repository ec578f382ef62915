// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// Clang's thread-safety annotations
// (https://clang.llvm.org/docs/ThreadSafetyAnalysis.html): the lock rules of
// shared state, written where the state is declared and checked at compile
// time by clang's -Wthread-safety (CI's clang build makes a violation an
// error). Other compilers ignore them.
//
// Prefixed with LINEBLOOM_ because this header is installed: unprefixed
// names would collide with other libraries' definitions of the same macros.

#pragma once

#if defined(__clang__)
#define LINEBLOOM_THREAD_ANNOTATION(x) __attribute__((x))
#else
#define LINEBLOOM_THREAD_ANNOTATION(x)
#endif

// On a class: its objects are locks ("capabilities") named `x` in messages.
#define LINEBLOOM_CAPABILITY(x) LINEBLOOM_THREAD_ANNOTATION(capability(x))
// On a class: an RAII object that holds a lock for its lifetime.
#define LINEBLOOM_SCOPED_CAPABILITY LINEBLOOM_THREAD_ANNOTATION(scoped_lockable)

// On a data member: read or written only with `x` held (reads: at least
// shared).
#define LINEBLOOM_GUARDED_BY(x) LINEBLOOM_THREAD_ANNOTATION(guarded_by(x))
// On a pointer member: the pointee is guarded by `x` (the pointer is not).
#define LINEBLOOM_PT_GUARDED_BY(x) LINEBLOOM_THREAD_ANNOTATION(pt_guarded_by(x))

// On a function: the caller must hold the locks (exclusively / at least
// shared), or must not hold them (the function takes them itself).
#define LINEBLOOM_REQUIRES(...)        LINEBLOOM_THREAD_ANNOTATION(requires_capability(__VA_ARGS__))
#define LINEBLOOM_REQUIRES_SHARED(...) LINEBLOOM_THREAD_ANNOTATION(requires_shared_capability(__VA_ARGS__))
#define LINEBLOOM_EXCLUDES(...)        LINEBLOOM_THREAD_ANNOTATION(locks_excluded(__VA_ARGS__))

// On a function: it takes or releases the lock (exclusively / shared).
#define LINEBLOOM_ACQUIRE(...)        LINEBLOOM_THREAD_ANNOTATION(acquire_capability(__VA_ARGS__))
#define LINEBLOOM_ACQUIRE_SHARED(...) LINEBLOOM_THREAD_ANNOTATION(acquire_shared_capability(__VA_ARGS__))
#define LINEBLOOM_RELEASE(...)        LINEBLOOM_THREAD_ANNOTATION(release_capability(__VA_ARGS__))
#define LINEBLOOM_RELEASE_SHARED(...) LINEBLOOM_THREAD_ANNOTATION(release_shared_capability(__VA_ARGS__))
