// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// std::mutex and std::shared_mutex with thread-safety annotations
// (thread_annotations.h), and their scoped locks. libstdc++'s mutexes carry
// none, so clang cannot check LINEBLOOM_GUARDED_BY against them; these
// wrappers add nothing else.
//
//   mutable Mutex mu_;
//   int count_ LINEBLOOM_GUARDED_BY(mu_);
//   ...
//   MutexLock lock(&mu_);
//   ++count_;

#pragma once

#include <mutex>
#include <shared_mutex>

#include "linebloom/foundation/thread_annotations.h"

namespace linebloom {

class LINEBLOOM_CAPABILITY("mutex") Mutex {
 public:
  Mutex() = default;
  Mutex(const Mutex&) = delete;
  Mutex& operator=(const Mutex&) = delete;

  void Lock() LINEBLOOM_ACQUIRE() { mu_.lock(); }
  void Unlock() LINEBLOOM_RELEASE() { mu_.unlock(); }

 private:
  std::mutex mu_;
};

// A reader-writer lock: one writer or any number of readers.
class LINEBLOOM_CAPABILITY("shared mutex") SharedMutex {
 public:
  SharedMutex() = default;
  SharedMutex(const SharedMutex&) = delete;
  SharedMutex& operator=(const SharedMutex&) = delete;

  void Lock() LINEBLOOM_ACQUIRE() { mu_.lock(); }
  void Unlock() LINEBLOOM_RELEASE() { mu_.unlock(); }
  void LockShared() LINEBLOOM_ACQUIRE_SHARED() { mu_.lock_shared(); }
  void UnlockShared() LINEBLOOM_RELEASE_SHARED() { mu_.unlock_shared(); }

 private:
  std::shared_mutex mu_;
};

// Holds `*mu` from construction to destruction.
class LINEBLOOM_SCOPED_CAPABILITY MutexLock {
 public:
  explicit MutexLock(Mutex* mu) LINEBLOOM_ACQUIRE(mu) : mu_(mu) { mu_->Lock(); }
  ~MutexLock() LINEBLOOM_RELEASE() { mu_->Unlock(); }
  MutexLock(const MutexLock&) = delete;
  MutexLock& operator=(const MutexLock&) = delete;

 private:
  Mutex* const mu_;
};

// Holds `*mu` exclusively from construction to destruction.
class LINEBLOOM_SCOPED_CAPABILITY WriterMutexLock {
 public:
  explicit WriterMutexLock(SharedMutex* mu) LINEBLOOM_ACQUIRE(mu) : mu_(mu) { mu_->Lock(); }
  ~WriterMutexLock() LINEBLOOM_RELEASE() { mu_->Unlock(); }
  WriterMutexLock(const WriterMutexLock&) = delete;
  WriterMutexLock& operator=(const WriterMutexLock&) = delete;

 private:
  SharedMutex* const mu_;
};

// Holds `*mu` shared from construction to destruction.
class LINEBLOOM_SCOPED_CAPABILITY ReaderMutexLock {
 public:
  explicit ReaderMutexLock(SharedMutex* mu) LINEBLOOM_ACQUIRE_SHARED(mu) : mu_(mu) { mu_->LockShared(); }
  ~ReaderMutexLock() LINEBLOOM_RELEASE() { mu_->UnlockShared(); }
  ReaderMutexLock(const ReaderMutexLock&) = delete;
  ReaderMutexLock& operator=(const ReaderMutexLock&) = delete;

 private:
  SharedMutex* const mu_;
};

}  // namespace linebloom
