#!/bin/sh
# Runs the stock RocksDB db_bench with liblinebloom_rocksdb.so preloaded and
# checks, from db_bench's own statistics and sst_dump, that linebloom filters
# were built, named, and used at the theoretical false-positive rate.
#
# usage: db_bench_smoke.sh DB_BENCH SST_DUMP PLUGIN_SO OPTIONS_FILE THEORY_FPR_TOOL WORKDIR
set -eu
db_bench=$1 sst_dump=$2 plugin=$3 options=$4 theory_tool=$5 work=$6
num=20000

rm -rf "$work"
mkdir -p "$work"
out="$work/db_bench.out"

LD_PRELOAD="$plugin" "$db_bench" --db="$work/db" --options_file="$options" \
  --benchmarks=fillrandom,compact,readmissing --statistics --num=$num --seed=1 \
  --threads=1 >"$out" 2>&1 || { cat "$out"; echo "FAIL: db_bench exited with an error"; exit 1; }

ticker() { awk -v name="$1" '$1 == name && $2 == "COUNT" { print $4 }' "$out"; }
useful=$(ticker rocksdb.bloom.filter.useful)
positive=$(ticker rocksdb.bloom.filter.full.positive)
true_positive=$(ticker rocksdb.bloom.filter.full.true.positive)
grep -E '^readmissing' "$out"
echo "bloom.filter.useful=$useful full.positive=$positive full.true.positive=$true_positive"

fail=0
# The OPTIONS file RocksDB wrote names the policy (so the plugin was loaded
# and parsed the options file; without it RocksDB silently drops the filter).
if ! grep -q 'filter_policy={id=linebloom;' "$work"/db/OPTIONS-*; then
  grep filter_policy "$work"/db/OPTIONS-* || true
  echo "FAIL: the DB's OPTIONS file does not name the linebloom policy"; fail=1
fi
# Every SST was built with a linebloom filter.
for sst in "$work"/db/*.sst; do
  props=$("$sst_dump" --file="$sst" --show_properties 2>&1)
  echo "$props" | grep -q 'filter policy name: linebloom' ||
    { echo "$props"; echo "FAIL: $sst has no linebloom filter"; fail=1; }
  entries=$(echo "$props" | awk -F': ' '/# entries for filter/ { print $2 }')
  [ "${entries:-0}" -gt 0 ] || { echo "FAIL: $sst: empty filter"; fail=1; }
done
# readmissing consulted the filters (keys past the last SST's range consult
# none, so allow a few) and measured the theoretical rate within 4.5 binomial
# standard deviations plus 3 %.
theory=$("$theory_tool" 10)
awk -v u="$useful" -v p="$positive" -v tp="$true_positive" -v n=$num -v t="$theory" 'BEGIN {
  checks = u + p
  if (checks < 0.9 * n) { printf "FAIL: only %d of %d lookups consulted a filter\n", checks, n; exit 1 }
  if (tp != 0) { print "FAIL: readmissing found keys"; exit 1 }
  fpr = p / checks
  tol = 4.5 * sqrt(t * (1 - t) / checks) + 0.03 * t
  printf "measured FPR %.4f %% over %d lookups, theory %.4f %% +- %.4f %%\n", 100 * fpr, checks, 100 * t, 100 * tol
  if (fpr < t - tol || fpr > t + tol) { print "FAIL: false-positive rate off theory"; exit 1 }
}' || fail=1

[ $fail -eq 0 ] && echo "PASS"
exit $fail
