#!/bin/sh
# Builds RocksDB 11.8.1 with linebloom inside it through RocksDB's Makefile
# (make ROCKSDB_PLUGINS=linebloom) and checks the result, with no LD_PRELOAD:
#   tools  db_bench and sst_dump, checked by check_built_in.sh (linebloom
#          from an OPTIONS file);
#   java   RocksJava (make rocksdbjava), checked by the RocksJava program
#          tests/rocksjava/LinebloomRocksJava.java;
#   all    both (the default).
#
# Cached per machine, outside the checkout: $CACHE/rocksdb-11.8.1-make is the
# extracted release and its make build. One compile of RocksDB serves both
# targets: make rocksdbjava compiles position-independent objects into jl/,
# and the tools are built from the same objects (OBJ_DIR=jl LIB_MODE=shared)
# as librocksdb.so. The first run compiles RocksDB (see docs/BINDINGS.md for
# the time it took); later runs recompile only changed linebloom sources.
#
# usage: integration/rocksdb/plugin/build_rocksdb_make.sh [tools|java|all]
# env: LINEBLOOM_CACHE  (default ${XDG_CACHE_HOME:-$HOME/.cache}/linebloom)
#      ROCKSDB_TARBALL  (the release's source, see extract_rocksdb.sh)
#      JOBS             (parallel compile jobs, default: number of CPUs)
#      JAVA_HOME        (default: the JDK of the PATH's javac)
set -eu
what=${1:-all}
case $what in tools|java|all) ;; *) echo "usage: $0 [tools|java|all]" >&2; exit 2 ;; esac
here=$(cd "$(dirname "$0")" && pwd -P)
root=$(cd "$here/../../.." && pwd -P)
cache=${LINEBLOOM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/linebloom}
src=$cache/rocksdb-11.8.1-make
jobs=${JOBS:-$(nproc)}

# RocksJava's build compiles RocksJava's own tests too, against JUnit,
# Hamcrest, Mockito, cglib and AssertJ; Debian's stand in for the jars it
# would download (java/test-libs, named as java/Makefile expects).
"$root/tests/deps.sh" libgflags-dev default-jdk-headless \
  junit4 libhamcrest-java libmockito-java libcglib-java libassertj-core-java
mkdir -p "$cache"
"$here/extract_rocksdb.sh" "$src"
cd "$src"
make_rocksdb() {
  make -j"$jobs" ROCKSDB_PLUGINS=linebloom DEBUG_LEVEL=0 PORTABLE=haswell \
    OBJ_DIR=jl LIB_MODE=shared "$@"
}

if [ "$what" != java ]; then
  make_rocksdb db_bench sst_dump
  "$here/check_built_in.sh" "$src/db_bench" "$src/sst_dump" "$cache/make-check"
fi

if [ "$what" != tools ]; then
  export JAVA_HOME=${JAVA_HOME:-$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")}
  libs=java/test-libs
  mkdir -p $libs
  for jar in junit4:junit-4.13.1 hamcrest:hamcrest-2.2 mockito-core:mockito-all-1.10.19 \
             cglib:cglib-3.3.0 assertj-core:assertj-core-2.9.0; do
    [ -f "$libs/${jar#*:}.jar" ] || cp "/usr/share/java/${jar%%:*}.jar" "$libs/${jar#*:}.jar"
  done
  touch $libs/*.jar  # not older than the folder, or make would fetch them
  make_rocksdb rocksdbjava
  jar=$(ls java/target/rocksdbjni-*-linux64.jar | head -n 1)
  classes=$cache/rocksjava-check/classes
  rm -rf "$cache/rocksjava-check"
  mkdir -p "$classes"
  "$JAVA_HOME/bin/javac" -cp "$jar" -d "$classes" "$root/tests/rocksjava/LinebloomRocksJava.java"
  "$JAVA_HOME/bin/java" -cp "$jar:$classes" LinebloomRocksJava \
    "$root/bench/rocksdb/linebloom.OPTIONS" "$cache/rocksjava-check/db"
  echo "PASS: RocksJava ($jar) uses linebloom with no preload"
fi
