#!/bin/sh
# Smoke run of bench/rocksdb/level_aware_pair.py (the level-aware comparison
# script) on a small DB, so it cannot rot: one fill, three refiltered copies,
# readmissing on each. Checks what the comparison rests on: every copy holds
# exactly the fill's data (ldb scan identical), every SST of a copy carries
# its configuration's filter, and the report has a row per configuration.
#
# usage: level_aware_pair_smoke.sh PLUGIN_SO DB_BENCH LDB SST_DUMP WORKDIR
set -eu
plugin=$1 db_bench=$2 ldb=$3 sst_dump=$4 work=$5
root=$(cd "$(dirname "$0")/../.." && pwd)
rm -rf "$work"
out="$work.out"
python3 "$root/bench/rocksdb/level_aware_pair.py" run "$plugin" --num 20000 --reads 2000 --workdir "$work" \
  --db-bench "$db_bench" --ldb "$ldb" --sst-dump "$sst_dump" >"$out" 2>&1 ||
  { cat "$out"; echo "FAIL: level_aware_pair.py exited with an error"; exit 1; }

fail=0
scan() { LD_PRELOAD="$plugin" "$ldb" --db="$1" --hex scan </dev/null 2>&1; }
scan "$work/db-fill" >"$work/scan-fill.txt"
# fillrandom draws keys with repeats: ~63 % of 20 000 are distinct.
[ "$(wc -l <"$work/scan-fill.txt")" -ge 10000 ] || { echo "FAIL: the fill holds too few keys"; fail=1; }
for config in level_aware uniform builtin; do
  scan "$work/db-$config" | cmp -s - "$work/scan-fill.txt" ||
    { echo "FAIL: $config: the refiltered copy's data differ from the fill's"; fail=1; }
  case $config in builtin) want=bloomfilter ;; *) want=linebloom ;; esac
  for sst in "$work/db-$config"/*.sst; do
    LD_PRELOAD="$plugin" "$sst_dump" --file="$sst" --show_properties </dev/null 2>&1 |
      grep -q "filter policy name: $want" || { echo "FAIL: $sst lacks a $want filter"; fail=1; }
  done
  grep -q "^$config " "$work/summary.txt" || { echo "FAIL: no $config row in the totals"; fail=1; }
done
sed -n '/^Totals/,$p' "$out"
[ $fail -eq 0 ] && echo "PASS"
exit $fail
