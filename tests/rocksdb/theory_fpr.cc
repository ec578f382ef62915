// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// Prints the theoretical false-positive rate of a linebloom filter at the
// given bits per key (default 10) with its automatic probe count, for
// scripts that check measured rates (db_bench_smoke.sh).

#include <cstdio>
#include <cstdlib>

#include "linebloom/bloom_math.h"

int main(int argc, char** argv) {
  const double bits = argc > 1 ? std::atof(argv[1]) : 10.0;
  if (!(bits >= 1.0 && bits <= 100.0)) {
    std::fprintf(stderr, "usage: %s [bits_per_key in 1..100]\n", argv[0]);
    return 2;
  }
  std::printf("%.8f\n", linebloom::BlockedFpr(bits, linebloom::OptimalBlockedProbes(bits)));
  return 0;
}
