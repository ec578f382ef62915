#!/bin/sh
# RocksDB's own stress test, db_stress, with linebloom as the filter policy of
# every column family, given to db_stress through an OPTIONS file.
#
# For each filter kind (full filters; partitioned filters) it runs, on one DB
# and one expected-state directory:
#   1. a first run from an empty DB (finite ops, ends with db_stress's own
#      full verification against the expected state);
#   2. KILL_ROUNDS crash rounds the way RocksDB's black-box crash test does
#      them: start db_stress on the existing DB, let it operate KILL_AFTER
#      seconds, kill -9, and reopen without destroying; each reopen verifies
#      the recovered DB against the expected state ("Crash-recovery
#      verification passed");
#   3. a last run (finite ops) that verifies after the last crash, operates,
#      verifies again and prints RocksDB's statistics.
# Reads alternate between Get (even runs) and batched MultiGet (odd runs).
# The column families use a fixed-prefix extractor (PREFIX_SIZE bytes, the
# same as --prefix_size, which db_stress's prefix scans use) with
# whole-key filtering, so each filter holds keys and prefixes.
#
# It passes when every run verified, the last run's statistics show the
# filters at work (rocksdb.bloom.filter.useful > 0 for point lookups, and
# seeks that consulted the prefix filter), the DB's OPTIONS file names the
# policy, and sst_dump names it as the filter policy of every live SST whose
# filter holds each distinct key and prefix once (exactly, for full filters).
#
# usage: db_stress_linebloom.sh DB_STRESS SST_DUMP PLUGIN_SO|- WORKDIR
#   PLUGIN_SO: liblinebloom_rocksdb.so to LD_PRELOAD into the (prebuilt,
#   -rdynamic) tools; "-" for tools with linebloom built in (ROCKSDB_PLUGINS).
# env: KILL_ROUNDS (3)  KILL_AFTER (seconds of operations before a kill, 10)
#      OPS (ops per thread of the finite runs, 4000)  THREADS (4)
#      MAX_KEY (100000)  COLUMN_FAMILIES (2)  PREFIX_SIZE (7)
#      KINDS ("full partitioned")
#      POLICY (the filter_policy value, "{id=linebloom;bits_per_key=10}";
#        e.g. bloomfilter:10:false runs the same test on RocksDB's own filter)
#      POLICY_NAME (what sst_dump must report, "linebloom")
# Long run (several minutes per round):
#   KILL_ROUNDS=20 KILL_AFTER=60 OPS=50000 MAX_KEY=1000000 THREADS=8 \
#     tests/rocksdb/db_stress_linebloom.sh DB_STRESS SST_DUMP PLUGIN_SO /tmp/stress
set -eu
usage() { echo "usage: $0 DB_STRESS SST_DUMP PLUGIN_SO|- WORKDIR" >&2; exit 2; }
[ $# -eq 4 ] || usage
db_stress=$1 sst_dump=$2 plugin=$3 work=$4
[ -x "$db_stress" ] || { echo "not an executable: $db_stress" >&2; usage; }
[ -x "$sst_dump" ] || { echo "not an executable: $sst_dump" >&2; usage; }
[ "$plugin" = - ] || [ -r "$plugin" ] || { echo "no plugin at $plugin" >&2; usage; }
kill_rounds=${KILL_ROUNDS:-3}
kill_after=${KILL_AFTER:-10}
ops=${OPS:-4000}
threads=${THREADS:-4}
max_key=${MAX_KEY:-100000}
column_families=${COLUMN_FAMILIES:-2}
prefix_size=${PREFIX_SIZE:-7}
kinds=${KINDS:-full partitioned}
policy=${POLICY:-"{id=linebloom;bits_per_key=10}"}
policy_name=${POLICY_NAME:-linebloom}

rm -rf "$work"
mkdir -p "$work"

# The OPTIONS file of one filter kind. Small memtables and files make many
# flushes and compactions, so filters are built and read all the time; only
# LZ4 is linked into the prebuilt tools.
write_options() {  # file kind
  case $2 in
    full) table="partition_filters=false
  index_type=kBinarySearch
  cache_index_and_filter_blocks=false" ;;
    partitioned) table="partition_filters=true
  index_type=kTwoLevelIndexSearch
  metadata_block_size=1024
  cache_index_and_filter_blocks=true
  pin_l0_filter_and_index_blocks_in_cache=true" ;;
    *) echo "unknown filter kind: $2 (full or partitioned)" >&2; exit 2 ;;
  esac
  cat >"$1" <<EOF
[Version]
  rocksdb_version=11.8.1
  options_file_version=1.1

[DBOptions]
  create_if_missing=true
  create_missing_column_families=true
  max_background_jobs=4

[CFOptions "default"]
  write_buffer_size=262144
  max_write_buffer_number=3
  target_file_size_base=1048576
  max_bytes_for_level_base=4194304
  level0_file_num_compaction_trigger=4
  compression=kLZ4Compression
  prefix_extractor=rocksdb.FixedPrefix.$prefix_size
  memtable_prefix_bloom_size_ratio=0.1
  memtable_whole_key_filtering=true

[TableOptions/BlockBasedTable "default"]
  block_size=4096
  whole_key_filtering=true
  filter_policy=$policy
  $table
EOF
}

# Runs db_stress with the flags common to every run; it execs, so call it in
# a subshell: `(stress ...)`, or `stress ... &` to get db_stress's own pid in
# $!. The fault-injection flags must be 0 in a release build.
# --compression_type only satisfies db_stress's own checks (the OPTIONS file
# sets the compression).
stress() {  # log options-file extra-flags...
  log=$1 options=$2; shift 2
  set -- --db="$work/db" --expected_values_dir="$work/expected" --options_file="$options" \
    --column_families="$column_families" --max_key="$max_key" --threads="$threads" \
    --prefix_size="$prefix_size" --compression_type=lz4 \
    --readpercent=45 --prefixpercent=10 --writepercent=30 --delpercent=5 --delrangepercent=1 \
    --iterpercent=9 --nooverwritepercent=1 \
    --clear_column_family_one_in=0 --read_fault_one_in=0 --metadata_read_fault_one_in=0 \
    --write_fault_one_in=0 --metadata_write_fault_one_in=0 "$@"
  if [ "$plugin" != - ]; then
    LD_PRELOAD=$plugin
    export LD_PRELOAD
  fi
  exec "$db_stress" "$@" >"$log" 2>&1
}

fail() { echo "FAIL: $*"; exit 1; }

# A finished run must have verified at the end (and, on an existing DB, at
# the start).
check_finished() {  # log reopened(0|1)
  if grep -qi 'verification failed' "$1" || ! grep -q 'Verification successful' "$1"; then
    tail -n 40 "$1"; fail "db_stress did not verify the DB ($1)"
  fi
  if [ "$2" = 1 ] && ! grep -q 'Crash-recovery verification passed' "$1"; then
    tail -n 40 "$1"; fail "no crash-recovery verification ($1)"
  fi
}

ticker() {  # log name -> count
  awk -v name="$2" '$1 == name && $2 == "COUNT" { c = $4 } END { print c + 0 }' "$1"
}

for kind in $kinds; do
  options="$work/$kind.OPTIONS"
  write_options "$options" "$kind"
  rm -rf "$work/db" "$work/expected"
  mkdir -p "$work/expected"
  run=0
  log="$work/$kind-$run.log"
  echo "$kind: run $run from an empty DB ($threads threads x $ops ops)"
  (stress "$log" "$options" --destroy_db_initially=1 --ops_per_thread="$ops" --reopen=2 \
    --use_multiget=0) || { tail -n 40 "$log"; fail "db_stress exited with an error ($log)"; }
  check_finished "$log" 0

  while [ $run -lt "$kill_rounds" ]; do
    run=$((run + 1))
    log="$work/$kind-$run.log"
    stress "$log" "$options" --destroy_db_initially=0 --ops_per_thread=100000000 --reopen=0 \
      --use_multiget=$((run % 2)) &
    pid=$!
    # Kill only after the reopen verification and some operations; a loaded
    # machine can take a while to get there.
    waited=0
    until grep -q 'Starting database operations' "$log" 2>/dev/null; do
      kill -0 $pid 2>/dev/null || break
      [ $waited -lt 900 ] || { kill -9 $pid; fail "db_stress did not start operating ($log)"; }
      sleep 1
      waited=$((waited + 1))
    done
    sleep "$kill_after"
    kill -9 $pid 2>/dev/null || { wait $pid || true; tail -n 40 "$log"; fail "db_stress ended before the kill ($log)"; }
    wait $pid 2>/dev/null || true
    if grep -qi 'verification failed' "$log" || ! grep -q 'Crash-recovery verification passed' "$log"; then
      tail -n 40 "$log"; fail "crash-recovery verification failed ($log)"
    fi
    echo "$kind: run $run killed (-9) after ${kill_after}s of operations; its reopen verified"
  done

  run=$((run + 1))
  log="$work/$kind-$run.log"
  echo "$kind: run $run, verify after the last kill, operate, verify, statistics"
  (stress "$log" "$options" --destroy_db_initially=0 --ops_per_thread="$ops" --reopen=1 \
    --use_multiget=$((run % 2)) --statistics=1) ||
    { tail -n 40 "$log"; fail "db_stress exited with an error ($log)"; }
  check_finished "$log" "$([ "$kill_rounds" -gt 0 ] && echo 1 || echo 0)"

  useful=$(ticker "$log" rocksdb.bloom.filter.useful)
  positive=$(ticker "$log" rocksdb.bloom.filter.full.positive)
  true_positive=$(ticker "$log" rocksdb.bloom.filter.full.true.positive)
  # Iterator seeks consult the prefix part of the filters: "filtered" when
  # the filter rules the prefix out, "filter.match" when it may be there.
  seek_filtered=$(($(ticker "$log" rocksdb.last.level.seek.filtered) +
    $(ticker "$log" rocksdb.non.last.level.seek.filtered)))
  seek_match=$(($(ticker "$log" rocksdb.last.level.seek.filter.match) +
    $(ticker "$log" rocksdb.non.last.level.seek.filter.match)))
  ops_line=$(grep -m1 -E 'Stress Test *:' "$log" || true)
  echo "$kind: filter useful=$useful full.positive=$positive full.true.positive=$true_positive" \
    "seek.filtered=$seek_filtered seek.filter.match=$seek_match"
  [ -n "$ops_line" ] && echo "$kind: $ops_line"
  [ "$useful" -gt 0 ] || fail "no lookup was answered by a filter ($log)"
  [ $((seek_filtered + seek_match)) -gt 0 ] || fail "no seek consulted a prefix filter ($log)"

  grep -q "filter_policy=.*$policy_name" "$work"/db/OPTIONS-* ||
    fail "the DB's OPTIONS file does not name $policy_name"
  # Every live SST has a filter of the policy, holding each distinct key and
  # each distinct prefix once: RocksDB records the builder's count of added
  # entries as "# entries for filter", and the keys come from a scan of the
  # file (all entry types; several versions of a key are one key). A full
  # filter holds exactly those; in partitioned filters each partition holds
  # its own keys and their prefixes, so a prefix that spans partitions
  # counts once per partition.
  ssts=0 keys_total=0 expected_total=0 entries_total=0 filter_bytes=0
  for sst in "$work"/db/*.sst; do
    [ -e "$sst" ] || continue
    props=$("$sst_dump" --file="$sst" --show_properties 2>&1)
    echo "$props" | grep -q "filter policy name: $policy_name" ||
      { echo "$props" | tail -n 30; fail "$sst: filter policy is not $policy_name"; }
    entries=$(echo "$props" | awk -F': ' '/# entries for filter/ { print $2 }')
    bytes=$(echo "$props" | awk -F': ' '/filter block size/ { print $2 }')
    counts=$("$sst_dump" --file="$sst" --command=scan --output_hex 2>/dev/null |
      awk -F"'" -v hex=$((2 * prefix_size)) '/ seq:/ {
        if (!($2 in key)) { key[$2]; k++ }
        p = substr($2, 1, hex)
        if (length($2) >= hex && !(p in prefix)) { prefix[p]; q++ }
      } END { print k + 0, k + q }')
    keys=${counts% *} expected=${counts#* }
    if [ "$kind" = full ] && [ "$entries" -ne "$expected" ]; then
      fail "$sst: $entries filter entries for $keys distinct keys and $((expected - keys)) distinct prefixes"
    fi
    if [ "$entries" -lt "$expected" ]; then
      fail "$sst: $entries filter entries, fewer than $keys distinct keys and $((expected - keys)) distinct prefixes"
    fi
    ssts=$((ssts + 1)) keys_total=$((keys_total + keys)) expected_total=$((expected_total + expected))
    entries_total=$((entries_total + entries)) filter_bytes=$((filter_bytes + bytes))
  done
  [ $ssts -gt 0 ] || fail "no SST files to check"
  echo "$kind: $ssts live SSTs, each with a $policy_name filter: $entries_total filter entries" \
    "for $keys_total distinct keys + $((expected_total - keys_total)) distinct prefixes," \
    "$(awk -v b="$filter_bytes" -v e="$entries_total" 'BEGIN { printf "%.2f", 8 * b / e }') filter bits per entry"
done
echo PASS
