// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// Compiled with clang -Wthread-safety -Werror by CTest, which expects the
// compilation to fail: AddLocked's caller does not hold mu_ (see
// locked_access.cc, where it does).

#include "linebloom/foundation/mutex.h"

namespace {

class Counter {
 public:
  void Add(int n) { AddLocked(n); }

 private:
  void AddLocked(int n) LINEBLOOM_REQUIRES(mu_) { total_ += n; }

  linebloom::Mutex mu_;
  int total_ LINEBLOOM_GUARDED_BY(mu_) = 0;
};

}  // namespace

int main() {
  Counter c;
  c.Add(2);
  return 0;
}
