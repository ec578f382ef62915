#!/usr/bin/env bash
# The speed targets as medians of alternating runs: runs linebloom-bench REPS
# times (default 5) over the API, plugin and built-in rows and the memory
# baseline, every other run with the filters in reverse order, and prints per
# row the median over runs of the ratio measured within each run (Google
# Benchmark's own interleaving aborts in Debian's 1.7.1). The ratios are to
# the built-in of the RocksDB BUILD_DIR links: build (Debian's 7.8.3,
# portable) or build-rocksdb11 (11.8.1, AVX2; bench/micro/run_rocksdb11.sh
# configures it).
#   bench/micro/run_targets.sh BUILD_DIR OUT_DIR [linebloom-bench flags]
#   e.g. bench/micro/run_targets.sh build docs/bench/targets-7.8.3
#        bench/micro/run_targets.sh build-rocksdb11 docs/bench/targets-11.8.1
#        bench/micro/run_targets.sh build /tmp/alloc --filter_memory_allocator
# Environment: REPS (default 5), SIZES_MB (default 1,16,128).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:?usage: $0 BUILD_DIR OUT_DIR [linebloom-bench flags]}
out=${2:?usage: $0 BUILD_DIR OUT_DIR [linebloom-bench flags]}
shift 2
bench=$build/bench/micro/linebloom-bench
[ -x "$bench" ] || { echo "no $bench: cmake --build $build --target linebloom-bench" >&2; exit 2; }
mkdir -p "$out"
rm -f "$out"/run-*.json
for ((rep = 1; rep <= ${REPS:-5}; rep++)); do
  order=()
  if ((rep % 2 == 0)); then order=(--reverse_order); fi
  "$bench" --sizes_mb "${SIZES_MB:-1,16,128}" "${order[@]}" --json "$out/run-$rep.json" "$@" \
    --benchmark_filter='(build|neg|batch32)/(linebloom|linebloom-plugin|rocksdb-bloom)/|memory' \
    >"$out/run-$rep.txt"
  echo "run $rep of ${REPS:-5} done" >&2
done
python3 "$root/bench/micro/median_ratios.py" "$out"/run-*.json | tee "$out/medians.md"
