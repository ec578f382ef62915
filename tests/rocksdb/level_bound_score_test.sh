#!/bin/sh
# linebloom-level-bound's score: the bound at the reference's real bytes less
# one 16-byte trailer per filter, and PASS / FAIL on the share and the bytes.
# usage: level_bound_score_test.sh path/to/linebloom-level-bound
set -u
bound=${1:?usage: $0 linebloom-level-bound}
levels='3 3000 30000
4 11000 60000
5 120000 310000
6 1200000 500000'
entries=1334000
fails=0
check() {  # check NAME WANTED_EXIT PATTERN ARGS...
  name=$1 want=$2 pattern=$3
  shift 3
  out=$(printf '%s\n' "$levels" | "$bound" --lookups 500000 "$@")
  rc=$?
  if [ "$rc" != "$want" ] || ! printf '%s\n' "$out" | grep -E -q -- "$pattern"; then
    echo "FAIL $name: exit $rc (want $want), output:"
    printf '%s\n' "$out"
    fails=$((fails + 1))
  else
    echo "ok   $name"
  fi
}
# 1 700 000 bytes over 1 334 000 entries is 10.195 bits/key; less 1 000
# trailers of 16 bytes it is 10.075.
bits=$(awk -v e=$entries 'BEGIN { printf "%.3f", 8 * (1700000 - 1000 * 16) / e }')
# The bound's own best, measured: a share of 100 %.
best=$(printf '%s\n' "$levels" | "$bound" --lookups 500000 --bits "$bits" | awk '{ print $7 }')
check "bits at the reference's bytes less the trailers" 0 "^at $bits bits/key" \
  --candidate-fp "$best" --reference-fp 0.0200 --candidate-bytes 1690000 --reference-bytes 1700000 --filters 1000
check "the best allocation scores 100 %" 0 "= (99\.[5-9]|100\.[0-4]) %.*: PASS$" \
  --candidate-fp "$best" --reference-fp 0.0200 --candidate-bytes 1690000 --reference-bytes 1700000 --filters 1000
check "no reduction fails" 1 "= 0.0 %.*: FAIL$" \
  --candidate-fp 0.0200 --reference-fp 0.0200 --candidate-bytes 1690000 --reference-bytes 1700000 --filters 1000
check "one byte over the reference fails" 1 ": FAIL$" \
  --candidate-fp "$best" --reference-fp 0.0200 --candidate-bytes 1700001 --reference-bytes 1700000 --filters 1000
check "trailers as bits give a larger bound, a smaller share" 0 "trailers as bits: [0-9][0-9]\.[0-9] %\]" \
  --candidate-fp "$best" --reference-fp 0.0200 --candidate-bytes 1690000 --reference-bytes 1700000 --filters 1000
check "bytes that leave no bits are an error" 2 "" \
  --candidate-fp "$best" --reference-fp 0.0200 --reference-bytes 1000 --filters 1000
[ "$fails" = 0 ]
