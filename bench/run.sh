#!/usr/bin/env bash
# The main job: installs dependencies, builds, and runs linebloom-harness,
# which writes a micro-SSTable of 1 M keys and prints how many data-block
# reads linebloom's filters avoid for absent keys, next to RocksDB's built-in
# Bloom filter and no filter. Extra arguments go to the harness (--help).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/tests/deps.sh"
build=${BUILD_DIR:-$root/build}
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" -j "$(nproc)" --target linebloom-harness
exec "$build/bench/harness/linebloom-harness" "$@"
