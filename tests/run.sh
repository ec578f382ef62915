#!/usr/bin/env bash
# The test command (CI runs exactly this): installs dependencies, then
#   0. format:   every .cc/.h as .clang-format says (tests/check_format.sh),
#                and the size limits of files, functions and header comments
#                in the libraries (tests/check_size.py, its own unit tests
#                first; known violations: tests/size_allowlist.txt);
#   1. core:     the core library alone (the filter and the level-aware
#                planner), configured without RocksDB, the micro-SSTable or
#                the store, and its tests (own build directory);
#   2. release:  builds everything (Release) and runs every CTest test,
#                including the benchmark and harness smoke runs;
#   3. rocksdb11: the RocksDB plugin's suite (ctest -L rocksdb) against the
#                prebuilt RocksDB 11.8.1, a compile-only check against
#                every RocksDB header set and the plan of RocksDB's make
#                build with the plugin (tests/rocksdb/stage_rocksdb11.sh;
#                own build directory; skipped with a message where
#                /work/shared/rocksdb is missing, a failure then under CI=true);
#   4. sanitize: the whole suite under AddressSanitizer+UndefinedBehavior-
#                Sanitizer, the concurrency tests under ThreadSanitizer
#                (tests/sanitize.sh, own build directories);
#   5. fuzz:     each libFuzzer target for FUZZ_SECONDS (default 20) from its
#                committed corpus (tests/fuzz/smoke.sh).
# Usage: tests/run.sh [stage...]   (default: format core release rocksdb11 sanitize fuzz)
# Env: BUILD_DIR (default build/), JOBS (default nproc), FUZZ_SECONDS,
#      LINEBLOOM_SHARED_ROCKSDB (default /work/shared/rocksdb), CI.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/tests/deps.sh"
build=${BUILD_DIR:-$root/build}
jobs=${JOBS:-$(nproc)}
stages=("$@")
if ((${#stages[@]} == 0)); then stages=(format core release rocksdb11 sanitize fuzz); fi

for stage in "${stages[@]}"; do
  echo "=== tests/run.sh: $stage ($(date -u +%H:%M:%S))"
  case $stage in
    format)
      "$root/tests/check_format.sh"
      python3 "$root/tests/check_size_test.py"
      python3 "$root/tests/check_size.py"
      ;;
    core)
      cmake -S "$root" -B "$build-core" -DCMAKE_BUILD_TYPE=Release -DLINEBLOOM_BUILD_ROCKSDB=OFF \
        -DLINEBLOOM_BUILD_SSTABLE=OFF -DLINEBLOOM_BUILD_KVSTORE=OFF -DLINEBLOOM_BUILD_BENCH=OFF >/dev/null
      cmake --build "$build-core" -j "$jobs"
      ctest --test-dir "$build-core" --output-on-failure -j "$jobs"
      ;;
    release)
      cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
      cmake --build "$build" -j "$jobs"
      ctest --test-dir "$build" --output-on-failure -j "$jobs"
      ;;
    rocksdb11) "$root/tests/rocksdb/stage_rocksdb11.sh" "$build-rocksdb11" "$jobs" ;;
    sanitize) JOBS=$jobs "$root/tests/sanitize.sh" all ;;
    fuzz) "$root/tests/fuzz/smoke.sh" "${FUZZ_SECONDS:-20}" ;;
    *) echo "unknown stage '$stage' (format, core, release, rocksdb11, sanitize, fuzz)" >&2; exit 2 ;;
  esac
done
echo "=== tests/run.sh: all stages passed ($(date -u +%H:%M:%S))"
