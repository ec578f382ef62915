#!/usr/bin/env bash
# RocksDB's make build with linebloom inside it, checked without compiling
# RocksDB (make -n): on a fresh source tree with plugin/linebloom made by
# link_into.sh, make ROCKSDB_PLUGINS=linebloom plans to compile every
# linebloom source (every .cc of the folders plugin/source_dirs.txt names:
# the core, its foundation, the adapter but self_register.cc; and
# linebloom_register.cc) into
# plugin/linebloom/checkout/ of RocksDB's tree, links them into librocksdb,
# and names linebloom_register in build_version.cc; and with plugin/linebloom
# a symlink to the whole folder, make stops with linebloom's message. The
# real build is integration/rocksdb/plugin/build_rocksdb_make.sh.
#
# usage: plugin_make_check.sh SOURCE_TARBALL WORK_DIR
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd -P)
tarball=${1:?usage: $0 SOURCE_TARBALL WORK_DIR}
work=${2:?usage: $0 SOURCE_TARBALL WORK_DIR}
rm -rf "$work"
mkdir -p "$work"
tar -xJf "$tarball" -C "$work"
tree=$(echo "$work"/rocksdb-*)
"$root/integration/rocksdb/plugin/link_into.sh" "$tree" >/dev/null
plan=$work/plan.txt
make -C "$tree" -n SKIP_DEPENDS=1 ROCKSDB_PLUGINS=linebloom DEBUG_LEVEL=0 static_lib >"$plan" 2>&1 ||
  { tail -n 20 "$plan"; echo "FAIL: make -n with the plugin"; exit 1; }

fail=0
expected=$( (while read -r dir; do ls "$root/$dir"/*.cc; done <"$root/integration/rocksdb/plugin/source_dirs.txt" |
               grep -v '/self_register\.cc$'
             echo "$root/integration/rocksdb/plugin/linebloom_register.cc") | sort)
planned=$(grep -oE -- "-c $root/[^ ]+\.cc -o [^ ]+" "$plan" | awk '{ print $2 }' | sort -u)
if [ "$planned" != "$expected" ]; then
  echo "FAIL: make plans these linebloom sources:"; echo "$planned"
  echo "expected:"; echo "$expected"; fail=1
fi
outside=$(grep -oE -- "-c $root/[^ ]+\.cc -o [^ ]+" "$plan" | awk '{ print $4 }' |
          grep -v '^\./plugin/linebloom/checkout/\|^plugin/linebloom/checkout/' || true)
[ -z "$outside" ] || { echo "FAIL: objects outside plugin/linebloom/checkout/: $outside"; fail=1; }
grep -q 'plugin/linebloom/checkout/integration/rocksdb/plugin/linebloom_register\.o' "$plan" ||
  { echo "FAIL: the registrar's object is not in the plan"; fail=1; }
grep -q 'linebloom_register' <(grep -F 'build_version.cc' "$plan") ||
  { echo "FAIL: build_version.cc does not name linebloom_register"; fail=1; }

rm -r "$tree/plugin/linebloom"
ln -s "$root/integration/rocksdb/plugin" "$tree/plugin/linebloom"
if make -C "$tree" -n SKIP_DEPENDS=1 ROCKSDB_PLUGINS=linebloom DEBUG_LEVEL=0 static_lib \
     >"$work/symlinked.txt" 2>&1; then
  echo "FAIL: make accepted plugin/linebloom as a symlink to the checkout's folder"; fail=1
fi
grep -q 'make it a folder of symlinks' "$work/symlinked.txt" ||
  { echo "FAIL: no linebloom message for a symlinked folder"; fail=1; }
[ $fail -eq 0 ] || exit 1
echo "PASS: make ROCKSDB_PLUGINS=linebloom plans $(echo "$planned" | wc -l) linebloom objects inside RocksDB's tree"
