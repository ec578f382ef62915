#!/usr/bin/env bash
# Compile-only check of the RocksDB plugin against RocksDB releases that are
# not linked and run here: for each header set (public include/ plus that
# release's table/block_based/filter_policy_internal.h),
#   1. the FilterBitsBuilder/FilterBitsReader that filter_bits.h declares for
#      that release has the same virtual functions in the same order as
#      RocksDB's own declaration (the vtable layout RocksDB calls through);
#   2. every plugin source, the API shims and testing/policy_filter_builder.h compile
#      against it with filter_bits.h's declaration, and the sources that
#      implement the builder and readers also with RocksDB's own internal
#      header (-DLINEBLOOM_ROCKSDB_INTERNAL_HEADER, as inside RocksDB's
#      tree); with RocksDB's warning flags, as errors.
#
# usage: compile_check.sh HEADERS_DIR [SOURCE_TARBALL]
#   HEADERS_DIR     holds <version>/include and <version>/table/... per release
#   SOURCE_TARBALL  optional RocksDB source tarball: its public headers are in
#                   the tree's include/ and its internal header is checked too
# env: CXX (default g++), JOBS (parallel compiles, default nproc)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cxx=${CXX:-g++}

# --compile MODE SET FILE: one syntax-only compile (run in parallel below).
if [ "${1:-}" = --compile ]; then
  mode=$2 set=$3 src=$4
  # RocksDB's own warning flags (it builds plugin sources with them, as errors).
  flags=(-std=c++20 -fsyntax-only -Wall -Wextra -Werror -fno-rtti -Wsign-compare -Wshadow
         -Wno-unused-parameter -Woverloaded-virtual -Wnon-virtual-dtor
         -I "$set/include" -I "$root/integration/rocksdb/include" -I "$root/integration/rocksdb/testing"
         -I "$root/integration/rocksdb/src" -I "$root/filter_policy/include" -I "$root/filter_policy/src"
         -I "$root/filter_policy/foundation/include")
  [ "$mode" = internal ] && flags+=(-DLINEBLOOM_ROCKSDB_INTERNAL_HEADER -I "$set")
  case $src in
    *.h) file=(-x c++ -); input="#include \"$src\"" ;;
    *) file=("$src"); input="" ;;
  esac
  if ! err=$(echo "$input" | "$cxx" "${flags[@]}" "${file[@]}" 2>&1); then
    echo "FAIL $(basename "$set") ($mode): $(basename "$src")"
    echo "$err" | head -20
    exit 1
  fi
  exit 0
fi
headers=${1:?usage: $0 HEADERS_DIR [SOURCE_TARBALL]}
tarball=${2:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

sets=()
for dir in "$headers"/*/; do
  [ -f "$dir/include/rocksdb/version.h" ] && sets+=("${dir%/}")
done
if [ -n "$tarball" ]; then
  tar -xJf "$tarball" -C "$work" --wildcards '*/include/rocksdb/*' \
    '*/table/block_based/filter_policy_internal.h'
  for dir in "$work"/*/; do sets+=("${dir%/}"); done
fi
((${#sets[@]})) || { echo "compile_check: no header sets under $headers" >&2; exit 1; }

# The virtual functions of class $2 in header $1 (preprocessed with the
# include path $3), one "name(parameter types)" per line, in order.
virtuals() {
  local header=$1 class=$2 include=$3
  "$cxx" -std=c++20 -E -P -I "$include" -I "$root/integration/rocksdb/include" "$header" 2>/dev/null |
    awk -v class="$class" '
      $0 ~ "^class " class " *\\{" { inside = 1; next }
      inside && /^};/ { inside = 0; finished = 1 }
      inside && !finished { print }' |
    tr '\n' ' ' | sed 's/{[^{}]*}/;/g; s/{[^{}]*}/;/g' | tr ';' '\n' |
    grep -o 'virtual[^=]*(.*)' |
    sed -E 's/virtual +//; s/\/\*[^*]*\*\///g; s/[[:space:]]+/ /g; s/ ?([(),*&]) ?/\1/g' |
    sed -E 's/([*&])[a-z_]+([,)])/\1\2/g; s/([A-Za-z_:<>]) [a-z_]+([,)])/\1\2/g; s/ *(const|override)? *$//'
}

fail=0
for set in "${sets[@]}"; do
  version=$(awk '/define ROCKSDB_(MAJOR|MINOR|PATCH) /{v = v (v ? "." : "") $3} END {print v}' \
    "$set/include/rocksdb/version.h")
  internal=$set/table/block_based/filter_policy_internal.h
  for class in FilterBitsBuilder FilterBitsReader; do
    ours=$(virtuals "$root/integration/rocksdb/include/linebloom/rocksdb/filter_bits.h" "$class" "$set/include")
    theirs=$(virtuals "$internal" "$class" "$set/include")
    if [ -z "$ours" ] || [ "$ours" != "$theirs" ]; then
      echo "FAIL $version: $class differs from RocksDB's declaration"
      diff <(echo "$theirs") <(echo "$ours") || true
      fail=1
    fi
  done
  # One compile per line: mode, file. The internal-header mode needs only
  # the sources that implement FilterBitsBuilder/FilterBitsReader.
  for src in "$root"/integration/rocksdb/src/*.cc linebloom/rocksdb/api_shims.h \
             linebloom/rocksdb/testing/policy_filter_builder.h; do
    echo "declared $set $src"
  done >"$work/jobs"
  for src in bits_builder.cc bits_readers.cc compact_bits_builder.cc compact_bits_reader.cc level_aware_adapter.cc; do
    echo "internal $set $root/integration/rocksdb/src/$src"
  done >>"$work/jobs"
  if ! xargs -P "${JOBS:-$(nproc)}" -L 1 "$0" --compile <"$work/jobs"; then fail=1; fi
  [ $fail -eq 0 ] && echo "ok $version: layout matches RocksDB's; plugin compiles (declared and internal header)"
done
exit $fail
