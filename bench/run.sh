#!/usr/bin/env bash
# The main job: installs dependencies, builds, and runs the demo (to be
# replaced by the avoided-I/O harness). Extra arguments go to the program.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/tests/deps.sh"
build=${BUILD_DIR:-$root/build}
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" -j "$(nproc)" --target linebloom-demo
"$build/bench/demo/linebloom-demo" "$@"
