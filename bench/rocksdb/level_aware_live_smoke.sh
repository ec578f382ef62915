#!/bin/sh
# Smoke run of bench/rocksdb/level_aware_live.py on a small DB, so it cannot
# rot: the level-aware policy and its listener through db_bench's fill and
# overwrites, the live tree refiltered with uniform linebloom and with the
# built-in, readmissing on each, and the score against the tree's bound.
# Checks that the listener was named in the live DB's options, that the
# report has a row per configuration with filter bytes and false positives,
# and that the score line was printed.
#
# usage: level_aware_live_smoke.sh PLUGIN_SO DB_BENCH LDB SST_DUMP REFILTER LEVEL_BOUND WORKDIR
set -eu
plugin=$1 db_bench=$2 ldb=$3 sst_dump=$4 refilter=$5 level_bound=$6 work=$7
root=$(cd "$(dirname "$0")/../.." && pwd)
rm -rf "$work"
out="$work.out"
python3 "$root/bench/rocksdb/level_aware_live.py" run "$plugin" --num 100000 --reads 20000 --workdir "$work" \
  --db-bench "$db_bench" --ldb "$ldb" --sst-dump "$sst_dump" --refilter "$refilter" --level-bound "$level_bound" \
  >"$out" 2>&1 || { cat "$out"; echo "FAIL: level_aware_live.py exited with an error"; exit 1; }

fail=0
grep -q 'listeners={id=linebloom_level_aware}' "$work/live.OPTIONS" ||
  { echo "FAIL: the live DB's options do not name the listener"; fail=1; }
for config in live uniform builtin; do
  # config filter_B builtin_fml x_fml checks/lk fp fp/lookup
  awk -v c="$config" '$1 == c && NF == 7 && $2 > 0 && $7 ~ /^[0-9.]+$/ { found = 1 } END { exit !found }' "$out" ||
    { echo "FAIL: no $config row with filter bytes and false positives"; fail=1; }
done
grep -q 'score: reduction' "$out" || { echo "FAIL: no score against the tree's bound"; fail=1; }
sed -n '/^readmissing, /,$p' "$out"
[ $fail -eq 0 ] && echo "PASS"
exit $fail
