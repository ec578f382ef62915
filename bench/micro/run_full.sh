#!/usr/bin/env bash
# The full benchmark behind BENCHMARKS.md: builds, runs linebloom-bench at
# 1, 16 and 128 MiB (about 10 minutes; needs ~8 GB of RAM), the main rows
# again as medians of 5 alternating runs (run_targets.sh, about 5 more), a
# false-positive sweep over bits/key, and draws the plots into docs/bench/.
#   bench/micro/run_full.sh [extra linebloom-bench flags]
# Its ratios are against the built-in of the RocksDB the default build links
# (Debian's 7.8.3, portable); bench/micro/run_rocksdb11.sh runs the same
# bench against RocksDB 11.8.1's AVX2 build, and bench/micro/query_cost.sh
# BUILD_DIR counts instructions per query (callgrind) for either build.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
"$root/tests/deps.sh"
build=${BUILD_DIR:-$root/build}
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" -j "$(nproc)" --target linebloom-bench
bench="$build/bench/micro/linebloom-bench"
out="$root/docs/bench"
mkdir -p "$out/fpr_sweep"
"$bench" --sizes_mb 1,16,128 --json "$out/sizes.json" "$@" | tee "$out/sizes.txt"
# The API, plugin and built-in rows as medians of 5 alternating runs.
"$root/bench/micro/run_targets.sh" "$build" "$out/targets-7.8.3" "$@"
for bits in 6 8 10 12 16 20; do
  "$bench" --sizes_mb 4 --bits_per_key "$bits" --benchmark_filter='^build/(linebloom|rocksdb-bloom)/' \
    --json "$out/fpr_sweep/fpr_$bits.json" >/dev/null
done
python3 "$root/bench/micro/plot_bench.py" "$out/sizes.json" "$out/fpr_sweep" "$out"
echo "wrote $out"
