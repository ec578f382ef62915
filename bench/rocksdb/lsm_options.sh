# shellcheck shell=sh disable=SC2154  # write_buffer, target_file, level_base: set by the sourcing script
# Sourced by the db_bench scripts here (needs $write_buffer, $target_file,
# $level_base).
#
# lsm_options FILE POLICY DISABLE_AUTO_COMPACTIONS DIRECT_READS L0_TRIGGER COMPRESSION_LINE [DB_LINE]
# writes the OPTIONS file of the scripts' leveled trees: 7 levels sized
# dynamically (level_compaction_dynamic_level_bytes) from level_base up by
# 10 x, write buffers and files of the given sizes, 4 KiB blocks, filters
# and indexes held by the table readers (max_open_files=-1, not in the block
# cache), POLICY as the filter policy. DIRECT_READS=1 adds
# use_direct_reads=true; COMPRESSION_LINE is one CFOptions line, DB_LINE
# (optional) one more DBOptions line.
lsm_options() {  # file policy disable_auto_compactions direct_reads l0_trigger compression_line [db_line]
  if [ "$4" = 1 ]; then
    direct_lines="use_direct_reads=true
  max_open_files=-1"
  else
    direct_lines="max_open_files=-1"
  fi
  cat >"$1" <<EOF
[Version]
  rocksdb_version=7.8.3
  options_file_version=1.1
[DBOptions]
  create_if_missing=true
  max_background_jobs=2
  $direct_lines
  ${7:-}
[CFOptions "default"]
  num_levels=7
  write_buffer_size=$write_buffer
  target_file_size_base=$target_file
  max_bytes_for_level_base=$level_base
  max_bytes_for_level_multiplier=10
  level_compaction_dynamic_level_bytes=true
  level0_file_num_compaction_trigger=$5
  disable_auto_compactions=$3
  $6
[TableOptions/BlockBasedTable "default"]
  format_version=5
  block_size=4096
  cache_index_and_filter_blocks=false
  whole_key_filtering=true
  filter_policy=$2
EOF
}
