# Sourced by the db_bench scripts here (needs $plugin, $ldb, $sst_dump).
#
# sst_filters DB: one line per live SST of DB (from its MANIFEST),
#   level file filter_entries filter_bytes
# with the filter's entry count and block size from the table properties
# (sst_dump --show_properties), the plugin preloaded so the tools can name
# linebloom's filter policy.
sst_filters() {  # db
  LD_PRELOAD="$plugin" "$ldb" --db="$1" manifest_dump </dev/null 2>/dev/null |
    awk '/^--- level / { level = $3; next } level != "" && $1 ~ /^[0-9]+:/ { split($1, a, ":"); print level, a[1] }' |
    while read -r level file; do
      sst=$(printf '%s/%06d.sst' "$1" "$file")
      # </dev/null: the tools must not eat the file list this loop reads.
      LD_PRELOAD="$plugin" "$sst_dump" --file="$sst" --show_properties </dev/null 2>/dev/null |
        awk -v level="$level" -v file="$file" -F': ' '
          /^  # entries for filter/ { e = $2 } /^  filter block size/ { b = $2 }
          END { print level, file, e + 0, b + 0 }'
    done
}
