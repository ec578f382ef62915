#!/bin/sh
# db_bench: the level-aware linebloom policy with RocksDB's own flushes and
# compactions building every filter (no refiltering), under random writes
# followed by overwrites of the same key space, so that trivial moves,
# compactions and file deletions happen while the policy tracks the tree.
# One db_bench process runs both phases (the policy's books live in the
# process): fillrandom, overwrite, flush, waitforcompaction, levelstats.
#
# Measures, over the live SSTs afterwards (sst_dump table properties):
#   per level and in total: files, filter entries, linebloom's real filter
#   bytes ("filter block size"), and the bytes RocksDB's built-in Bloom
#   filter (format_version 5, 10 bits/key) takes for the same entries,
#       5 + 64 * ceil(ceil(n * 10000 / 8000) / 64)   per file of n entries,
#   and their ratio;
#   the same split by how the file got to its level: written there by a
#   compaction (or flush) vs. moved there unrewritten (trivial move). The
#   level each file was written at comes from the DB LOG: its
#   table_file_creation event's job, and that job's compaction_finished
#   event's output_level (flushes: L0);
#   the trivial moves ("Moving #F to level-L") and the policy's lines
#   (linebloom ... warnings and its last level_aware allocation) in the LOG.
# READS > 0: then readmissing on the live tree and on copies of it
# refiltered (linebloom-refilter) with uniform linebloom and with the
# built-in Bloom filter, both at 10 bits/key: false positives per absent-key
# lookup from rocksdb.bloom.filter.{full.positive,full.true.positive}, per
# level from the perf context (perf_level 2), and the built-in copy's real
# filter bytes, which checks the formula above; and the live filters scored
# against the best per-level allocation of the built-in's bytes on this
# tree (linebloom-level-bound --filters, as level_aware_score.sh scores;
# LEVEL_BOUND: its path, default next to the plugin's build).
#
# usage: bench/rocksdb/level_aware_live.sh PLUGIN_SO
# env:   NUM (keys of each phase, default 2000000)  VALUE_SIZE (default 100)
#        OVERWRITE (default 1: after the fill, overwrite NUM random keys of the
#        same key space; 0: the fill alone)
#        WRITE_BUFFER (bytes, default 131072)  TARGET_FILE (default
#        WRITE_BUFFER)  LEVEL_BASE (default 4 * WRITE_BUFFER): the geometry;
#        the defaults give L0 plus four levels (L3..L6) at 2 M keys
#        LA_POLICY (default {id=linebloom;bits_per_key=10;level_aware=true;
#        size_ratio=10})  FILL_SEED (default 1)
#        READS (absent-key lookups per readmissing run, default 0: none)
#        WORKDIR (default /tmp/linebloom-level-aware-live)
#        DB_BENCH, SST_DUMP, LDB (defaults: db_bench, sst_dump, ldb)
#        REFILTER (default: built next to the plugin, build/integration/rocksdb/tools/)
#        LISTENER (default 1: the DB runs linebloom's level-aware listener,
#        listeners={id=linebloom_level_aware}, which hands the policy the
#        live files after every compaction; 0: the policy alone)
#        REPORT_ONLY=1: keep the DB and outputs of an earlier run, report again
#        READS_ONLY=1: keep the DBs of an earlier run (READS > 0), redo the reads
set -eu
plugin=${1:?usage: $0 path/to/liblinebloom_rocksdb.so}
num=${NUM:-2000000}
overwrite=${OVERWRITE:-1}
value_size=${VALUE_SIZE:-100}
write_buffer=${WRITE_BUFFER:-131072}
target_file=${TARGET_FILE:-$write_buffer}
level_base=${LEVEL_BASE:-$((4 * write_buffer))}
la_policy=${LA_POLICY:-'{id=linebloom;bits_per_key=10;level_aware=true;size_ratio=10}'}
fill_seed=${FILL_SEED:-1}
reads=${READS:-0}
work=${WORKDIR:-/tmp/linebloom-level-aware-live}
db_bench=${DB_BENCH:-db_bench}
sst_dump=${SST_DUMP:-sst_dump}
ldb=${LDB:-ldb}
refilter=${REFILTER:-$(dirname "$plugin")/tools/linebloom-refilter}
mkdir -p "$work"

. "$(dirname "$0")/lsm_options.sh"
. "$(dirname "$0")/per_level_counts.sh"
listener_line=""
[ "${LISTENER:-1}" = 0 ] || listener_line="listeners={id=linebloom_level_aware}"
write_options() {  # file policy disable_auto_compactions
  lsm_options "$1" "$2" "$3" 0 4 compression=kNoCompression "$listener_line"
}

# level file filter_entries filter_bytes, one line per live SST of DB.
. "$(dirname "$0")/sst_filters.sh"
filter_properties() { sst_filters "$1"; }

# file level_written, from the LOG's event lines: each table_file_creation
# names its job; a job with a compaction_finished event wrote at its
# output_level, any other (a flush) at L0.
written_levels() {  # db
  cat "$1"/LOG.old.* "$1"/LOG 2>/dev/null | grep 'EVENT_LOG_v1' | sed 's/.*EVENT_LOG_v1 //' |
    awk '
      function field(name,   r) {
        if (match($0, "\"" name "\": [0-9-]+")) { r = substr($0, RSTART, RLENGTH); sub(/.*: /, "", r); return r }
        return ""
      }
      /"event": "compaction_finished"/ { out[field("job")] = field("output_level") }
      /"event": "table_file_creation"/ { n++; job[n] = field("job"); file[n] = field("file_number") }
      END { for (i = 1; i <= n; i++) print file[i], (job[i] in out) ? out[job[i]] : 0 }'
}

# Built-in bytes for n entries at 10 bits/key (millibits 10000), per file.
builtin_awk='function builtin(n,   bytes) { bytes = int((n * 10000 + 7999) / 8000); return 5 + 64 * int((bytes + 63) / 64) }'

report() {  # filters-file written-file title
  echo
  echo "$3"
  printf '%-6s %-8s %6s %10s %12s %12s %7s %8s\n' level how files entries linebloom_B builtin_B ratio bits/key
  awk "$builtin_awk"'
    FNR == NR { written[$1] = $2; next }
    { lv = $1; how = ($2 in written) ? (written[$2] == lv ? "written" : "moved") : "unknown"
      if ($3 == 0) how = "nofilt"
      k = lv SUBSEP how; f[k]++; e[k] += $3; lb[k] += $4; bi[k] += ($3 ? builtin($3) : 0)
      k = lv SUBSEP "all"; f[k]++; e[k] += $3; lb[k] += $4; bi[k] += ($3 ? builtin($3) : 0)
      k = "all" SUBSEP how; f[k]++; e[k] += $3; lb[k] += $4; bi[k] += ($3 ? builtin($3) : 0)
      k = "all" SUBSEP "all"; f[k]++; e[k] += $3; lb[k] += $4; bi[k] += ($3 ? builtin($3) : 0)
      levels[lv] = 1 }
    function row(l, h,   k) {
      k = l SUBSEP h; if (!(k in f)) return
      printf "%-6s %-8s %6d %10d %12d %12d %7.4f %8.3f\n", (l == "all" ? "total" : "L" l), h, f[k], e[k], lb[k], bi[k],
             bi[k] ? lb[k] / bi[k] : 0, e[k] ? 8 * lb[k] / e[k] : 0 }
    END { for (l = 0; l < 7; l++) if (l in levels) { row(l, "all"); row(l, "written"); row(l, "moved"); row(l, "unknown"); row(l, "nofilt") }
          row("all", "all"); row("all", "written"); row("all", "moved"); row("all", "unknown"); row("all", "nofilt") }' \
    "$2" "$1"
}

ticker() {  # name file
  awk -v name="$1" '$1 == name && $2 == "COUNT" { print $4 }' "$2"
}

db="$work/db-live"
[ "${READS_ONLY:-0}" != 1 ] || [ "$reads" -gt 0 ] || { echo "READS_ONLY=1 needs READS > 0" >&2; exit 2; }
if [ "${REPORT_ONLY:-0}" != 1 ] && [ "${READS_ONLY:-0}" != 1 ]; then
  write_options "$work/live.OPTIONS" "$la_policy" false
  rm -rf "$db"
  benchmarks=fillrandom
  [ "$overwrite" = 0 ] || benchmarks=$benchmarks,overwrite
  # flush: no WAL left, so a later open writes no recovery L0 file.
  benchmarks=$benchmarks,flush,waitforcompaction,levelstats,stats
  echo "fill of $num keys$( [ "$overwrite" = 0 ] || echo ", then $num overwrites") in one process..." >&2
  start=$(date +%s)
  # --num: the key space and each phase's writes.
  LD_PRELOAD="$plugin" "$db_bench" --db="$db" --options_file="$work/live.OPTIONS" \
    --benchmarks="$benchmarks" --num="$num" --key_size=16 --value_size="$value_size" \
    --compression_ratio=0.5 --threads=1 --statistics --seed="$fill_seed" >"$work/live.out" 2>&1 ||
    { tail -n 20 "$work/live.out" >&2; exit 1; }
  echo "  done in $(( $(date +%s) - start )) s" >&2
fi
filter_properties "$db" >"$work/filters-live.txt"
written_levels "$db" >"$work/written-live.txt"

grep -m1 '^RocksDB:' "$work/live.out" || true
echo "fill $num keys$( [ "$overwrite" = 0 ] || echo " + overwrite $num keys") (16-byte keys, $value_size-byte values), write buffer $write_buffer,"
echo "target file $target_file, level base $level_base, dynamic level bytes; policy $la_policy; listener: ${listener_line:-none}"
echo "LSM shape (level:files), db_bench levelstats at the end:"
awk '/^Level Files Size/ { on = 1; next } on && $1 ~ /^[0-9]+$/ && $2 > 0 { printf "L%s:%s ", $1, $2 } END { print "" }' \
  "$work/live.out"
report "$work/filters-live.txt" "$work/written-live.txt" \
  "Live SSTs (written = built at this level by RocksDB; moved = trivially moved here from above):"

log_all() { cat "$db"/LOG.old.* "$db"/LOG 2>/dev/null; }
echo
echo "LOG: trivial moves $(log_all | grep -c 'Moving #' || true), compactions finished" \
  "$(log_all | grep -c '"event": "compaction_finished"' || true), flushes $(log_all | grep -c '"event": "flush_finished"' || true)," \
  "files deleted $(log_all | grep -c '"event": "table_file_deletion"' || true)"
echo "LOG: trivial moves by target level: $(log_all | sed -n 's/.*Moving #[0-9]* to level-\([0-9]*\) .*/\1/p' | sort -n | uniq -c |
  awk '{ printf "L%s:%s ", $2, $1 }')"
# The event lines quote table properties (filter_policy "linebloom"); skip them.
log_lines() { log_all | grep -v EVENT_LOG_v1; }
echo "LOG: [WARN]/[ERROR]/[FATAL] lines $(log_lines | grep -cE '\[(WARN|ERROR|FATAL)\]' || true)," \
  "Status lines (Corruption:/IO error:/Invalid argument:/Background error)" \
  "$(log_lines | grep -cE 'Corruption:|IO error:|Invalid argument:|Background error' || true)"
log_lines | grep -E '\[(WARN|ERROR|FATAL)\]' | sed 's/^[^ ]* [^ ]* //' | sort | uniq -c | sort -rn | head -n 5
echo "LOG: linebloom lines: $(log_lines | grep -c linebloom || true)" \
  "(level_aware allocations $(log_lines | grep -c 'linebloom level_aware' || true)," \
  "of them tracked-tree plans $(log_lines | grep -c 'linebloom level_aware.*tracked tree' || true);" \
  "other $(log_lines | grep linebloom | grep -vc 'linebloom level_aware' || true))"
# Options dumps name the policy too; anything else is the policy talking.
log_lines | grep linebloom | grep -v 'linebloom level_aware' | sed 's/^[^ ]* [^ ]* //' | sort | uniq -c | head -n 10
echo "last allocation:"
log_all | grep 'linebloom level_aware' | tail -n 1 | sed 's/.*linebloom level_aware/  linebloom level_aware/'

[ "$reads" -gt 0 ] || exit 0

# Copies of the live tree refiltered (same files, same levels) for reference.
[ -x "$refilter" ] || { echo "READS needs linebloom-refilter (not at $refilter; set REFILTER)" >&2; exit 2; }
write_options "$work/read-live.OPTIONS" "$la_policy" true
for config in uniform builtin; do
  case $config in
    uniform) policy='{id=linebloom;bits_per_key=10}' ;;
    builtin) policy='bloomfilter:10:false' ;;
  esac
  write_options "$work/$config.OPTIONS" "$policy" true
  cp "$work/$config.OPTIONS" "$work/read-$config.OPTIONS"
  if [ "${REPORT_ONLY:-0}" != 1 ] && [ "${READS_ONLY:-0}" != 1 ]; then
    rm -rf "$work/db-$config"
    cp -a "$db" "$work/db-$config"
    "$refilter" --db="$work/db-$config" --options="$work/$config.OPTIONS" --passes=1 \
      >"$work/refilter-$config.out" 2>&1 || { cat "$work/refilter-$config.out" >&2; exit 1; }
  fi
  filter_properties "$work/db-$config" >"$work/filters-$config.txt"
done

echo
echo "readmissing, $reads absent keys (fp = full.positive - full.true.positive; bytes: live SSTs, sst_dump):"
printf '%-10s %12s %12s %9s %10s %12s %10s\n' config filter_B builtin_fml x_fml checks/lk fp fp/lookup
for config in live uniform builtin; do
  d="$work/db-$config"
  out="$work/readmissing-$config.out"
  if [ "${REPORT_ONLY:-0}" != 1 ]; then
    LD_PRELOAD="$plugin" "$db_bench" --db="$d" --options_file="$work/read-$config.OPTIONS" \
      --benchmarks=readmissing --num="$num" --key_size=16 --value_size="$value_size" --threads=1 \
      --statistics --perf_level=2 --use_existing_db=1 --reads="$reads" --seed=2 >"$out" 2>&1 || { tail -n 20 "$out" >&2; exit 1; }
  fi
  u=$(ticker rocksdb.bloom.filter.useful "$out")
  p=$(ticker rocksdb.bloom.filter.full.positive "$out")
  tp=$(ticker rocksdb.bloom.filter.full.true.positive "$out")
  awk -v c="$config" -v u="${u:-0}" -v p="${p:-0}" -v tp="${tp:-0}" -v reads="$reads" "$builtin_awk"'
    { b += $4; if ($3) bi += builtin($3) }
    END { printf "%-10s %12d %12d %9.4f %10.3f %12d %10.5f\n", c, b, bi, bi ? b / bi : 0, (u + p) / reads, p - tp,
                 (p - tp) / reads }' "$work/filters-$config.txt"
done

# Per level: the perf context's filter answers ("bloom_filter_useful =
# 197062@level0, 26885@level4, ..."), checks = useful + positive; every key
# is absent, so positives are false positives.
echo
echo "readmissing per level (perf context): checks and false positives per lookup, FPR of the level's filters:"
printf '%-10s %5s %9s %10s %8s %9s\n' config level checks fp/lookup fpr% bits/key
for config in live uniform builtin; do
  per_level_counts "$work/readmissing-$config.out" | sort -n |
    awk -v c="$config" -v reads="$reads" -v ff="$work/filters-$config.txt" '
      BEGIN { while ((getline line < ff) > 0) { split(line, a, " "); e[a[1]] += a[3]; b[a[1]] += a[4] } }
      { k = $2 + $3; printf "%-10s %5s %9.4f %10.5f %8.3f %9.3f\n", c, "L" $1, k / reads, $3 / reads,
               k ? 100 * $3 / k : 0, e[$1] ? 8 * b[$1] / e[$1] : 0 }'
done

# The live level-aware filters against the best per-level allocation of the
# built-in's bytes on this tree (linebloom-level-bound --filters, the scorer
# of level_aware_score.sh): entries per level from the built-in copy's
# filters, lookups reaching each level from its per-level answers.
level_bound=${LEVEL_BOUND:-$(dirname "$plugin")/tools/linebloom-level-bound}
if [ -x "$level_bound" ]; then
  fp_per_lookup() {
    p=$(ticker rocksdb.bloom.filter.full.positive "$work/readmissing-$1.out")
    tp=$(ticker rocksdb.bloom.filter.full.true.positive "$work/readmissing-$1.out")
    awk -v p="${p:-0}" -v tp="${tp:-0}" -v reads="$reads" 'BEGIN { printf "%.6f", (p - tp) / reads }'
  }
  filter_bytes() { awk '{ b += $4 } END { print b + 0 }' "$work/filters-$1.txt"; }
  echo
  echo "live level-aware against the best per-level allocation at the built-in's bytes (linebloom-level-bound):"
  per_level_counts "$work/readmissing-builtin.out" | sort -n >"$work/perlevel-builtin.txt"
  awk -v counts="$work/perlevel-builtin.txt" '
    BEGIN { while ((getline line < counts) > 0) { split(line, a, " "); k[a[1]] = a[2] + a[3] } }
    { e[$1] += $3 } END { for (l in e) if (k[l] > 0) print l, e[l], k[l] }' "$work/filters-builtin.txt" | sort -n |
    "$level_bound" --lookups "$reads" --filters "$(wc -l <"$work/filters-builtin.txt")" --target-score 0.85 \
      --candidate-fp "$(fp_per_lookup live)" --reference-fp "$(fp_per_lookup builtin)" \
      --candidate-bytes "$(filter_bytes live)" --reference-bytes "$(filter_bytes builtin)" || true
fi
