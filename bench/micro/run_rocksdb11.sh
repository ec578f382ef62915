#!/usr/bin/env bash
# linebloom-bench against RocksDB 11.8.1's built-in Bloom filter, AVX2 build
# (the prebuilt in ../shared/rocksdb/11.8.1, -march=haswell), in its own build
# directory. run_full.sh measures against the RocksDB the default build links
# (Debian's 7.8.3, portable); this is the second half of every speed table.
#   bench/micro/run_rocksdb11.sh [linebloom-bench flags]
#   e.g. bench/micro/run_rocksdb11.sh --sizes_mb 1,16,128 --json docs/bench/rocksdb11.json
# Environment: LINEBLOOM_SHARED_ROCKSDB (a directory with 11.8.1/),
# BUILD_DIR (default build-rocksdb11), JOBS (default: all cores).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
default_shared=$root/../shared/rocksdb
[ -d "$default_shared" ] || default_shared=/work/shared/rocksdb
prefix=${LINEBLOOM_SHARED_ROCKSDB:-$default_shared}/11.8.1
if [ ! -f "$prefix/lib/librocksdb.a" ]; then
  echo "no RocksDB 11.8.1 at $prefix (set LINEBLOOM_SHARED_ROCKSDB)" >&2
  exit 2
fi
build=${BUILD_DIR:-$root/build-rocksdb11}
launcher=()
if command -v ccache >/dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
# LINEBLOOM_ROCKSDB_ISA labels the built-in in every ratio: the library does
# not record its -march, and this one is -march=haswell (its README).
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DLINEBLOOM_BUILD_BENCH=ON \
  -DLINEBLOOM_ROCKSDB_ROOT="$prefix" -DLINEBLOOM_ROCKSDB_ISA=AVX2 "${launcher[@]}" >/dev/null
cmake --build "$build" -j "${JOBS:-$(nproc)}" --target linebloom-bench linebloom-query-cost linebloom-small-filters
exec "$build/bench/micro/linebloom-bench" "$@"
