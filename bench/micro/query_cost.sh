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

# Instructions inside the op's Measured* function, divided by what it counted.
per_unit() {
  local filter=$1 op=$2 fn
  shift 2
  case $op in
    build) fn=MeasuredBuild ;; neg) fn=MeasuredSingle ;; batch32) fn=MeasuredBatch ;; get5) fn=MeasuredGet ;;
  esac
  LINEBLOOM_KERNEL=avx2 valgrind --tool=callgrind --toggle-collect="*$fn*" \
    --callgrind-out-file="$out/cg.$filter.$op" "$tool" --filter "$filter" --op "$op" "$@" \
    >"$out/log.$filter.$op" 2>"$out/err.$filter.$op"
  local ir counted
  ir=$(callgrind_annotate "$out/cg.$filter.$op" 2>/dev/null | awk '/PROGRAM TOTALS/ {gsub(",", "", $1); print $1; exit}')
  counted=$(sed -n 's/.* counted=\([0-9]*\) .*/\1/p' "$out/log.$filter.$op")
  awk -v ir="$ir" -v n="$counted" 'BEGIN { printf "%.1f", ir / n }'
}

label=$("$tool" --smoke | sed -n '1s/.*builtin="\([^"]*\)".*/\1/p')
echo "Instructions per key built, per negative query, per key of a negative batch of 32, per 5-level Get (callgrind, LINEBLOOM_KERNEL=avx2, 16-byte keys, 10 bits/key; $*)"
echo "builtin = $label"
echo
echo "| op | api | plugin | builtin | plugin / builtin | api / builtin |"
echo "|---|---|---|---|---|---|"
for op in build neg batch32 get5; do
  api=$(per_unit api "$op" "$@")
  plugin=$(per_unit plugin "$op" "$@")
  builtin=$(per_unit builtin "$op" "$@")
  awk -v op="$op" -v a="$api" -v p="$plugin" -v b="$builtin" \
    'BEGIN { printf "| %s | %s | %s | %s | %.2f | %.2f |\n", op, a, p, b, p / b, a / b }'
done
