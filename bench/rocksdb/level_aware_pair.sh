#!/bin/sh
# db_bench: level-aware linebloom vs uniform linebloom vs RocksDB's built-in
# Bloom filter, all at (an average of) 10 bits/key, on the same multi-level
# LSM tree; then readmissing. Reports, from RocksDB's own statistics, the
# false positives per absent-key lookup
#   (rocksdb.bloom.filter.full.positive - full.true.positive) / reads
# and, from the table properties of the live SSTs (sst_dump), the filter
# bytes and filter entries per level and in total.
#
# The tree: leveled compaction with level_compaction_dynamic_level_bytes
# (levels sized exactly size-ratio 10 apart from the last level up; RocksDB's
# recommended setting), tiny write buffers and level base so a few million
# keys populate L0 plus four levels (L3..L6). No manual compaction: that
# would collapse the tree into one level.
#
# SAME_TREE=1 (the default): fill ONE DB once, then for each configuration
# copy it and rewrite every live SST at its own level with that
# configuration's filter policy (linebloom-refilter), so all configurations
# are read on identical trees (same keys per level). SAME_TREE=0: each
# configuration fills its own DB with the same keys (the old mode); the
# trees then differ with background compaction timing, and how many lookups
# reach each level varied more between them than the filters' difference.
#
# usage: bench/rocksdb/level_aware_pair.sh PLUGIN_SO
# env:   NUM (keys written, default 2000000)  READS (default 500000)
#        VALUE_SIZE (default 32)  WORKDIR (default /tmp/linebloom-level-aware)
#        DB_BENCH, SST_DUMP, LDB (defaults: db_bench, sst_dump, ldb)
#        CONFIGS (default "level_aware uniform builtin"; also cache_aware:
#        level_aware weighting levels by block cache misses, see policy_of)
#        LA_OPTIONS (extra policy options of level_aware and cache_aware)
#        L0_TRIGGER (level0_file_num_compaction_trigger, default 4; 1 leaves
#        no L0 files after the fill, so the three SAME_TREE=0 trees differ less)
#        NO_TRIVIAL_MOVE=1 (see below)  LA_BITS (level_aware's bits_per_key,
#        default 10)
#        SAME_TREE (default 1, see above)  FILL_SEED (db_bench --seed of the
#        fill, default 1)  PASSES (linebloom-refilter --passes, default 3)
#        REFILTER (default: built next to the plugin, build/integration/rocksdb/tools/)
#        REUSE_FILL=1: keep the shared fill of an earlier run in WORKDIR
#        (same NUM and geometry) and redo everything from the refilter on
#        READS_ONLY=1: keep the refiltered DBs of an earlier run in WORKDIR
#        (same NUM and configurations) and only redo the reads and the report
#        REPORT_ONLY=1: keep the DBs and db_bench outputs of an earlier run in
#        WORKDIR, re-read the SSTs' properties and print the report
#        LEVEL_BOUND (linebloom-level-bound; default: the one built next to
#        the plugin, build/integration/rocksdb/tools/): scores each tree, see the end
#        WRITE_BUFFER (bytes, default 65536), TARGET_FILE (default
#        WRITE_BUFFER), LEVEL_BASE (max_bytes_for_level_base, default
#        4 * WRITE_BUFFER): the tree's geometry; scale them together with
#        the data so the tree keeps L0 plus four or more levels
#
# The end-to-end mode (what bench/rocksdb/e2e_direct.sh sets): the reads
# run with data blocks on storage, so a false positive costs a read.
#        DIRECT_READS=1: the reading OPTIONS get use_direct_reads=true (no
#        page cache under the block cache) and max_open_files=-1 (every
#        table reader, and with it every filter and index, stays in memory;
#        cache_index_and_filter_blocks=false keeps them out of the block
#        cache, so data blocks cannot evict them). The fill and the
#        refilter do not use direct I/O.
#        CACHE_MB: block cache size for the reads (db_bench --cache_size,
#        LRU cache on every version; default: db_bench's own default)
#        BENCHES (default readmissing): readmissing and/or multireadrandom
#        (batched MultiGet of MULTIGET_BATCH keys, default 32, with
#        --key_size 17 against the fill's 16-byte keys: every key is absent,
#        sorting right after a written one, like readmissing's keys)
#        REPEATS (default 1): runs per benchmark and configuration,
#        alternating configurations run by run (the starting configuration
#        rotates), with the same seed for every configuration within a
#        repetition; the report gives medians of ops/s and counters pooled
#        over the runs. The counters come from --statistics minus those of
#        a run that only opens the DB (its table reads), so they count the
#        lookups' own reads.
set -eu
plugin=${1:?usage: $0 path/to/liblinebloom_rocksdb.so}
num=${NUM:-2000000}
reads=${READS:-500000}
value_size=${VALUE_SIZE:-32}
work=${WORKDIR:-/tmp/linebloom-level-aware}
db_bench=${DB_BENCH:-db_bench}
sst_dump=${SST_DUMP:-sst_dump}
ldb=${LDB:-ldb}
configs=${CONFIGS:-level_aware uniform builtin}
l0_trigger=${L0_TRIGGER:-4}
same_tree=${SAME_TREE:-1}
fill_seed=${FILL_SEED:-1}
passes=${PASSES:-3}
refilter=${REFILTER:-$(dirname "$plugin")/tools/linebloom-refilter}
# LA_BITS: level_aware's average bits per key (default 10, like the others).
# Its live filter bytes can land a few % above the budget (trivial moves,
# levels off the model's sizes; docs/LEVEL_AWARE.md), so an equal-memory
# comparison may set it lower -- the report prints every config's bytes.
la_bits=${LA_BITS:-10}
# LA_OPTIONS: more options for the level-aware configurations' policy,
# ';'-separated (e.g. level_weights=0.1:1:1:1:1:1:1).
la_options=${LA_OPTIONS:-}
# NO_TRIVIAL_MOVE=1: alternate the configured compression of adjacent levels
# (none / LZ4), which stops RocksDB from moving a file to the next level
# without rewriting it (Compaction::IsTrivialMove requires the same
# compression); values are made incompressible (--compression_ratio=1), so
# LZ4 levels store their blocks uncompressed and every level's bytes per key
# stay the same. A moved file keeps the filter of the level it was written
# for, so trivial moves blur per-level bits.
no_trivial_move=${NO_TRIVIAL_MOVE:-0}
if [ "$no_trivial_move" = 1 ]; then
  compression_line="compression_per_level=kNoCompression:kLZ4Compression:kNoCompression:kLZ4Compression:kNoCompression:kLZ4Compression:kNoCompression"
  ratio_flag=--compression_ratio=1
else
  compression_line="compression=kNoCompression"
  ratio_flag=--compression_ratio=0.5
fi
write_buffer=${WRITE_BUFFER:-65536}
target_file=${TARGET_FILE:-$write_buffer}
level_base=${LEVEL_BASE:-$((4 * write_buffer))}
direct_reads=${DIRECT_READS:-0}
cache_mb=${CACHE_MB:-}
benches=${BENCHES:-readmissing}
repeats=${REPEATS:-1}
multiget_batch=${MULTIGET_BATCH:-32}
for b in $benches; do
  case $b in readmissing | multireadrandom) ;; *) echo "BENCHES: readmissing and/or multireadrandom" >&2; exit 2 ;; esac
done
mkdir -p "$work"

policy_of() {
  case $1 in
    level_aware) echo "{id=linebloom;bits_per_key=$la_bits;level_aware=true;size_ratio=10${la_options:+;$la_options}}" ;;
    # level_aware, with each level weighted by the chance that a false
    # positive there misses the block cache of CACHE_MB (the refilter
    # process has no such cache, so its size is spelled out). Data bytes per
    # entry: the key, its 8 bytes of sequence number and type, the value,
    # less what prefix compression shares (sst_dump: "data block size" /
    # "# entries" is VALUE_SIZE + 22 with these 16-byte keys).
    cache_aware) echo "{id=linebloom;bits_per_key=$la_bits;level_aware=true;size_ratio=10;cache_aware=true;block_cache_bytes=$((${cache_mb:-8} * 1048576));data_bytes_per_key=$((value_size + 22))${la_options:+;$la_options}}" ;;
    uniform) echo '{id=linebloom;bits_per_key=10}' ;;
    builtin) echo 'bloomfilter:10:false' ;;
    *) echo "unknown config $1" >&2; exit 2 ;;
  esac
}

# One OPTIONS file per configuration, identical apart from filter_policy.
# In SAME_TREE mode the configurations' files also turn auto compactions off:
# they only read the refiltered tree (its files' sizes changed with their
# filters, which must not make readmissing's DB::Open compact anything);
# the shared fill uses fill.OPTIONS (the built-in's, compactions on).
# DIRECT_READS=1 adds the reading options to the "-read" files (see above).
. "$(dirname "$0")/lsm_options.sh"
. "$(dirname "$0")/per_level_counts.sh"
write_options() {  # config file [disable_auto_compactions [direct_reads]]
  lsm_options "$2" "$(policy_of "$1")" "${3:-false}" "${4:-0}" "$l0_trigger" "$compression_line"
}

run() {  # config benchmarks extra-args...  (config "fill": the shared fill)
  config=$1 benchmarks=$2; shift 2
  LD_PRELOAD="$plugin" "$db_bench" --db="$work/db-$config" --options_file="$work/$config.OPTIONS" \
    --benchmarks="$benchmarks" --num="$num" --key_size=16 --value_size="$value_size" \
    --threads=1 --statistics "$ratio_flag" "$@"
}

# The reads: the "-read" OPTIONS file and the block cache of CACHE_MB.
cache_flags=""
[ -z "$cache_mb" ] || cache_flags="--cache_type=lru_cache --cache_size=$((cache_mb * 1048576))"
run_read() {  # config benchmark seed
  case $2 in
    readmissing) bench_flags="" ;;
    multireadrandom) bench_flags="--key_size=17 --multiread_batched=true --batch_size=$multiget_batch" ;;
    levelstats) bench_flags="" ;;
  esac
  # shellcheck disable=SC2086  # flag lists
  LD_PRELOAD="$plugin" "$db_bench" --db="$work/db-$1" --options_file="$work/$1-read.OPTIONS" \
    --benchmarks="$2" --num="$num" --key_size=16 --value_size="$value_size" \
    --threads=1 --statistics "$ratio_flag" --use_existing_db=1 --reads="$reads" --seed="$3" \
    --perf_level=2 $cache_flags $bench_flags
}

# Total CPU seconds (user + sys) of this shell's finished children, from
# `times`, which must run in this shell (a $(...) subshell has no children
# yet), hence the file.
cpu_of_times() {
  awk 'NR == 2 { t = 0; for (i = 1; i <= 2; i++) { split($i, a, "m"); t += a[1] * 60 + a[2] } print t }' "$1"
}
# run_read, its output to OUT plus a line "cpu_seconds S": the process's CPU
# time, which a SIGSTOP or a busy machine does not inflate (wall-clock ops/s
# it does).
run_read_timed() {  # config benchmark seed out
  times >"$work/times0.txt"
  run_read "$1" "$2" "$3" >"$4" 2>&1 || { tail -n 20 "$4" >&2; exit 1; }
  times >"$work/times1.txt"
  echo "cpu_seconds $(cpu_of_times "$work/times0.txt") $(cpu_of_times "$work/times1.txt")" |
    awk '{ printf "cpu_seconds %.3f\n", $3 - $2 }' >>"$4"
}

# level filter_entries filter_bytes, one line per live SST.
. "$(dirname "$0")/sst_filters.sh"
filter_properties() {  # config
  sst_filters "$work/db-$1" | awk '{ print $1, $3, $4 }'
}

ticker() {  # name file
  awk -v name="$1" '$1 == name && $2 == "COUNT" { print $4 }' "$2"
}

# flush: leave no WAL, so readmissing's DB::Open does not write a recovery
# L0 file (its policy would not know the tree's shape yet).
fill_benchmarks=fillrandom,flush,waitforcompaction,levelstats
reads_only=${READS_ONLY:-0}
if [ "${REPORT_ONLY:-0}" != 1 ] && [ "$reads_only" != 1 ] && [ "${REUSE_FILL:-0}" = 1 ]; then
  if [ ! -s "$work/fill.out" ] || [ ! -d "$work/db-fill" ]; then echo "REUSE_FILL=1: no fill in $work" >&2; exit 2; fi
  [ -x "$refilter" ] || { echo "SAME_TREE=1 needs linebloom-refilter (not at $refilter; set REFILTER)" >&2; exit 2; }
  echo "reusing the shared tree in $work/db-fill" >&2
elif [ "${REPORT_ONLY:-0}" != 1 ] && [ "$reads_only" != 1 ] && [ "$same_tree" = 1 ]; then
  [ -x "$refilter" ] || { echo "SAME_TREE=1 needs linebloom-refilter (not at $refilter; set REFILTER)" >&2; exit 2; }
  write_options builtin "$work/fill.OPTIONS"
  rm -rf "$work/db-fill"
  echo "filling the shared tree ($num keys, seed $fill_seed)..." >&2
  start=$(date +%s)
  run fill "$fill_benchmarks" --seed="$fill_seed" >"$work/fill.out" 2>&1
  echo "  filled in $(( $(date +%s) - start )) s" >&2
fi

for config in $configs; do
  if [ "${REPORT_ONLY:-0}" = 1 ]; then
    filter_properties "$config" >"$work/filters-$config.txt"
    continue
  fi
  if [ "$reads_only" = 1 ]; then
    [ -s "$work/filters-$config.txt" ] || { echo "READS_ONLY=1: no earlier run of $config in $work" >&2; exit 2; }
    write_options "$config" "$work/$config-read.OPTIONS" true "$direct_reads"
    run_read_timed "$config" levelstats 1 "$work/open-$config.out"
    continue
  fi
  rm -rf "$work/db-$config"
  start=$(date +%s)
  if [ "$same_tree" = 1 ]; then
    write_options "$config" "$work/$config.OPTIONS" true
    write_options "$config" "$work/$config-read.OPTIONS" true "$direct_reads"
    cp -a "$work/db-fill" "$work/db-$config"
    # Only a level-aware policy learns from earlier passes; the others
    # build the same filter every time, so one pass rewrites them all.
    config_passes=$passes
    case $config in level_aware | cache_aware) ;; *) config_passes=1 ;; esac
    # Exits non-zero (and so stops this script) if any level's entries changed.
    "$refilter" --db="$work/db-$config" --options="$work/$config.OPTIONS" --passes="$config_passes" \
      >"$work/refilter-$config.out" 2>&1 || { cat "$work/refilter-$config.out" >&2; exit 1; }
    cp "$work/fill.out" "$work/fill-$config.out"
    echo "refiltered $config in $(( $(date +%s) - start )) s" >&2
  else
    write_options "$config" "$work/$config.OPTIONS"
    write_options "$config" "$work/$config-read.OPTIONS" false "$direct_reads"
    echo "filling $config ($num keys)..." >&2
    run "$config" "$fill_benchmarks" --seed="$fill_seed" >"$work/fill-$config.out" 2>&1
    echo "  filled in $(( $(date +%s) - start )) s" >&2
  fi
  filter_properties "$config" >"$work/filters-$config.txt"
  # What opening the DB alone costs in the counters (the table readers'
  # reads of footers, indexes and filters); subtracted from every run.
  run_read_timed "$config" levelstats 1 "$work/open-$config.out"
done

# The copies' storage, made alike: the refilter writes them one after the
# other, and with direct reads the copy written last read its blocks faster
# (2-14 % less time per block read on four trees, at equal data reads).
# Each copy is rewritten file by file, interleaved across the copies, so no
# configuration's files are newer than another's or laid out apart.
if [ "$same_tree" = 1 ] && [ "$reads_only" != 1 ] && [ "${REPORT_ONLY:-0}" != 1 ]; then
  for config in $configs; do
    rm -rf "$work/db-$config.relaid"
    mkdir "$work/db-$config.relaid"
    # shellcheck disable=SC2012  # RocksDB's file names have no odd characters
    ls -p "$work/db-$config" | awk -v c="$config" '!/\/$/ { print NR, c, $0 }'
  done | sort -n -s -k1,1 | while read -r _ config file; do
    cp -p "$work/db-$config/$file" "$work/db-$config.relaid/$file"
  done
  sync
  for config in $configs; do
    rm -rf "$work/db-$config"
    mv "$work/db-$config.relaid" "$work/db-$config"
  done
fi

# The reads, alternating configurations run by run. perf_level=2: RocksDB's
# perf context counts filter answers and block cache hits/misses per level.
if [ "${REPORT_ONLY:-0}" != 1 ]; then
  for bench in readmissing multireadrandom; do rm -f "$work/$bench-"*-[0-9]*.out; done
  r=1
  while [ "$r" -le "$repeats" ]; do
    # Rotate the starting configuration, so no configuration always runs
    # right after the same other one.
    # shellcheck disable=SC2086  # a list
    set -- $configs
    k=$(((r - 1) % $#))
    while [ "$k" -gt 0 ]; do first=$1; shift; set -- "$@" "$first"; k=$((k - 1)); done
    for bench in $benches; do
      for config in "$@"; do
        run_read_timed "$config" "$bench" $((1 + r)) "$work/$bench-$config-$r.out"
        echo "  $bench $config run $r: $(awk -v b="$bench" '$1 == b { for (i = 1; i < NF; i++) if ($(i + 1) == "ops/sec") print $i }' \
          "$work/$bench-$config-$r.out") ops/s" >&2
      done
    done
    r=$((r + 1))
  done
  # The per-level and totals tables below read the first readmissing run
  # (or the first run of the first benchmark).
  first_bench=readmissing
  # shellcheck disable=SC2086  # a list
  case " $benches " in *" readmissing "*) ;; *) set -- $benches; first_bench=$1 ;; esac
  for config in $configs; do cp "$work/$first_bench-$config-1.out" "$work/read-$config.out"; done
fi

# Every live SST must have been read (the report sums their filters).
for config in $configs; do
  want=$(awk '/^Level Files Size/ { on = 1; next } on && $1 ~ /^[0-9]+$/ { n += $2 } END { print n + 0 }' \
    "$work/fill-$config.out")
  got=$(wc -l <"$work/filters-$config.txt")
  [ "$want" -eq "$got" ] ||
    echo "WARNING: $config: levelstats lists $want SSTs, properties read for $got" >&2
done

echo
echo "Per level (live SSTs; bits/key = 8 * filter bytes / filter entries; checks and"
echo "false-positive rate of the level's filters during readmissing, from the perf context):"
printf '%-12s %5s %6s %10s %12s %8s %12s %9s\n' config level files entries filter_bytes bits/key checks fpr%
for config in $configs; do
  per_level_counts "$work/read-$config.out" >"$work/perlevel-$config.txt"
  sort -n "$work/filters-$config.txt" | awk -v c="$config" -v counts="$work/perlevel-$config.txt" '
    BEGIN { while ((getline line < counts) > 0) { split(line, a, " "); u[a[1]] = a[2]; p[a[1]] = a[3] } }
    { f[$1]++; e[$1] += $2; b[$1] += $3; if (!($1 in seen)) { seen[$1] = 1; order[++n] = $1 } }
    END { for (i = 1; i <= n; i++) { l = order[i]; k = u[l] + p[l]
            printf "%-12s %5s %6d %10d %12d %8.2f %12d %9.4f\n", c, "L" l, f[l], e[l], b[l],
                   e[l] ? 8 * b[l] / e[l] : 0, k, k ? 100 * p[l] / k : 0 } }'
done

echo
echo "Totals (readmissing: $reads lookups of absent keys):"
printf '%-12s %12s %12s %10s %12s %14s %12s\n' config filter_bytes entries bits/key checks/lookup false_pos fp/lookup
for config in $configs; do
  out="$work/read-$config.out"
  u=$(ticker rocksdb.bloom.filter.useful "$out")
  p=$(ticker rocksdb.bloom.filter.full.positive "$out")
  tp=$(ticker rocksdb.bloom.filter.full.true.positive "$out")
  awk -v c="$config" -v u="${u:-0}" -v p="${p:-0}" -v tp="${tp:-0}" -v reads="$reads" '
    { e += $2; b += $3 }
    END { printf "%-12s %12d %12d %10.3f %12.3f %14d %12.5f\n", c, b, e, e ? 8 * b / e : 0,
                 (u + p) / reads, p - tp, (p - tp) / reads }' "$work/filters-$config.txt"
done | tee "$work/summary.txt"

# The level_aware row against every other: % change in false positives per
# lookup and in live filter bytes (negative = fewer).
if grep -q '^level_aware ' "$work/summary.txt"; then
  echo
  echo "level_aware vs the others (% change; negative = fewer):"
  awk '{ fp[$1] = $7; bytes[$1] = $2; order[++n] = $1 }
       END { for (i = 1; i <= n; i++) { c = order[i]; if (c == "level_aware") continue
               printf "  vs %-10s fp/lookup %+6.1f %%   filter_bytes %+5.1f %%\n", c,
                      100 * (fp["level_aware"] / fp[c] - 1), 100 * (bytes["level_aware"] / bytes[c] - 1) } }' \
    "$work/summary.txt"
  # The trees differ (compaction timing), and so does the share of lookups
  # that reach each level. Cross-check on the other tree: level_aware's
  # per-level false-positive rates (perf context) weighted by the other
  # configuration's per-level checks per lookup. A level level_aware's tree
  # lacks counts at the other's own rate (no advantage), marked '*'.
  # (Same tree: every level is checked equally often in every configuration
  # -- an absent key descends through all levels whatever the filters say --
  # so there is nothing to cross-check.)
  [ "$same_tree" = 1 ] || echo "level_aware's per-level FPRs on the other trees (checks/lookup of that tree):"
  for config in $configs; do
    [ "$config" = level_aware ] || [ "$same_tree" = 1 ] && continue
    awk -v c="$config" -v reads="$reads" -v la="$work/perlevel-level_aware.txt" '
      BEGIN { while ((getline line < la) > 0) { split(line, a, " "); k = a[2] + a[3]; if (k) f[a[1]] = a[3] / k } }
      { k = $2 + $3; if (!k) next; if ($1 in f) { fp += k / reads * f[$1] } else { fp += $3 / reads; star = "*" }
        own += $3 / reads }
      END { printf "  on %-10s fp/lookup %.5f%s vs its own %.5f: %+6.1f %%\n", c, fp, star, own, 100 * (fp / own - 1) }' \
      "$work/perlevel-$config.txt"
  done
  # The policy logs each change of its estimate (lookup weights, corrected
  # average, bits per level); the last one before the reads is what the
  # newest files were built with.
  for config in level_aware cache_aware; do
    last=$(cat "$work/db-$config"/LOG* 2>/dev/null | grep 'linebloom level_aware' | sort | tail -n 1 |
           sed 's/.*linebloom level_aware/linebloom level_aware/')
    [ -z "$last" ] || { echo "$config's last allocation (DB LOG):"; echo "  $last"; }
  done
fi

# The bound: on each tree, the best expected false positives per lookup any
# per-level bits could reach at 10 bits/key on average, knowing each level's
# coverage (checks / lookups) exactly, vs 10 everywhere -- same blocked-Bloom
# model for both. A level-aware policy cannot beat "best" on that tree; if
# "best" is above -30 %, no allocation at equal memory reaches the target
# there. (L0 files are one run here: the perf context counts them together.)
level_bound=${LEVEL_BOUND:-$(dirname "$plugin")/tools/linebloom-level-bound}
if [ -x "$level_bound" ]; then
  echo
  echo "Bound per tree (expected FP/lookup at 10 bits/key: uniform vs the best per-level bits):"
  for config in $configs; do
    printf '  %-12s ' "$config"
    sort -n "$work/filters-$config.txt" | awk -v counts="$work/perlevel-$config.txt" '
      BEGIN { while ((getline line < counts) > 0) { split(line, a, " "); k[a[1]] = a[2] + a[3] } }
      { e[$1] += $2 } END { for (l in e) if (k[l] > 0) print l, e[l], k[l] }' | sort -n |
      "$level_bound" --lookups "$reads" --bits 10
  done
fi

echo
if [ "$same_tree" = 1 ]; then
  echo "LSM shape (level:files), from db_bench levelstats after the shared fill (seed $fill_seed;"
  echo "every configuration's copy refiltered, level_aware in $passes pass(es), entries per level checked):"
else
  echo "LSM shapes (level:files), from db_bench levelstats after the fill (seed $fill_seed):"
fi
for config in $configs; do
  printf '%-12s ' "$config"
  awk '/^Level Files Size/ { on = 1; next } on && $1 ~ /^[0-9]+$/ && $2 > 0 { printf "L%s:%s ", $1, $2 }
       END { print "" }' "$work/fill-$config.out"
done

# The end-to-end tables: every run of every benchmark. Per configuration,
# the median ops/s of its runs and, pooled over them, RocksDB's counters per
# lookup, each run's minus those of the open-only run (open-CONFIG.out):
#   useful, positive, true_pos  rocksdb.bloom.filter.{useful,full.positive,
#                               full.true.positive}: filter answers; every
#                               key is absent, so positive - true_pos are
#                               the false positives
#   data_miss, data_hit         rocksdb.block.cache.data.{miss,hit}: a miss
#                               is a data block read from storage (direct
#                               reads: no page cache in between)
#   last_rd, upper_rd           rocksdb.{last,non.last}.level.read.count:
#                               file reads at the last level (L6) / above
#   read_us                     rocksdb.sst.read.micros SUM / COUNT of the
#                               lookups' reads: the run's minus its
#                               rocksdb.file.read.db.open.micros (the
#                               open's reads, RocksDB 8 on); "-" where that
#                               histogram is missing: the open's reads
#                               (large, slow) vary more from one open to
#                               the next than the lookups' reads add up to
#   blk_us                      rocksdb.read.block.get.micros SUM / COUNT
#                               minus the open-only run's: fetching a
#                               missed block (read + checksum); the open's
#                               block fetches mostly come from its
#                               prefetch buffer, so their share is small;
#                               readmissing only (MultiGet's batched reads
#                               do not go through this histogram)
#                               (read_us and blk_us: medians over the runs,
#                               as a process stopped in a read inflates
#                               one run's)
#   cpu_ns (median)             the db_bench process's CPU time (user +
#                               sys) per lookup, minus the open-only run's
#   p50_us, p99_us              its percentiles; they include the open's
#                               reads (larger: footers, indexes, filters),
#                               which cannot be taken out of a histogram
# Opening reads every table's footer, index and filter; how many reads that
# takes can vary a little between opens (RocksDB 7's tail prefetch size
# adapts to the files opened before), so last_rd/upper_rd/read_us are exact
# only up to that; data_miss/data_hit and the filter counters are exact
# (opening does not touch the block cache).
summarize_runs() {  # bench config: one line of medians and pooled counters
  awk -v bench="$1" -v config="$2" -v reads="$reads" -v open_file="$work/open-$2.out" '
    function median(list,   a, m, i, j, t) {
      m = split(substr(list, 2), a, " ")
      for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
      return (m % 2) ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
    }
    FNR == 1 { is_open = FILENAME == open_file; if (!is_open) runs++ }
    $1 == "cpu_seconds" { if (is_open) ocpu = $2; else cpu = cpu " " $2 }
    !is_open && $1 == bench { for (i = 1; i < NF; i++) if ($(i + 1) == "ops/sec") ops = ops " " $i }
    $2 == "COUNT" && $3 == ":" {
      name = substr($1, 9)
      if (is_open) open[name] = $4; else sum[name] += $4
    }
    $1 ~ /^rocksdb\.(sst\.read|file\.read\.db\.open|read\.block\.get)\.micros$/ {
      for (i = 2; i < NF; i += 3) v[$i] = $(i + 2)
      h = $1 == "rocksdb.sst.read.micros" ? "sst" : $1 == "rocksdb.read.block.get.micros" ? "blk" : "dbopen"
      hc[h] = v["COUNT"]; hs[h] = v["SUM"]
      if (h == "sst" && !is_open) { p50 = p50 " " v["P50"]; p99 = p99 " " v["P99"] }
    }
    # The last line of each db_bench output: its histograms are all read.
    $1 == "cpu_seconds" {
      if (is_open) { obc = hc["blk"]; obs = hs["blk"] }
      else {
        if (hc["dbopen"] > 0 && hc["sst"] > hc["dbopen"])
          avg = avg " " (hs["sst"] - hs["dbopen"]) / (hc["sst"] - hc["dbopen"])
        if (bench == "readmissing" && hc["blk"] > obc) blk = blk " " (hs["blk"] - obs) / (hc["blk"] - obc)
      }
      delete hc; delete hs
    }
    END {
      n = runs * reads
      for (k in sum) sum[k] -= runs * open[k]
      printf "%s %s %d %.0f %.5f %.5f %.5f %.5f %.5f %.5f %.5f %s %.0f %.0f %.0f %s\n", bench, config, runs, median(ops),
             sum["bloom.filter.useful"] / n, sum["bloom.filter.full.positive"] / n,
             sum["bloom.filter.full.true.positive"] / n, sum["block.cache.data.miss"] / n,
             sum["block.cache.data.hit"] / n, sum["last.level.read.count"] / n,
             sum["non.last.level.read.count"] / n, (avg == "" ? "-" : sprintf("%.1f", median(avg))), median(p50),
             median(p99), 1e9 * (median(cpu) - ocpu) / reads, (blk == "" ? "-" : sprintf("%.1f", median(blk)))
    }' "$work/open-$2.out" "$work/$1-$2-"*.out
}
for bench in $benches; do
  for config in $configs; do
    ls "$work/$bench-$config-"*.out >/dev/null 2>&1 || continue
    summarize_runs "$bench" "$config"
  done
done >"$work/e2e.txt"

if [ -s "$work/e2e.txt" ]; then
  echo
  # shellcheck disable=SC2086  # a list
  grep -m1 '^RocksDB:' "$work/open-$(set -- $configs; echo "$1").out" || true
  echo "End to end ($(awk '{ print $3; exit }' "$work/e2e.txt") run(s) per configuration, alternating; $reads absent keys per run;"
  echo "block cache ${cache_mb:-db_bench default} MB, direct reads $( [ "$direct_reads" = 1 ] && echo on || echo off ); x = ratio to builtin;"
  echo "counters per lookup, pooled over the runs; filter bytes of the live SSTs, sst_dump):"
  for config in $configs; do awk -v c="$config" '{ b += $3 } END { print c, b }' "$work/filters-$config.txt"; done \
    >"$work/filter-bytes.txt"
  awk -v fb="$work/filter-bytes.txt" '
    BEGIN { while ((getline line < fb) > 0) { split(line, a, " "); bytes[a[1]] = a[2] } }
    { key = $1 SUBSEP $2; row[++n] = $0; ops[key] = $4; miss[key] = $8; cpu[key] = $15 }
    END {
      for (i = 1; i <= n; i++) {
        split(row[i], f, " "); b = f[1]; c = f[2]; base = b SUBSEP "builtin"
        if (b != last) {
          printf "\n%-16s %-12s %9s %6s %7s %6s %10s %6s %9s %12s %6s\n", b, "config", "ops/s", "x", "cpu_ns",
                 "x", "data_miss", "x", "fp", "filter_B", "x"
          last = b
        }
        printf "%-16s %-12s %9d %6s %7d %6s %10.5f %6s %9.5f %12d %6s\n", "", c, f[4],
               ops[base] ? sprintf("%.3f", f[4] / ops[base]) : "-", f[15],
               cpu[base] ? sprintf("%.3f", f[15] / cpu[base]) : "-", f[8],
               (miss[base] > 0 ? sprintf("%.3f", f[8] / miss[base]) : "-"), f[6] - f[7], bytes[c],
               bytes["builtin"] ? sprintf("%.3f", bytes[c] / bytes["builtin"]) : "-"
      }
      printf "\n%-16s %-12s %9s %9s %9s %9s %9s %9s %9s %8s %7s %7s %7s\n", "counters/lookup", "config", "useful",
             "positive", "true_pos", "data_miss", "data_hit", "last_rd", "upper_rd", "read_us", "blk_us", "p50_us", "p99_us"
      for (i = 1; i <= n; i++) {
        split(row[i], f, " ")
        printf "%-16s %-12s %9.5f %9.5f %9.5f %9.5f %9.5f %9.5f %9.5f %8s %7s %7d %7d\n", f[1], f[2], f[5], f[6], f[7],
               f[8], f[9], f[10], f[11], f[12], f[16], f[13], f[14]
      }
    }' "$work/e2e.txt"
  # Paired ratios: each run against the built-in's run of the same
  # repetition (adjacent in time, same keys), median over the repetitions.
  # Slow drift of a shared machine cancels within a pair; the ratio of the
  # medians above does not cancel it.
  if case " $configs " in *" builtin "*) true ;; *) false ;; esac; then
    echo
    echo "Paired with builtin's run of the same repetition (median of the per-repetition ratios; runs in order):"
    for bench in $benches; do
      for config in $configs; do
        [ "$config" != builtin ] || continue
        r=1
        while [ -f "$work/$bench-$config-$r.out" ] && [ -f "$work/$bench-builtin-$r.out" ]; do
          for c in "$config" builtin; do
            awk -v b="$bench" '$1 == b { for (i = 1; i < NF; i++) if ($(i + 1) == "ops/sec") o = $i }
                               $1 == "cpu_seconds" { t = $2 } END { printf "%s %s ", o, t }' "$work/$bench-$c-$r.out"
          done
          echo
          r=$((r + 1))
        done | awk -v b="$bench" -v c="$config" \
          -v oc="$(awk '$1 == "cpu_seconds" { print $2 }' "$work/open-$config.out")" \
          -v ob="$(awk '$1 == "cpu_seconds" { print $2 }' "$work/open-builtin.out")" '
          function median(list,   a, m, i, j, t) {
            m = split(substr(list, 2), a, " ")
            for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
            return (m % 2) ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
          }
          $3 > 0 && $4 > ob { o = o " " $1 / $3; t = t " " ($2 - oc) / ($4 - ob); l = l sprintf(" %.2f", $1 / $3) }
          END { if (o != "") printf "  %-16s %-12s ops/s x %.3f (%s )  cpu_ns x %.3f\n", b, c, median(o), l, median(t) }'
      done
    done
  fi
  # Where the reads happen: per level, from the perf context, pooled over
  # the runs. checks = filter answers (useful + positive); a positive that
  # finds its block in the block cache costs no read (hit), a miss does.
  for bench in $benches; do
    echo
    echo "Per level, $bench (perf context, per lookup, pooled over the runs):"
    printf '%-12s %5s %9s %9s %9s %9s %8s\n' config level checks fp cache_hit data_miss miss%
    for config in $configs; do
      ls "$work/$bench-$config-"*.out >/dev/null 2>&1 || continue
      runs=$(set -- "$work/$bench-$config-"*.out; echo $#)
      per_level_counts "$work/$bench-$config-"*.out | sort -n |
        awk -v c="$config" -v n=$((runs * reads)) '{ k = $2 + $3
          printf "%-12s %5s %9.4f %9.5f %9.5f %9.5f %8.1f\n", c, "L" $1, k / n, $3 / n, $4 / n, $5 / n,
                 $4 + $5 ? 100 * $5 / ($4 + $5) : 0 }'
    done
  done
fi

# The same bound weighted by storage reads: a level's checks times the
# fraction of its false positives that missed the block cache with the
# built-in filter (readmissing, the table above), i.e. the expected data
# misses per lookup at uniform 10 bits/key vs the best per-level bits if
# those miss fractions held. A level whose blocks stay cached barely counts.
# (Fewer false positives at a level also leave fewer of its blocks cached, so
# this is a guide, not a strict bound.)
if [ -s "$work/e2e.txt" ] && [ -x "$level_bound" ] && case " $configs " in *" builtin "*) true ;; *) false ;; esac &&
  set -- "$work/readmissing-builtin-"*.out && [ -e "$1" ]; then
  echo
  printf 'Bound on data misses/lookup (readmissing, built-in per-level miss fractions):\n  '
  per_level_counts "$@" | sort -n | awk -v fb="$work/filters-builtin.txt" '
    BEGIN { while ((getline line < fb) > 0) { split(line, a, " "); e[a[1]] += a[2] } }
    { k = $2 + $3; if ($4 + $5 > 0 && k > 0 && e[$1] > 0) print $1, e[$1], k * $5 / ($4 + $5) }' |
    "$level_bound" --lookups "$(($# * reads))" --bits 10
fi
