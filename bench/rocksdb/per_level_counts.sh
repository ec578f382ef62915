# shellcheck shell=sh
# Sourced by the db_bench scripts here.
#
# per_level_counts READ_OUTPUT...: per level, "level useful positive
# cache_hits cache_misses", from the perf context's per-level counts that
# db_bench prints with --perf_level=2 ("bloom_filter_useful = 197062@level0,
# 26885@level4, ..."), summed over the given outputs; levels unsorted.
per_level_counts() {  # read-output...
  awk '/bloom_filter_useful = / {
         m = split($0, tok, ", ")
         for (i = 1; i <= m; i++) {
           t = tok[i]
           if (t ~ / = /) { split(t, kv, " = "); metric = kv[1]; t = kv[2] }
           if (t ~ /^[0-9]+@level[0-9]+$/) { split(t, a, "@level"); n[metric, a[2]] += a[1]; lv[a[2]] = 1 }
         } }
       END { for (l in lv) print l, n["bloom_filter_useful", l] + 0, n["bloom_filter_full_positive", l] + 0,
                                n["block_cache_hit_count", l] + 0, n["block_cache_miss_count", l] + 0 }' "$@"
}
