/* Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
 *
 * linebloom through RocksDB's C API (rocksdb/c.h), as a C program or a
 * binding on that API uses it: linebloom_rocksdb_register(), then an option
 * string naming linebloom, open, put, flush, compact, get. Linked with the
 * static policy library, which registers nothing by itself, so the option
 * string works only because of the registration call.
 *
 * Present keys are even numbers, absent ones odd, so each absent key falls
 * inside the table's key range and RocksDB asks its filter. It checks that
 * present keys are all found (no false negative), absent keys
 * are not, RocksDB's statistics show the filter rejecting nearly every absent
 * key (rocksdb.bloom.filter.useful), and the DB's OPTIONS file names
 * linebloom; once with the Bloom filter (linebloom:10) and once with the
 * compact filter for every file (linebloom:10:-1). Prints "N passed, N
 * failed" and exits non-zero on a failure.
 *
 * usage: c_api_test SCRATCH_DIR */

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <rocksdb/c.h>

#include "linebloom/rocksdb/c.h"

enum { kKeys = 20000 };

static int passed = 0;
static int failed = 0;

static void Check(int ok, const char* what) {
  if (ok) {
    ++passed;
  } else {
    ++failed;
    fprintf(stderr, "FAIL: %s\n", what);
  }
}

static void CheckNoError(char* err, const char* what) {
  if (err != NULL) fprintf(stderr, "%s: %s\n", what, err);
  Check(err == NULL, what);
  rocksdb_free(err);
}

/* The COUNT of one ticker in rocksdb_options_statistics_get_string's text
 * ("rocksdb.bloom.filter.useful COUNT : 19874"), or -1. */
static long Ticker(const char* stats, const char* name) {
  const size_t length = strlen(name);
  for (const char* line = stats; line != NULL && *line != '\0';) {
    long count = 0;
    if (strncmp(line, name, length) == 0 && line[length] == ' ' && sscanf(line + length, " COUNT : %ld", &count) == 1) {
      return count;
    }
    line = strchr(line, '\n');
    if (line != NULL) ++line;
  }
  return -1;
}

/* Whether some OPTIONS-* file in `dir` contains `text`. */
static int OptionsFileContains(const char* dir, const char* text) {
  DIR* d = opendir(dir);
  if (d == NULL) return 0;
  int found = 0;
  for (struct dirent* e; !found && (e = readdir(d)) != NULL;) {
    if (strncmp(e->d_name, "OPTIONS-", 8) != 0) continue;
    char path[4096];
    const int written = snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    if (written < 0 || (size_t)written >= sizeof path) continue;
    FILE* f = fopen(path, "r");
    if (f == NULL) continue;
    char line[4096];
    while (!found && fgets(line, sizeof line, f) != NULL) found = strstr(line, text) != NULL;
    fclose(f);
  }
  closedir(d);
  return found;
}

/* Gets the keys "key%08d" of 2 * i + parity for i < kKeys (parity 0: the
 * keys put, each with itself as value; 1: absent keys) and returns how many
 * were found; `wrong_value` counts those found with another value. */
static int CountFound(rocksdb_t* db, const rocksdb_readoptions_t* read_options, int parity, int* wrong_value) {
  int found = 0;
  char key[32];
  for (int i = 0; i < kKeys; ++i) {
    snprintf(key, sizeof key, "key%08d", 2 * i + parity);
    size_t length = 0;
    char* err = NULL;
    char* value = rocksdb_get(db, read_options, key, strlen(key), &length, &err);
    rocksdb_free(err);
    if (value != NULL) {
      ++found;
      *wrong_value += length != strlen(key) || memcmp(value, key, length) != 0;
    }
    rocksdb_free(value);
  }
  return found;
}

/* Opens a fresh DB at `db_path` with `options_string`, writes and compacts
 * the even keys, and checks every one is found, the odd ones are not and
 * are mostly filtered, and the OPTIONS file holds `options_file_text`. */
static void RunDb(const char* db_path, const char* options_string, const char* options_file_text) {
  printf("%s\n", options_string);
  rocksdb_options_t* base = rocksdb_options_create();
  rocksdb_options_t* options = rocksdb_options_create();
  char* err = NULL;
  rocksdb_get_options_from_string(base, options_string, options, &err);
  CheckNoError(err, "options from a string naming linebloom");
  rocksdb_options_enable_statistics(options);

  err = NULL;
  rocksdb_destroy_db(options, db_path, &err);
  rocksdb_free(err);
  err = NULL;
  rocksdb_t* db = rocksdb_open(options, db_path, &err);
  CheckNoError(err, "open");
  if (db == NULL) {
    rocksdb_options_destroy(options);
    rocksdb_options_destroy(base);
    return;
  }

  rocksdb_writeoptions_t* write_options = rocksdb_writeoptions_create();
  rocksdb_readoptions_t* read_options = rocksdb_readoptions_create();
  char key[32];
  int put_errors = 0;
  for (int i = 0; i < kKeys; ++i) {
    snprintf(key, sizeof key, "key%08d", 2 * i);
    err = NULL;
    rocksdb_put(db, write_options, key, strlen(key), key, strlen(key), &err);
    put_errors += err != NULL;
    rocksdb_free(err);
  }
  Check(put_errors == 0, "put");
  rocksdb_flushoptions_t* flush_options = rocksdb_flushoptions_create();
  err = NULL;
  rocksdb_flush(db, flush_options, &err);
  CheckNoError(err, "flush");
  rocksdb_compact_range(db, NULL, 0, NULL, 0);

  int wrong_value = 0;
  Check(CountFound(db, read_options, 0, &wrong_value) == kKeys, "every present key is found (no false negative)");
  Check(wrong_value == 0, "every present key has its value");
  Check(CountFound(db, read_options, 1, &wrong_value) == 0, "no absent key is found");

  char* stats = rocksdb_options_statistics_get_string(options);
  const long useful = Ticker(stats, "rocksdb.bloom.filter.useful");
  printf("absent-key lookups: %d, rocksdb.bloom.filter.useful: %ld\n", kKeys, useful);
  Check(useful > kKeys * 9L / 10, "the filter rejects more than 90% of absent keys");
  rocksdb_free(stats);
  Check(OptionsFileContains(db_path, options_file_text), "the OPTIONS file names linebloom and its options");

  rocksdb_close(db);
  rocksdb_flushoptions_destroy(flush_options);
  rocksdb_readoptions_destroy(read_options);
  rocksdb_writeoptions_destroy(write_options);
  rocksdb_options_destroy(options);
  rocksdb_options_destroy(base);
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s SCRATCH_DIR\n", argv[0]);
    return 2;
  }
  mkdir(argv[1], 0755); /* RocksDB creates the DB's folder, not its parent */
  char db_path[4096];
  snprintf(db_path, sizeof db_path, "%s/db", argv[1]);

  linebloom_rocksdb_register();
  linebloom_rocksdb_register(); /* a second call does nothing */

  RunDb(db_path,
        "create_if_missing=true;"
        "block_based_table_factory={filter_policy=linebloom:10}",
        "filter_policy={id=linebloom;");
  /* The compact filter everywhere (flushes too), as a binding asks for it. */
  RunDb(db_path,
        "create_if_missing=true;"
        "block_based_table_factory={filter_policy=linebloom:10:-1}",
        "compact_from_level=-1");
  printf("%d passed, %d failed\n", passed, failed);
  return failed == 0 ? 0 : 1;
}
