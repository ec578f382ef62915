# Sourced by smoke.sh and long.sh: the fuzz targets, in run order. A target
# not built (its library is not configured) is skipped, with a line saying so.
LINEBLOOM_FUZZ_TARGETS=(
  fuzz_filter_parse
  fuzz_filter_differential
  fuzz_compact_filter
  fuzz_sstable_reader
  fuzz_kvstore_recovery
)

# run_fuzzer TARGET BINARY CORPUS_DIR WORK_DIR SECONDS LOG: one bounded run,
# seeded from CORPUS_DIR (read only), growing WORK_DIR/corpus. Crash inputs
# land in WORK_DIR/ (crash-*, leak-*, timeout-*, oom-*). Returns libFuzzer's
# exit status: 0 only if nothing was found.
run_fuzzer() {
  local target=$1 binary=$2 seeds=$3 work=$4 seconds=$5 log=$6
  local src_dir
  src_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
  mkdir -p "$work/corpus"
  local args=(-max_total_time="$seconds" -timeout=30 -rss_limit_mb=2048
              -print_final_stats=1 -artifact_prefix="$work/")
  if [ -f "$src_dir/$target.dict" ]; then args+=(-dict="$src_dir/$target.dict"); fi
  # The first directory collects new inputs; the committed seeds are only read.
  "$binary" "${args[@]}" "$work/corpus" "$seeds" >"$log" 2>&1
}

# summarize LOG: "executions seconds exec/s" from libFuzzer's final stats.
summarize() {
  local log=$1
  local runs secs rate
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  secs=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$log" | tail -1)
  echo "${runs:-?} ${secs:-?} ${rate:-?}"
}
