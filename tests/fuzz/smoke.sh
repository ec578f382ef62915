#!/usr/bin/env bash
# CI fuzz smoke: builds the fuzz targets (tests/fuzz/build.sh) and runs each
# for SECONDS (default 30), one at a time, from a scratch copy of its
# committed seed corpus. Fails if any target finds a crash, a sanitizer
# report, a leak, a timeout or a broken property; the reproducer is copied to
# build-fuzz/findings/ and its path printed.
# Usage: tests/fuzz/smoke.sh [SECONDS]
set -euo pipefail
seconds=${1:-30}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${FUZZ_BUILD_DIR:-$root/build-fuzz}
source "$here/targets.sh"
"$here/build.sh"

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
failed=0
printf '%-28s %12s %8s %10s  %s\n' target executions seconds exec/s result
for target in "${LINEBLOOM_FUZZ_TARGETS[@]}"; do
  binary=$build/tests/fuzz/$target
  if [ ! -x "$binary" ]; then
    printf '%-28s %s\n' "$target" "(not built: its library is not configured)"
    continue
  fi
  work=$scratch/$target
  log=$scratch/$target.log
  if run_fuzzer "$target" "$binary" "$here/corpus/$target" "$work" "$seconds" "$log"; then
    result=ok
  else
    result=FAILED
    failed=1
    mkdir -p "$build/findings"
    cp "$log" "$build/findings/$target.log"
    for f in "$work"/crash-* "$work"/leak-* "$work"/timeout-* "$work"/oom-*; do
      [ -e "$f" ] && cp "$f" "$build/findings/$target-$(basename "$f")" && result="FAILED: $build/findings/$target-$(basename "$f")"
    done
    grep -E 'ERROR|property violated|SUMMARY' "$log" | head -5 >&2 || true
  fi
  read -r runs secs rate < <(summarize "$log")
  printf '%-28s %12s %8s %10s  %s\n' "$target" "$runs" "$secs" "$rate" "$result"
done
exit $failed
