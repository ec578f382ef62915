#!/bin/sh
# The end-to-end db_bench benchmark where the filter decides the cost: one
# command per RocksDB version builds what it needs and prints the table.
#
#   bench/rocksdb/e2e_direct.sh 7.8.3     # Debian's RocksDB: /usr/bin/db_bench,
#                                         # sst_dump, ldb; plugin from build/
#   bench/rocksdb/e2e_direct.sh 11.8.1    # the prebuilt 11.8.1 (its bin/ tools);
#                                         # plugin from build-rocksdb11/
#
# usage: e2e_direct.sh [--no-build] 7.8.3|11.8.1 [STAGE] [level_aware_pair.py flags]
# STAGE: run (default), refilter (the same tree again), reads or report, as
# level_aware_pair.py has them; flags given here override the defaults below.
# --no-build uses the built plugin and tools as they are.
# STAGE compact (or compact-report) runs bench/rocksdb/compact_e2e.py
# instead, with the same defaults (readmissing only, work directory
# /tmp/linebloom-compact-e2e-VERSION): RocksDB's Bloom, Ribbon and hybrid
# filters and level-aware linebloom with the compact last level at equal
# filter bytes, on --fill-seeds fills (default 1,2,3), with the CPU of the
# filter builds (docs/bench/compact-e2e.md).
#
# What it measures: absent-key lookups (db_bench readmissing, and
# multireadrandom = batched MultiGet of 32 absent keys) on a multi-level LSM
# tree whose data blocks are NOT in memory, for RocksDB's built-in Bloom
# filter, uniform linebloom and level-aware linebloom, all at 10 bits/key, on
# the very same tree. An absent key is answered by the filters of every
# level (every L0 file) it falls into; each false positive costs an index
# lookup (in memory) and a data block: a block cache hit, or a read from
# storage. So the filters decide how many reads a lookup pays for.
#
# Setup (all in bench/rocksdb/level_aware_pair.py, which this drives):
# - one fillrandom of --num keys into a tree with small write buffers and
#   level_compaction_dynamic_level_bytes, so it holds L0 plus four or more
#   levels; then a copy per configuration whose every SST is rewritten at its
#   own level with that configuration's filter (linebloom-refilter): identical
#   keys per level for every configuration;
# - reads with use_direct_reads=true (no page cache between the block cache
#   and the disk), an LRU block cache of --cache-mb, far smaller than the data
#   (the script prints data size / cache), and filters + indexes held by the
#   table readers (cache_index_and_filter_blocks=false, max_open_files=-1),
#   so data blocks cannot evict them;
# - --repeats runs of each benchmark per configuration, alternating
#   configurations run by run (a shared machine's drift hits all), medians
#   of ops/s; RocksDB's counters per lookup (filter answers, block cache
#   data misses = storage reads, last / non-last level reads, sst read
#   latency), which do not depend on timing; per-level cache hits and misses
#   (perf context); live filter bytes (sst_dump) against the built-in's.
#
# Defaults: --num 4000000 keys written (fillrandom: about 63 % distinct),
#   --value-size 100, --reads 500000 lookups per run, --repeats 5,
#   --cache-mb 1, --write-buffer 262144 (target file size too; level base
#   4 x), --workdir /tmp/linebloom-e2e-VERSION, --configs level_aware,
#   cache_aware,uniform,builtin, --direct-reads (--no-direct-reads: off).
#   Env: BUILD_DIR, JOBS (the build's), LINEBLOOM_SHARED_ROCKSDB.
# Direct reads need a file system with O_DIRECT (not tmpfs): the script
# checks the work directory first and stops if it lacks it.
# Disk: about 5 x the data (the fill + four copies); the fill takes most of
# the run time.
set -eu
usage="usage: $0 [--no-build] 7.8.3|11.8.1 [run|refilter|reads|report] [level_aware_pair.py flags]"
no_build=0
[ "${1:-}" != --no-build ] || { no_build=1; shift; }
version=${1:?$usage}
shift
stage=run
case ${1:-} in run | refilter | reads | report | compact | compact-report) stage=$1; shift ;; esac
root=$(cd "$(dirname "$0")/../.." && pwd)
default_shared=$root/../shared/rocksdb
[ -d "$default_shared" ] || default_shared=/work/shared/rocksdb
shared=${LINEBLOOM_SHARED_ROCKSDB:-$default_shared}
case $version in
  7.8.3 | 7)
    version=7.8.3
    build=${BUILD_DIR:-$root/build}
    cmake_flags=""
    bin=/usr/bin
    ;;
  11.8.1 | 11)
    version=11.8.1
    build=${BUILD_DIR:-$root/build-rocksdb11}
    cmake_flags="-DLINEBLOOM_ROCKSDB_ROOT=$shared/11.8.1"
    bin=$shared/11.8.1/bin
    ;;
  *) echo "$usage" >&2; exit 2 ;;
esac
for tool in db_bench sst_dump ldb; do
  [ -x "$bin/$tool" ] || { echo "no $bin/$tool" >&2; exit 2; }
done

if [ "$no_build" != 1 ]; then
  launcher=""
  if command -v ccache >/dev/null; then launcher=-DCMAKE_CXX_COMPILER_LAUNCHER=ccache; fi
  # shellcheck disable=SC2086  # flag lists
  cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release $cmake_flags $launcher >/dev/null
  cmake --build "$build" -j "${JOBS:-1}" --target linebloom_rocksdb_plugin linebloom-refilter \
    linebloom-level-bound >/dev/null
fi
plugin=$build/integration/rocksdb/liblinebloom_rocksdb.so
[ -r "$plugin" ] || { echo "no plugin at $plugin" >&2; exit 2; }

# The flags this script reads too (the last one given counts, as for the
# pair script).
work=/tmp/linebloom-e2e-$version cache_mb=1 direct=1 prev=""
case $stage in compact*) work=/tmp/linebloom-compact-e2e-$version ;; esac
for arg in "$@"; do
  case $prev in --workdir) work=$arg ;; --cache-mb) cache_mb=$arg ;; esac
  case $arg in
    --workdir=*) work=${arg#*=} ;;
    --cache-mb=*) cache_mb=${arg#*=} ;;
    --direct-reads) direct=1 ;;
    --no-direct-reads) direct=0 ;;
  esac
  prev=$arg
done
mkdir -p "$work"
if [ "$direct" = 1 ]; then
  # O_DIRECT on the work directory's file system? (tmpfs refuses it;
  # RocksDB would fail every read.)
  if ! dd if=/dev/zero of="$work/.direct-probe" bs=4096 count=1 oflag=direct 2>/dev/null; then
    rm -f "$work/.direct-probe"
    echo "work directory $work: its file system does not support O_DIRECT (tmpfs?); choose another" >&2
    exit 3
  fi
  rm -f "$work/.direct-probe"
fi

script=level_aware_pair.py copy=$work/db-builtin
case $stage in
  compact*)
    script=compact_e2e.py copy=$work/fill-1/db-builtin
    [ "$stage" = compact ] && stage=run || stage=report
    set -- --benches readmissing "$@"
    ;;
  *) set -- --benches readmissing,multireadrandom --configs level_aware,cache_aware,uniform,builtin "$@" ;;
esac
set -- --num 4000000 --value-size 100 --reads 500000 --repeats 5 --cache-mb 1 --write-buffer 262144 \
  --direct-reads --workdir "$work" --db-bench "$bin/db_bench" --sst-dump "$bin/sst_dump" --ldb "$bin/ldb" "$@"
echo "RocksDB $version: $bin/db_bench, plugin $plugin ($(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?'))"
echo "$script $stage $*"
python3 "$root/bench/rocksdb/$script" "$stage" "$plugin" "$@"
# The data against the cache: the live SSTs' bytes of one copy.
[ -d "$copy" ] || exit 0
data=$(du -sk --apparent-size "$copy" | cut -f1)
echo
echo "data: $((data / 1024)) MB of SSTs (one copy), block cache $cache_mb MB: $((data / 1024 / cache_mb)) x the cache"
