#!/bin/sh
# Makes <rocksdb>/plugin/linebloom a folder of symlinks to this folder's
# files, the way RocksDB's CMake and make builds both take the plugin (a
# symlink to the whole folder would make RocksDB's make write its objects
# into this checkout).
#
# usage: integration/rocksdb/plugin/link_into.sh <rocksdb source tree>
set -eu
[ $# -eq 1 ] && [ -f "$1/Makefile" ] && [ -d "$1/plugin" ] ||
  { echo "usage: $0 <rocksdb source tree>" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd -P)
target=$1/plugin/linebloom
[ -L "$target" ] && rm "$target"
mkdir -p "$target"
for f in linebloom.mk CMakeLists.txt linebloom_register.cc; do
  ln -sfn "$here/$f" "$target/$f"
done
echo "$target -> $here (linebloom.mk, CMakeLists.txt, linebloom_register.cc)"
