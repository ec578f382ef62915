// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// FUZZ_CHECK(condition, what): a property a fuzz target asserts. A failure
// prints what broke and aborts, which libFuzzer records as a crash and saves
// the input (assert() would vanish in a release build).

#pragma once

#include <cstdio>
#include <cstdlib>

#define FUZZ_CHECK(condition, what)                                                                      \
  do {                                                                                                   \
    if (!(condition)) {                                                                                  \
      std::fprintf(stderr, "%s:%d: property violated: %s (%s)\n", __FILE__, __LINE__, what, #condition); \
      std::abort();                                                                                      \
    }                                                                                                    \
  } while (0)
