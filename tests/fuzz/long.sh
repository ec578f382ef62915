#!/usr/bin/env bash
# The long fuzz run behind RELIABILITY.md: each target for SECONDS (default
# 600), one at a time (the machine's cores are shared). Unlike the smoke run
# the working corpus persists in build-fuzz/long/<target>/corpus, so repeated
# runs keep deepening it. Logs: build-fuzz/long/<target>.log; one line per
# run is appended to build-fuzz/long/summary.tsv:
#   date  target  executions  seconds  exec/s  result
# Findings (crash-*, leak-*, timeout-*, oom-*) stay in build-fuzz/long/<target>/;
# once fixed, copy the input into tests/fuzz/corpus/<target>/ as regress-NAME.
# Usage: tests/fuzz/long.sh [SECONDS] [TARGET...]
set -euo pipefail
seconds=${1:-600}
shift || true
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${FUZZ_BUILD_DIR:-$root/build-fuzz}
source "$here/targets.sh"
targets=("$@")
if ((${#targets[@]} == 0)); then targets=("${LINEBLOOM_FUZZ_TARGETS[@]}"); fi
"$here/build.sh"

out=$build/long
mkdir -p "$out"
failed=0
for target in "${targets[@]}"; do
  binary=$build/tests/fuzz/$target
  [ -x "$binary" ] || { echo "$target: not built, skipped"; continue; }
  log=$out/$target.log
  if run_fuzzer "$target" "$binary" "$here/corpus/$target" "$out/$target" "$seconds" "$log"; then
    result=ok
  else
    result=FOUND
    failed=1
  fi
  read -r runs secs rate < <(summarize "$log")
  printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$(date -u +%F)" "$target" "$runs" "$secs" "$rate" "$result" | tee -a "$out/summary.tsv"
done
exit $failed
