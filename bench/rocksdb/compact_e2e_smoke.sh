#!/bin/sh
# Smoke run of bench/rocksdb/compact_e2e.py (e2e_direct.sh's compact stage)
# on a tiny DB, one fill: checks that every configuration has a row, that
# the bits-per-key search reached the filter bytes it allows, that the
# refilter timed the builds of every key, and that every lookup was of an
# absent key. Exits 77 (CTest: skipped) if WORKDIR's file system refuses
# O_DIRECT.
#
# usage: compact_e2e_smoke.sh PLUGIN_SO DB_BENCH LDB SST_DUMP WORKDIR
set -eu
plugin=$1 db_bench=$2 ldb=$3 sst_dump=$4 work=$5
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/bench/rocksdb/direct_probe.sh"
fresh_direct_workdir "$work"
out="$work.out"
python3 "$root/bench/rocksdb/compact_e2e.py" run "$plugin" --num 8000 --reads 1000 --value-size 100 \
  --write-buffer 65536 --fill-seeds 1 --repeats 1 --cpu-repeats 1 --passes 2 --tolerance 0.03 --max-off 0.05 \
  --direct-reads --cache-mb 1 --workdir "$work" --db-bench "$db_bench" --ldb "$ldb" --sst-dump "$sst_dump" \
  >"$out" 2>&1 || { cat "$out"; echo "FAIL: compact_e2e.py exited with an error"; exit 1; }

fail=0
fill=$work/fill-1
# compact.txt: config bits bytes fp data_miss ops cpu setup
awk 'NR == FNR { if ($1 == "builtin") ref = $3; next }
     { n++; if ($3 < 0.95 * ref || $3 > 1.05 * ref) { print "FAIL: " $1 ": filter bytes " $3 " vs " ref; bad = 1 }
       if ($6 <= 0) { print "FAIL: " $1 ": no ops/s"; bad = 1 }
       if ($7 <= 0 || $8 < 0 || $8 > $7) { print "FAIL: " $1 ": build cpu " $7 ", setup " $8; bad = 1 } }
     END { if (n != 4) { print "FAIL: " n " configurations, not 4"; bad = 1 } exit bad }' \
  "$fill/compact.txt" "$fill/compact.txt" || fail=1
# The timed passes built a filter for every key of the tree: the refilter's
# own before/after table counts them.
for config in builtin ribbon hybrid la_compact; do
  want=$(awk '$1 ~ /^L[0-9]+$/ { n += $5 } END { print n }' "$fill/build-$config-1.out")
  got=$(sed -n 's/^filter build pass 2: .* filters, \([0-9]*\) keys$/\1/p' "$fill/build-$config-1.out")
  [ "$got" = "$want" ] || { echo "FAIL: $config: the timed pass built $got keys, the tree holds $want"; fail=1; }
  # Of the pass's CPU, the part in Finish is some and not more than all.
  awk -v c=$config '/^filter build pass 2: / { all = $5 } /^filter build pass 2 finish: / { fin = $6; seen = 1 }
       END { if (!seen || fin <= 0 || fin > all) { print "FAIL: " c ": finish " fin " of " all; exit 1 } }' \
    "$fill/build-$config-1.out" || fail=1
  awk -v c=$config '$1 == "readmissing" && $2 == c && $7 != 0 { print "FAIL: " c ": true positives"; exit 1 }' \
    "$fill/e2e.txt" || fail=1
done
grep -q 'compact_from_level=6' "$fill/la_compact-read.OPTIONS" || { echo "FAIL: la_compact's OPTIONS"; fail=1; }
grep -q 'ribbonfilter:[0-9.]*:-1' "$fill/ribbon-read.OPTIONS" || { echo "FAIL: ribbon's OPTIONS"; fail=1; }
sed -n '/^Equal filter bytes/,$p' "$out"
[ $fail -eq 0 ] && echo "PASS"
exit $fail
