#!/bin/sh
# Builds RocksDB 11.8.1 with linebloom inside it (RocksDB's plugin mechanism,
# -DROCKSDB_PLUGINS=linebloom) and checks, with no LD_PRELOAD anywhere, that
# the resulting db_bench builds and uses linebloom filters from an OPTIONS
# file and that sst_dump names the policy.
#
# The source tree and the build are cached per machine, outside the checkout:
#   $CACHE/rocksdb-11.8.1-src    the extracted release, plugin/linebloom
#                                symlinks to this folder's files
#   $CACHE/rocksdb-11.8.1-build  the CMake build (library and tools)
# The first build of RocksDB takes about 45 minutes on 2 cores, and adding
# the plugin to a build made without it rebuilds everything once (its flags
# land in flags.make, on which every object depends); later runs recompile
# only changed plugin sources and RocksDB's build_version.cc.
#
# usage: integration/rocksdb/plugin/build_rocksdb_with_plugin.sh
# env: LINEBLOOM_CACHE  (default ${XDG_CACHE_HOME:-$HOME/.cache}/linebloom)
#      ROCKSDB_TARBALL  (the release's source, see extract_rocksdb.sh)
#      JOBS             (parallel compile jobs, default: number of CPUs)
#      CHECK_DIR        (scratch DB for the check, default $CACHE/plugin-check)
set -eu
here=$(cd "$(dirname "$0")" && pwd -P)
version=11.8.1
cache=${LINEBLOOM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/linebloom}
src=$cache/rocksdb-$version-src
build=$cache/rocksdb-$version-build
check=${CHECK_DIR:-$cache/plugin-check}
jobs=${JOBS:-$(nproc)}

mkdir -p "$cache"
"$here/extract_rocksdb.sh" "$src"

# Exactly the configuration of the prebuilt 11.8.1 (AVX2: -march=haswell), so
# RocksDB's built-in filter in these tools is the same as there.
cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=Release -DPORTABLE=haswell \
  -DWITH_TESTS=OFF -DWITH_BENCHMARK_TOOLS=ON -DWITH_CORE_TOOLS=ON -DWITH_TOOLS=ON \
  -DWITH_TRACE_TOOLS=OFF -DWITH_LZ4=ON -DWITH_LIBURING=OFF -DWITH_GFLAGS=ON \
  -DFAIL_ON_WARNINGS=OFF -DROCKSDB_BUILD_SHARED=OFF -DCMAKE_EXE_LINKER_FLAGS=-rdynamic \
  -DROCKSDB_PLUGINS=linebloom >"$cache/plugin-configure.log" 2>&1 ||
  { tail -n 30 "$cache/plugin-configure.log"; echo "FAIL: configuring RocksDB with the plugin"; exit 1; }
grep 'linebloom plugin:' "$cache/plugin-configure.log"
cmake --build "$build" -j"$jobs" --target rocksdb db_bench sst_dump ldb db_stress

# RocksDB's CMake build puts sst_dump and ldb in tools/.
sst_dump=$build/tools/sst_dump
[ -x "$sst_dump" ] || sst_dump=$build/sst_dump
"$here/check_built_in.sh" "$build/db_bench" "$sst_dump" "$check"
