#!/usr/bin/env bash
# The rocksdb11 stage of tests/run.sh: the plugin's whole RocksDB suite
# (ctest -L rocksdb) built and run against the prebuilt RocksDB 11.8.1, its
# db_bench/sst_dump/ldb included, then the compile-only check against every
# header set (compile_check.sh) and the plan of RocksDB's make build with
# the plugin (plugin_make_check.sh). Own build directory; only the plugin and its
# tests are built (benchmarks off).
#
# Where RocksDB comes from: $LINEBLOOM_SHARED_ROCKSDB (default ../shared/rocksdb
# beside the checkout, else /work/shared/rocksdb) with 11.8.1/ (prefix: include/, lib/librocksdb.a,
# bin/), headers/<version>/ and src/rocksdb-11.8.1.tar.xz. Without it the
# stage says so and skips, unless CI=true: then it fails.
#
# usage: stage_rocksdb11.sh BUILD_DIR JOBS
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:?usage: $0 BUILD_DIR JOBS}
jobs=${2:-$(nproc)}
default_shared=$root/../shared/rocksdb
[ -d "$default_shared" ] || default_shared=/work/shared/rocksdb
shared=${LINEBLOOM_SHARED_ROCKSDB:-$default_shared}
prefix=$shared/11.8.1

if [ ! -f "$prefix/lib/librocksdb.a" ] || [ ! -d "$shared/headers" ]; then
  if [ "${CI:-}" = true ]; then
    echo "FAIL rocksdb11: no RocksDB 11.8.1 at $prefix or no header sets at $shared/headers" \
         "(CI=true requires them; set LINEBLOOM_SHARED_ROCKSDB)" >&2
    exit 1
  fi
  echo "SKIP rocksdb11: no prebuilt RocksDB 11.8.1 at $prefix (or no $shared/headers);" \
       "the plugin is tested against the system RocksDB only. Set LINEBLOOM_SHARED_ROCKSDB" \
       "to a directory with 11.8.1/ and headers/ to run this stage."
  exit 0
fi

launcher=()
if command -v ccache >/dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DLINEBLOOM_BUILD_BENCH=OFF \
  -DLINEBLOOM_ROCKSDB_ROOT="$prefix" "${launcher[@]}" >/dev/null
# The tests labelled rocksdb, after building what they run: the label's
# aggregate target rocksdb_tests (cmake/LinebloomTesting.cmake).
cmake --build "$build" -j "$jobs" --target rocksdb_tests
ctest --test-dir "$build" -L rocksdb --output-on-failure -j "$jobs"

tarball=$shared/src/rocksdb-11.8.1.tar.xz
[ -f "$tarball" ] || tarball=""
JOBS=$jobs "$root/tests/rocksdb/compile_check.sh" "$shared/headers" $tarball
if [ -n "$tarball" ]; then
  "$root/tests/rocksdb/plugin_make_check.sh" "$tarball" "$build/plugin-make-check"
fi
