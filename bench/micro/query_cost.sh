#!/usr/bin/env bash
# Instructions per query, counted by callgrind (deterministic: usable on a
# loaded machine where timings are not), for linebloom's API, its RocksDB
# plugin and RocksDB's built-in Bloom filter of the RocksDB the build links:
# building (per key), single negative query, negative batch of 32 (per key)
# and the filter work of a 5-level Get of an absent key (per Get). The AVX2 kernel is forced:
# callgrind does not model AVX-512.
#   bench/micro/query_cost.sh BUILD_DIR [--size_mb 1 --queries 200000 ...]
# Needs valgrind. Prints a Markdown table; the built-in is named in it.
set -euo pipefail
build=${1:?usage: $0 BUILD_DIR [linebloom-query-cost flags]}
shift
tool=$build/bench/micro/linebloom-query-cost
[ -x "$tool" ] || { echo "no $tool: cmake --build $build --target linebloom-query-cost" >&2; exit 2; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# Each op of each filter under callgrind, counting instructions inside the
# op's Measured* function only; query_cost_table.py divides them by what the
# tool counted and prints the table.
run_op() {
  local filter=$1 op=$2 fn
  shift 2
  case $op in
    build) fn=MeasuredBuild ;; neg) fn=MeasuredSingle ;; batch32) fn=MeasuredBatch ;; get5) fn=MeasuredGet ;;
  esac
  LINEBLOOM_KERNEL=avx2 valgrind --tool=callgrind --toggle-collect="*$fn*" \
    --callgrind-out-file="$out/cg.$filter.$op" "$tool" --filter "$filter" --op "$op" "$@" \
    >"$out/log.$filter.$op" 2>"$out/err.$filter.$op"
  callgrind_annotate "$out/cg.$filter.$op" >"$out/annotate.$filter.$op" 2>/dev/null
}

label=$("$tool" --smoke | sed -n '1s/.*builtin="\([^"]*\)".*/\1/p')
for op in build neg batch32 get5; do
  for filter in api plugin builtin; do run_op "$filter" "$op" "$@"; done
done
python3 "$(dirname "$0")/query_cost_table.py" "$out" "$label" "$*"
