#!/bin/sh
# db_bench readmissing, linebloom vs RocksDB's built-in Bloom filter, both at
# 10 bits/key (builtin.OPTIONS = bloomfilter:10 at format_version 5, i.e.
# what -bloom_bits=10 builds), with otherwise identical OPTIONS files.
#
# Besides db_bench's wall-clock ops/s, the CPU time (user + sys) of each
# readmissing process is reported per lookup: on a shared machine the
# wall-clock rate mostly measures how much of a core the run was given.
#
# Each policy gets its own DB (fillrandom, then flush and compact with waits
# for background work, so both DBs end in the same LSM shape and every
# missing key consults one filter); then readmissing runs REPEATS times per
# policy, alternating, so drift on a shared machine hits both. Prints ops/s and the false-positive rate from db_bench's statistics
# (full.positive / (useful + full.positive)).
#
# usage: bench/rocksdb/readmissing_pair.sh PLUGIN_SO|-
#   PLUGIN_SO is preloaded into db_bench for both policies; "-" preloads
#   nothing, for a db_bench with linebloom built in (ROCKSDB_PLUGINS).
# env:   NUM (keys, default 1000000)  READS (default NUM)  REPEATS
#        WORKDIR (default /tmp/linebloom-readmissing)  DB_BENCH (default db_bench)
#        (REPEATS defaults to 5)
#        BENCH: readmissing (default) or multireadrandom (batched MultiGet
#        of MULTIGET_BATCH keys, default 32: what reaches the filters'
#        batched MayMatch)
#        FILL: fillrandom (default) or fillseq (much faster for large NUM;
#        every key is written once, and readmissing still asks for keys
#        between them)
#        VALUE_SIZE (default 100, db_bench's)  SKIP_FILL=1 reuses the DBs of
#        an earlier run in WORKDIR (filling is not timed; the reads are)
# Filters beyond the L3 cache: at 10 bits/key each key costs 1.25 bytes of
# filter, so NUM=64000000 gives ~80 MiB of filters, e.g.
#   NUM=48000000 READS=2000000 VALUE_SIZE=16 FILL=fillseq bench/rocksdb/readmissing_pair.sh build/integration/rocksdb/liblinebloom_rocksdb.so
# RocksDB 11.8.1 (built-in filter with its AVX2 probe, -march=haswell): the
# prebuilt tools with the plugin built against 11.8.1 preloaded, or the
# db_bench of integration/rocksdb/plugin/build_rocksdb_with_plugin.sh:
#   DB_BENCH=/work/shared/rocksdb/11.8.1/bin/db_bench bench/rocksdb/readmissing_pair.sh build-11.8.1/integration/rocksdb/liblinebloom_rocksdb.so
#   DB_BENCH=~/.cache/linebloom/rocksdb-11.8.1-build/db_bench bench/rocksdb/readmissing_pair.sh -
set -eu
plugin=${1:?usage: $0 path/to/liblinebloom_rocksdb.so, or - for none}
[ "$plugin" = - ] || [ -r "$plugin" ] || { echo "no plugin at $plugin" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
num=${NUM:-1000000}
reads=${READS:-$num}
repeats=${REPEATS:-5}
bench=${BENCH:-readmissing}
value_size=${VALUE_SIZE:-100}
skip_fill=${SKIP_FILL:-0}
fill=${FILL:-fillrandom}
case $bench in
  readmissing) bench_args="" ;;
  multireadrandom) bench_args="--multiread_batched=true --batch_size=${MULTIGET_BATCH:-32}" ;;
  *) echo "BENCH must be readmissing or multireadrandom" >&2; exit 2 ;;
esac
work=${WORKDIR:-/tmp/linebloom-readmissing}
db_bench=${DB_BENCH:-db_bench}
mkdir -p "$work"

# The plugin (if any) is preloaded for both policies, so both runs execute
# the same binary image; only the OPTIONS file differs.
preload=$plugin
[ "$plugin" != - ] || preload=
run() {  # policy benchmarks extra-args...
  policy=$1 benchmarks=$2; shift 2
  LD_PRELOAD="$preload" "$db_bench" --db="$work/db-$policy" --options_file="$here/$policy.OPTIONS" \
    --benchmarks="$benchmarks" --num="$num" --value_size="$value_size" --threads=1 --statistics "$@"
}

for policy in linebloom builtin; do
  if [ "$skip_fill" = 1 ] && [ -s "$work/shape-$policy.txt" ]; then
    echo "  $policy LSM shape (level:files, reused): $(cat "$work/shape-$policy.txt")" >&2
    continue
  fi
  rm -rf "$work/db-$policy"
  echo "filling $policy ($num keys)..." >&2
  run $policy "$fill",flush,waitforcompaction,compact,waitforcompaction,levelstats \
    --seed=1 >"$work/fill-$policy.out" 2>&1
  # Files per level, e.g. "L2:5" -- must match between the two policies.
  awk '/^Level Files Size/ { on = 1; next } on && $1 ~ /^[0-9]+$/ && $2 > 0 { printf "L%s:%s ", $1, $2 }
       END { print "" }' "$work/fill-$policy.out" >"$work/shape-$policy.txt"
  echo "  $policy LSM shape (level:files): $(cat "$work/shape-$policy.txt")" >&2
done

# Total CPU seconds (user + sys) of this shell's finished children, from
# `times`, which must run in this shell (a $(...) subshell has no children
# yet), hence the file.
cpu_of_times() {
  awk 'NR == 2 { t = 0; for (i = 1; i <= 2; i++) { split($i, a, "m"); t += a[1] * 60 + a[2] } print t }' "$1"
}

# Which RocksDB ran (db_bench prints its version in its header).
grep -m1 '^RocksDB:' "$work/fill-linebloom.out" >&2 || true
printf '%-10s %4s %12s %12s %10s %10s %9s\n' policy run ops/s cpu-ns/op useful positive fpr%
r=1
while [ $r -le "$repeats" ]; do
  for policy in linebloom builtin; do
    out="$work/$bench-$policy-$r.out"
    times >"$work/times0.txt"
    # shellcheck disable=SC2086  # bench_args is a list of flags
    run $policy "$bench" --use_existing_db=1 --reads="$reads" --seed=$((100 + r)) $bench_args >"$out" 2>&1
    times >"$work/times1.txt"
    cpu0=$(cpu_of_times "$work/times0.txt")
    cpu1=$(cpu_of_times "$work/times1.txt")
    awk -v bench="$bench" -v policy=$policy -v run=$r -v cpu="$cpu0 $cpu1" -v reads="$reads" '
      $1 == bench { for (i = 1; i < NF; i++) if ($(i + 1) == "ops/sec") ops = $i }
      $1 == "rocksdb.bloom.filter.useful" && $2 == "COUNT" { u = $4 }
      $1 == "rocksdb.bloom.filter.full.positive" && $2 == "COUNT" { p = $4 }
      END { split(cpu, c, " ")
            printf "%-10s %4d %12d %12.0f %10d %10d %9.4f\n", policy, run, ops, 1e9 * (c[2] - c[1]) / reads,
                   u, p, 100 * p / (u + p) }' "$out"
  done
  r=$((r + 1))
done | tee "$work/summary-$bench.txt"

# Medians of ops/s and CPU per lookup, and the pooled false-positive rate.
awk 'function median(list,   a, m, i, j, t) {
       m = split(substr(list, 2), a, " ")
       for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
       return (m % 2) ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
     }
     { ops[$1] = ops[$1] " " $3; cpu[$1] = cpu[$1] " " $4; u[$1] += $5; p[$1] += $6 }
     END {
       for (k in ops) {
         mo[k] = median(ops[k]); mc[k] = median(cpu[k])
         printf "%-10s median %9.0f ops/s  %6.0f cpu-ns/op  pooled FPR %.4f %% (%d of %d lookups)\n",
                k, mo[k], mc[k], 100 * p[k] / (u[k] + p[k]), p[k], u[k] + p[k]
       }
       if (mo["builtin"] > 0)
         printf "linebloom / builtin: throughput %.3f, cpu per lookup %.3f\n",
                mo["linebloom"] / mo["builtin"], mc["linebloom"] / mc["builtin"]
     }' "$work/summary-$bench.txt"
