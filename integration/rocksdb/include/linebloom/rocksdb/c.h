/* Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
 *
 * linebloom for programs and language bindings that use RocksDB through its
 * C API (rocksdb/c.h: rust-rocksdb, grocksdb, Python's ctypes and cffi
 * bindings). That API takes no custom FilterPolicy, but it parses option
 * strings and OPTIONS files (rocksdb_get_options_from_string,
 * rocksdb_load_latest_options), which name linebloom once it is registered:
 *
 *   linebloom_rocksdb_register();
 *   rocksdb_get_options_from_string(base,
 *       "block_based_table_factory={filter_policy=linebloom:10}", opts, &err);
 *
 * Every option of the policy is reachable that way, e.g. the compact filter
 * from level 6 down (as rocksdb_filterpolicy_create_ribbon_hybrid(10, 6)
 * chooses Ribbon from level 6):
 *
 *   "block_based_table_factory={filter_policy=linebloom:10:6}"
 *   "block_based_table_factory={filter_policy={id=linebloom;bits_per_key=10;"
 *       "compact_from_level=6}}"
 *
 * Link liblinebloom_rocksdb.so (which also registers by itself when it is
 * loaded) or the static linebloom_rocksdb_policy library, with the same
 * RocksDB the program uses. */

#ifndef LINEBLOOM_ROCKSDB_C_H_
#define LINEBLOOM_ROCKSDB_C_H_

#ifdef __cplusplus
extern "C" {
#endif

/* Registers the FilterPolicy ids "linebloom" and "linebloom:<bits per key>"
 * and the EventListener id "linebloom_level_aware" with RocksDB's default
 * object library, the one option strings and OPTIONS files are parsed with.
 * Call it before parsing options. Thread-safe; calls after the first do
 * nothing. */
void linebloom_rocksdb_register(void);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* LINEBLOOM_ROCKSDB_C_H_ */
