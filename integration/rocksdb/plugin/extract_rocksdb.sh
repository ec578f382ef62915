#!/bin/sh
# Extracts the RocksDB 11.8.1 release (with its java/ folder, for RocksJava)
# into DEST, unless DEST already holds it, and links linebloom's plugin
# files into DEST/plugin/linebloom (link_into.sh).
#
# usage: extract_rocksdb.sh DEST
# env: ROCKSDB_TARBALL  (default: src/rocksdb-11.8.1.tar.xz of
#                        $LINEBLOOM_SHARED_ROCKSDB, else of ../shared/rocksdb
#                        beside the checkout, else of /work/shared/rocksdb;
#                        rocksdb-11.8.1-java.tar.xz beside it is extracted too)
set -eu
[ $# -eq 1 ] || { echo "usage: $0 DEST" >&2; exit 2; }
dest=$1
here=$(cd "$(dirname "$0")" && pwd -P)
root=$(cd "$here/../../.." && pwd -P)
version=11.8.1
if [ -z "${ROCKSDB_TARBALL:-}" ]; then
  for shared in ${LINEBLOOM_SHARED_ROCKSDB:+"$LINEBLOOM_SHARED_ROCKSDB"} \
                "$root/../shared/rocksdb" /work/shared/rocksdb; do
    [ -r "$shared/src/rocksdb-$version.tar.xz" ] &&
      { ROCKSDB_TARBALL=$shared/src/rocksdb-$version.tar.xz; break; }
  done
fi
if [ ! -f "$dest/CMakeLists.txt" ]; then
  [ -r "${ROCKSDB_TARBALL:-}" ] ||
    { echo "no RocksDB $version source: set ROCKSDB_TARBALL to rocksdb-$version.tar.xz" >&2; exit 2; }
  echo "extracting $ROCKSDB_TARBALL into $dest"
  rm -rf "$dest.tmp"
  mkdir -p "$dest.tmp"
  tar -xJf "$ROCKSDB_TARBALL" -C "$dest.tmp"
  java_tarball=${ROCKSDB_TARBALL%.tar.xz}-java.tar.xz
  [ ! -r "$java_tarball" ] || tar -xJf "$java_tarball" -C "$dest.tmp"
  mv "$dest.tmp/rocksdb-$version" "$dest"
  rmdir "$dest.tmp"
fi
"$here/link_into.sh" "$dest"
