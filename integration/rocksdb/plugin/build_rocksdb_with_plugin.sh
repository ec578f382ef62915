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
#      ROCKSDB_TARBALL  (default: src/rocksdb-11.8.1.tar.xz of
#                        $LINEBLOOM_SHARED_ROCKSDB, else of ../shared/rocksdb
#                        beside the checkout, else of /work/shared/rocksdb)
#      JOBS             (parallel compile jobs, default: number of CPUs)
#      CHECK_DIR        (scratch DB for the check, default $CACHE/plugin-check)
set -eu
here=$(cd "$(dirname "$0")" && pwd -P)
root=$(cd "$here/../../.." && pwd -P)
version=11.8.1
cache=${LINEBLOOM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/linebloom}
src=$cache/rocksdb-$version-src
build=$cache/rocksdb-$version-build
check=${CHECK_DIR:-$cache/plugin-check}
jobs=${JOBS:-$(nproc)}

if [ -z "${ROCKSDB_TARBALL:-}" ]; then
  for shared in ${LINEBLOOM_SHARED_ROCKSDB:+"$LINEBLOOM_SHARED_ROCKSDB"} \
                "$root/../shared/rocksdb" /work/shared/rocksdb; do
    [ -r "$shared/src/rocksdb-$version.tar.xz" ] &&
      { ROCKSDB_TARBALL=$shared/src/rocksdb-$version.tar.xz; break; }
  done
fi

mkdir -p "$cache"
if [ ! -f "$src/CMakeLists.txt" ]; then
  [ -r "${ROCKSDB_TARBALL:-}" ] ||
    { echo "no RocksDB $version source: set ROCKSDB_TARBALL to rocksdb-$version.tar.xz" >&2; exit 2; }
  echo "extracting $ROCKSDB_TARBALL into $src"
  rm -rf "$src.tmp"
  mkdir -p "$src.tmp"
  tar -xJf "$ROCKSDB_TARBALL" -C "$src.tmp"
  mv "$src.tmp/rocksdb-$version" "$src"
  rmdir "$src.tmp"
fi

# The plugin folder as RocksDB expects it, of symlinks, so the build always
# compiles this checkout's sources.
"$here/link_into.sh" "$src"

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

# The check. No preload: linebloom must come from the tools themselves.
unset LD_PRELOAD
rm -rf "$check"
mkdir -p "$check"
out=$check/db_bench.out
num=20000
"$build/db_bench" --db="$check/db" --options_file="$root/bench/rocksdb/linebloom.OPTIONS" \
  --benchmarks=fillrandom,compact,readmissing --statistics --num=$num --seed=1 --threads=1 \
  >"$out" 2>&1 || { tail -n 30 "$out"; echo "FAIL: db_bench exited with an error"; exit 1; }
ticker() { awk -v name="$1" '$1 == name && $2 == "COUNT" { c = $4 } END { print c + 0 }' "$out"; }
useful=$(ticker rocksdb.bloom.filter.useful)
positive=$(ticker rocksdb.bloom.filter.full.positive)
grep -E '^(RocksDB:|readmissing)' "$out"
echo "rocksdb.bloom.filter.useful=$useful rocksdb.bloom.filter.full.positive=$positive"
fail=0
[ "$useful" -gt $((num * 9 / 10)) ] ||
  { echo "FAIL: the filters answered only $useful of $num missing-key lookups"; fail=1; }
grep -q 'filter_policy={id=linebloom;' "$check"/db/OPTIONS-* ||
  { echo "FAIL: the DB's OPTIONS file does not name linebloom"; fail=1; }
# RocksDB's CMake build puts sst_dump and ldb in tools/.
sst_dump=$build/tools/sst_dump
[ -x "$sst_dump" ] || sst_dump=$build/sst_dump
for sst in "$check"/db/*.sst; do
  "$sst_dump" --file="$sst" --show_properties 2>&1 | grep 'filter policy name' | sed "s|^ *|$(basename "$sst"): |"
  "$sst_dump" --file="$sst" --show_properties 2>&1 | grep -q 'filter policy name: linebloom' ||
    { echo "FAIL: $sst has no linebloom filter"; fail=1; }
done
[ $fail -eq 0 ] || exit 1
echo "PASS: $build/db_bench and $sst_dump use linebloom with no preload"
