#!/usr/bin/env bash
# Configures and builds the libFuzzer targets with clang-14 in build-fuzz/
# (override with FUZZ_BUILD_DIR). Prints nothing but errors.
# Usage: tests/fuzz/build.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${FUZZ_BUILD_DIR:-$root/build-fuzz}
# No test suites or benches. RelWithDebInfo (-O2 -g): fast enough to fuzz,
# and readable stack traces. This is also CI's clang build of the libraries:
# with clang, CMakeLists.txt adds -Wthread-safety -Werror=thread-safety, so
# the lock annotations of the key-value store and the RocksDB policy are
# checked here (the targets list names the libraries so that they are
# compiled even where no fuzzer needs them).
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_COMPILER=clang++-14 -DLINEBLOOM_FUZZ=ON \
  -DLINEBLOOM_BUILD_TESTS=OFF -DLINEBLOOM_BUILD_BENCH=OFF -DLINEBLOOM_BUILD_ROCKSDB=ON >/dev/null
cmake --build "$build" -j "${JOBS:-2}" --target fuzz_targets linebloom_sstable linebloom_kvstore linebloom_rocksdb >/dev/null
