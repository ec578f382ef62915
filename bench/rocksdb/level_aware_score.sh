#!/bin/sh
# Pass/fail of level-aware linebloom per fill: for each FILL_SEED runs
# level_aware_pair.sh (one tree, refiltered per configuration) and scores
# level_aware against RocksDB's built-in Bloom filter on that tree with
# linebloom-level-bound:
#   score = (fp_builtin - fp_level_aware) / (fp_builtin - best)
# where best is the bound's figure: the false positives per lookup of the
# best per-level bits, knowing each level's lookups exactly, at equal filter
# bytes: the built-in's real bytes (sst_dump's filter block sizes, block
# rounding included) less linebloom's 16-byte trailer per file, spread over
# the tree's entries (linebloom-level-bound --filters). PASS: score >=
# TARGET (0.85) and level_aware's real filter bytes <= the built-in's.
#
# usage: bench/rocksdb/level_aware_score.sh PLUGIN_SO
# env:   SEEDS (default "1 2 3 4 5 6 7 8 9 10")  WORKDIR (default
#        /tmp/linebloom-level-score; one subdirectory per seed)
#        PAIR (the pair script, default level_aware_pair.sh next to this one)
#        SCORE_ONLY=1: score the runs already in WORKDIR
#        TARGET (default 0.85); everything else is passed to the pair script
#        (NUM, READS, ...)
set -u
plugin=${1:?usage: $0 path/to/liblinebloom_rocksdb.so}
here=$(dirname "$0")
pair=${PAIR:-$here/level_aware_pair.sh}
seeds=${SEEDS:-1 2 3 4 5 6 7 8 9 10}
base=${WORKDIR:-/tmp/linebloom-level-score}
target=${TARGET:-0.85}
reads=${READS:-500000}
level_bound=${LEVEL_BOUND:-$(dirname "$plugin")/tools/linebloom-level-bound}
fails=0
for seed in $seeds; do
  work=$base/s$seed
  if [ "${SCORE_ONLY:-0}" != 1 ]; then
    mkdir -p "$work"
    WORKDIR=$work FILL_SEED=$seed CONFIGS="level_aware builtin" sh "$pair" "$plugin" >"$work/pair.out" 2>&1 ||
      { echo "seed $seed: pair script failed (see $work/pair.out)"; fails=$((fails + 1)); continue; }
  fi
  fp() { awk -v c="$1" '$1 == c { print $7 }' "$work/summary.txt"; }
  bytes() { awk -v c="$1" '$1 == c { print $2 }' "$work/summary.txt"; }
  printf 'seed %-3s ' "$seed"
  # The bound on the built-in's tree (all configurations read the same tree).
  sort -n "$work/filters-builtin.txt" | awk -v counts="$work/perlevel-builtin.txt" '
    BEGIN { while ((getline line < counts) > 0) { split(line, a, " "); k[a[1]] = a[2] + a[3] } }
    { e[$1] += $2 } END { for (l in e) if (k[l] > 0) print l, e[l], k[l] }' | sort -n |
    "$level_bound" --lookups "$reads" --filters "$(wc -l <"$work/filters-builtin.txt")" --target-score "$target" \
      --candidate-fp "$(fp level_aware)" --reference-fp "$(fp builtin)" \
      --candidate-bytes "$(bytes level_aware)" --reference-bytes "$(bytes builtin)" >"$work/score.txt"
  tr -s '\n' ' ' <"$work/score.txt"
  echo
  grep -q ': PASS$' "$work/score.txt" || fails=$((fails + 1))
done
echo "$fails fill(s) failed"
[ "$fails" = 0 ]
