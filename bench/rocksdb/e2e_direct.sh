#!/bin/sh
# The end-to-end db_bench benchmark where the filter decides the cost: one
# command per RocksDB version builds what it needs and prints the table.
#
#   bench/rocksdb/e2e_direct.sh 7.8.3     # Debian's RocksDB: /usr/bin/db_bench,
#                                         # sst_dump, ldb; plugin from build/
#   bench/rocksdb/e2e_direct.sh 11.8.1    # the prebuilt 11.8.1 (its bin/ tools);
#                                         # plugin from build-rocksdb11/
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
# Setup (all in bench/rocksdb/level_aware_pair.sh, which this drives):
# - one fillrandom of NUM keys into a tree with small write buffers and
#   level_compaction_dynamic_level_bytes, so it holds L0 plus four or more
#   levels; then a copy per configuration whose every SST is rewritten at its
#   own level with that configuration's filter (linebloom-refilter): identical
#   keys per level for every configuration;
# - reads with use_direct_reads=true (no page cache between the block cache
#   and the disk), an LRU block cache of CACHE_MB, far smaller than the data
#   (the script prints data size / cache), and filters + indexes held by the
#   table readers (cache_index_and_filter_blocks=false, max_open_files=-1),
#   so data blocks cannot evict them;
# - REPEATS runs of each benchmark per configuration, alternating
#   configurations run by run (a shared machine's drift hits all), medians
#   of ops/s; RocksDB's counters per lookup (filter answers, block cache
#   data misses = storage reads, last / non-last level reads, sst read
#   latency), which do not depend on timing; per-level cache hits and misses
#   (perf context); live filter bytes (sst_dump) against the built-in's.
#
# env (defaults in brackets): NUM [4000000] keys written (fillrandom: about
#   63 % distinct), VALUE_SIZE [100], READS [500000] lookups per run,
#   REPEATS [5], CACHE_MB [1], WRITE_BUFFER [262144] (target file size too;
#   level base 4 x), WORKDIR [/tmp/linebloom-e2e-VERSION], BUILD_DIR,
#   CONFIGS [level_aware cache_aware uniform builtin], PASSES, LA_BITS,
#   LA_OPTIONS, REUSE_FILL=1 (see level_aware_pair.sh), NO_BUILD=1 (use the
#   built plugin and tools as they are), DIRECT_READS [1].
# Direct reads need a file system with O_DIRECT (not tmpfs): the script
# checks WORKDIR first and stops if it lacks it.
# Disk: about 5 x the data (the fill + four copies); the fill takes most of
# the run time.
set -eu
version=${1:?usage: $0 7.8.3|11.8.1}
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
  *) echo "usage: $0 7.8.3|11.8.1" >&2; exit 2 ;;
esac
for tool in db_bench sst_dump ldb; do
  [ -x "$bin/$tool" ] || { echo "no $bin/$tool" >&2; exit 2; }
done

if [ "${NO_BUILD:-0}" != 1 ]; then
  launcher=""
  if command -v ccache >/dev/null; then launcher=-DCMAKE_CXX_COMPILER_LAUNCHER=ccache; fi
  # shellcheck disable=SC2086  # flag lists
  cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release $cmake_flags $launcher >/dev/null
  cmake --build "$build" -j "${JOBS:-1}" --target linebloom_rocksdb_plugin linebloom-refilter \
    linebloom-level-bound >/dev/null
fi
plugin=$build/integration/rocksdb/liblinebloom_rocksdb.so
[ -r "$plugin" ] || { echo "no plugin at $plugin" >&2; exit 2; }

work=${WORKDIR:-/tmp/linebloom-e2e-$version}
direct=${DIRECT_READS:-1}
mkdir -p "$work"
if [ "$direct" = 1 ]; then
  # O_DIRECT on WORKDIR's file system? (tmpfs refuses it; RocksDB would
  # fail every read.)
  if ! dd if=/dev/zero of="$work/.direct-probe" bs=4096 count=1 oflag=direct 2>/dev/null; then
    rm -f "$work/.direct-probe"
    echo "WORKDIR $work: its file system does not support O_DIRECT (tmpfs?); choose another" >&2
    exit 3
  fi
  rm -f "$work/.direct-probe"
fi

num=${NUM:-4000000}
write_buffer=${WRITE_BUFFER:-262144}
export NUM="$num" VALUE_SIZE="${VALUE_SIZE:-100}" READS="${READS:-500000}" REPEATS="${REPEATS:-5}"
export CACHE_MB="${CACHE_MB:-1}" WRITE_BUFFER="$write_buffer" TARGET_FILE="${TARGET_FILE:-$write_buffer}"
export LEVEL_BASE="${LEVEL_BASE:-$((4 * write_buffer))}" DIRECT_READS="$direct"
export BENCHES="${BENCHES:-readmissing multireadrandom}" WORKDIR="$work"
export CONFIGS="${CONFIGS:-level_aware cache_aware uniform builtin}"
export DB_BENCH="$bin/db_bench" SST_DUMP="$bin/sst_dump" LDB="$bin/ldb"
export REFILTER="$build/integration/rocksdb/tools/linebloom-refilter"
export LEVEL_BOUND="$build/integration/rocksdb/tools/linebloom-level-bound"

echo "RocksDB $version: $DB_BENCH, plugin $plugin ($(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?'))"
echo "NUM=$NUM VALUE_SIZE=$VALUE_SIZE READS=$READS REPEATS=$REPEATS CACHE_MB=$CACHE_MB" \
  "WRITE_BUFFER=$WRITE_BUFFER LEVEL_BASE=$LEVEL_BASE DIRECT_READS=$DIRECT_READS WORKDIR=$work"
sh "$root/bench/rocksdb/level_aware_pair.sh" "$plugin"
# The data against the cache: the live SSTs' bytes of one copy.
data=$(du -sk --apparent-size "$work/db-builtin" | awk '{ print $1 }')
echo
echo "data: $((data / 1024)) MB of SSTs (one copy), block cache $CACHE_MB MB: $((data / 1024 / CACHE_MB)) x the cache"
