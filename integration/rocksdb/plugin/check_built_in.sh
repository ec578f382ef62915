#!/bin/sh
# Checks a db_bench and sst_dump that have linebloom built into their RocksDB
# (no LD_PRELOAD anywhere): db_bench fills a DB whose OPTIONS file names
# linebloom, compacts it and looks up missing keys; the filters must reject
# nearly all of them, the DB's OPTIONS file must name linebloom, and sst_dump
# must name it as every SST's filter policy.
#
# usage: check_built_in.sh DB_BENCH SST_DUMP SCRATCH_DIR
set -eu
[ $# -eq 3 ] || { echo "usage: $0 DB_BENCH SST_DUMP SCRATCH_DIR" >&2; exit 2; }
db_bench=$1
sst_dump=$2
check=$3
root=$(cd "$(dirname "$0")/../../.." && pwd -P)
unset LD_PRELOAD
rm -rf "$check"
mkdir -p "$check"
out=$check/db_bench.out
num=20000
"$db_bench" --db="$check/db" --options_file="$root/bench/rocksdb/linebloom.OPTIONS" \
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
for sst in "$check"/db/*.sst; do
  name=$("$sst_dump" --file="$sst" --show_properties 2>&1 | grep 'filter policy name' | sed 's/^ *//' || true)
  echo "$(basename "$sst"): $name"
  case $name in
    *'filter policy name: linebloom'*) ;;
    *) echo "FAIL: $sst has no linebloom filter"; fail=1 ;;
  esac
done
[ $fail -eq 0 ] || exit 1
echo "PASS: $db_bench and $sst_dump use linebloom with no preload"
