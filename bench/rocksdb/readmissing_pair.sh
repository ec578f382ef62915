#!/bin/sh
# db_bench readmissing, linebloom vs RocksDB's built-in Bloom filter, both at
# 10 bits/key (builtin.OPTIONS = bloomfilter:10 at format_version 5, i.e.
# what -bloom_bits=10 builds), with otherwise identical OPTIONS files.
#
# Each policy gets its own DB (fillrandom, then flush and compact with waits
# for background work, so both DBs end in the same LSM shape and every
# missing key consults one filter); then readmissing runs REPEATS times per
# policy, alternating, so drift on a shared machine hits both. Prints ops/s and the false-positive rate from db_bench's statistics
# (full.positive / (useful + full.positive)).
#
# usage: bench/rocksdb/readmissing_pair.sh PLUGIN_SO
# env:   NUM (keys, default 1000000)  READS (default NUM)  REPEATS
#        WORKDIR (default /tmp/linebloom-readmissing)  DB_BENCH (default db_bench)
#        (REPEATS defaults to 5)
set -eu
plugin=${1:?usage: $0 path/to/liblinebloom_rocksdb.so}
here=$(cd "$(dirname "$0")" && pwd)
num=${NUM:-1000000}
reads=${READS:-$num}
repeats=${REPEATS:-5}
work=${WORKDIR:-/tmp/linebloom-readmissing}
db_bench=${DB_BENCH:-db_bench}
mkdir -p "$work"

# The plugin is preloaded for both policies, so both runs execute the same
# binary image; only the OPTIONS file differs.
run() {  # policy benchmarks extra-args...
  policy=$1 benchmarks=$2; shift 2
  LD_PRELOAD="$plugin" "$db_bench" --db="$work/db-$policy" --options_file="$here/$policy.OPTIONS" \
    --benchmarks="$benchmarks" --num="$num" --threads=1 --statistics "$@"
}

for policy in linebloom builtin; do
  rm -rf "$work/db-$policy"
  echo "filling $policy ($num keys)..." >&2
  run $policy fillrandom,flush,waitforcompaction,compact,waitforcompaction,levelstats \
    --seed=1 >"$work/fill-$policy.out" 2>&1
  # Files per level, e.g. "L2:5" -- must match between the two policies.
  awk '/^Level Files Size/ { on = 1; next } on && $1 ~ /^[0-9]+$/ && $2 > 0 { printf "L%s:%s ", $1, $2 }
       END { print "" }' "$work/fill-$policy.out" >"$work/shape-$policy.txt"
  echo "  $policy LSM shape (level:files): $(cat "$work/shape-$policy.txt")" >&2
done

printf '%-10s %4s %12s %10s %10s %9s\n' policy run ops/s useful positive fpr%
r=1
while [ $r -le "$repeats" ]; do
  for policy in linebloom builtin; do
    out="$work/read-$policy-$r.out"
    run $policy readmissing --use_existing_db=1 --reads="$reads" --seed=$((100 + r)) >"$out" 2>&1
    awk -v policy=$policy -v run=$r '
      /^readmissing/ { for (i = 1; i < NF; i++) if ($(i + 1) == "ops/sec") ops = $i }
      $1 == "rocksdb.bloom.filter.useful" && $2 == "COUNT" { u = $4 }
      $1 == "rocksdb.bloom.filter.full.positive" && $2 == "COUNT" { p = $4 }
      END { printf "%-10s %4d %12d %10d %10d %9.4f\n", policy, run, ops, u, p, 100 * p / (u + p) }' "$out"
  done
  r=$((r + 1))
done | tee "$work/summary.txt"

# Medians of ops/s and the pooled false-positive rate per policy.
awk 'NR > 0 {
       ops[$1] = ops[$1] " " $3; u[$1] += $4; p[$1] += $5; n[$1]++
     }
     END {
       for (k in ops) {
         m = split(substr(ops[k], 2), a, " ")
         for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
         med[k] = (m % 2) ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
         printf "%-10s median %10.0f ops/s  pooled FPR %.4f %% (%d of %d lookups)\n", k, med[k], 100 * p[k] / (u[k] + p[k]), p[k], u[k] + p[k]
       }
       if (med["builtin"] > 0) printf "linebloom / builtin readmissing throughput: %.3f\n", med["linebloom"] / med["builtin"]
     }' "$work/summary.txt"
