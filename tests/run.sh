#!/usr/bin/env bash
# The test command: installs dependencies, builds (Release), runs every CTest
# suite. Usage: tests/run.sh   (env BUILD_DIR, JOBS override the defaults)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/tests/deps.sh"
build=${BUILD_DIR:-$root/build}
jobs=${JOBS:-$(nproc)}
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" -j "$jobs"
ctest --test-dir "$build" --output-on-failure -j "$jobs"
