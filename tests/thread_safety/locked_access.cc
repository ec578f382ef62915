// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// Compiled with clang -Wthread-safety -Werror by CTest: state guarded by a
// Mutex or SharedMutex, touched only under the right lock. It must compile;
// unguarded_access.cc, the same with one lock missing, must not. Together
// they show that the annotations of linebloom/foundation/mutex.h are seen by
// the analysis (an empty macro would let both compile).

#include "linebloom/foundation/mutex.h"

namespace {

class Counter {
 public:
  void Add(int n) LINEBLOOM_EXCLUDES(mu_) {
    linebloom::MutexLock lock(&mu_);
    AddLocked(n);
  }
  int Read() const {
    linebloom::ReaderMutexLock lock(&shared_mu_);
    return copy_;
  }
  void Publish() {
    linebloom::MutexLock lock(&mu_);
    linebloom::WriterMutexLock writer(&shared_mu_);
    copy_ = total_;
  }

 private:
  void AddLocked(int n) LINEBLOOM_REQUIRES(mu_) { total_ += n; }

  mutable linebloom::Mutex mu_;
  int total_ LINEBLOOM_GUARDED_BY(mu_) = 0;
  mutable linebloom::SharedMutex shared_mu_;
  int copy_ LINEBLOOM_GUARDED_BY(shared_mu_) = 0;
};

}  // namespace

int main() {
  Counter c;
  c.Add(2);
  c.Publish();
  return c.Read() == 2 ? 0 : 1;
}
