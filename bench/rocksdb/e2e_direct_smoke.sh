#!/bin/sh
# Smoke run of the end-to-end mode of bench/rocksdb/level_aware_pair.py (what
# bench/rocksdb/e2e_direct.sh drives): direct reads, a small block cache,
# readmissing and multireadrandom, two alternating runs per configuration, on
# a tiny DB. Checks what the end-to-end table rests on:
# - the reads really ran with O_DIRECT (the DB's LOG) and the LRU cache size;
# - every benchmark x configuration has a row of two runs;
# - every lookup was of an absent key (true positives 0; multireadrandom asks
#   for 17-byte keys against 16-byte ones) and consulted at least one filter;
# - storage reads happened and the per-level table accounts for the misses.
# Exits 77 (CTest: skipped) if WORKDIR's file system refuses O_DIRECT.
#
# usage: e2e_direct_smoke.sh PLUGIN_SO DB_BENCH LDB SST_DUMP WORKDIR
set -eu
plugin=$1 db_bench=$2 ldb=$3 sst_dump=$4 work=$5
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/bench/rocksdb/direct_probe.sh"
fresh_direct_workdir "$work"
out="$work.out"
python3 "$root/bench/rocksdb/level_aware_pair.py" run "$plugin" --num 20000 --reads 2000 --workdir "$work" \
  --db-bench "$db_bench" --ldb "$ldb" --sst-dump "$sst_dump" \
  --direct-reads --cache-mb 1 --benches readmissing,multireadrandom --repeats 2 >"$out" 2>&1 ||
  { cat "$out"; echo "FAIL: level_aware_pair.py exited with an error"; exit 1; }

fail=0
for config in level_aware uniform builtin; do
  grep -q 'Options.use_direct_reads: 1' "$work/db-$config"/LOG ||
    { echo "FAIL: $config: the reads did not use direct I/O"; fail=1; }
  grep -Eq 'capacity *: *1048576' "$work/db-$config"/LOG ||
    { echo "FAIL: $config: no block cache of 1 MiB in the LOG"; fail=1; }
  for bench in readmissing multireadrandom; do
    # e2e.txt: bench config runs ops useful positive true_pos data_miss ...
    awk -v b=$bench -v c=$config '$1 == b && $2 == c { found = 1
           if ($3 != 2) { print "FAIL: " b " " c ": " $3 " runs, not 2"; bad = 1 }
           if ($4 <= 0) { print "FAIL: " b " " c ": no ops/s"; bad = 1 }
           if ($7 != 0) { print "FAIL: " b " " c ": true positives " $7 " (keys not absent)"; bad = 1 }
           if ($5 + $6 < 0.5) { print "FAIL: " b " " c ": " $5 + $6 " filter checks per lookup"; bad = 1 } }
         END { if (!found) { print "FAIL: no " b " " c " row"; bad = 1 } exit bad }' "$work/e2e.txt" || fail=1
  done
done
# Storage reads happened, and the perf context's per-level misses add up to
# the block cache's data misses of the readmissing runs.
awk '$1 == "readmissing" && $8 > 0 { n++ } END { exit n == 3 ? 0 : 1 }' "$work/e2e.txt" ||
  { echo "FAIL: a configuration read no data block from storage"; fail=1; }
sed -n '/^Per level, readmissing/,/^$/p' "$out" |
  awk -v want="$(awk '$1 == "readmissing" { printf "%s=%s ", $2, $8 }' "$work/e2e.txt")" '
    $2 ~ /^L[0-9]+$/ { miss[$1] += $6 }
    END { m = split(want, w, " "); for (i = 1; i <= m; i++) { split(w[i], kv, "=")
            if (miss[kv[1]] - kv[2] > 1e-4 || kv[2] - miss[kv[1]] > 1e-4) {
              print "FAIL: " kv[1] ": per-level misses " miss[kv[1]] " vs data misses " kv[2]; bad = 1 } }
          exit bad }' || fail=1
sed -n '/^End to end/,$p' "$out"
[ $fail -eq 0 ] && echo "PASS"
exit $fail
