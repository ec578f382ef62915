#!/usr/bin/env python3
"""linebloom from Python through RocksDB's C API, with ctypes alone.

Bindings built on rocksdb/c.h (and a program like this one) cannot hand
RocksDB a custom FilterPolicy object, but they can parse option strings.
Loading liblinebloom_rocksdb.so next to the same librocksdb and calling
linebloom_rocksdb_register() makes "linebloom" a filter policy those
strings can name.

    python3 docs/examples/linebloom_ctypes.py \\
        --linebloom build/integration/rocksdb/liblinebloom_rocksdb.so

The test suite runs this example (rocksdb_python_ctypes_example) against
Debian's librocksdb.
"""

import argparse
import ctypes
import ctypes.util
import os
import re
import sys
import tempfile

KEYS = 10000


def load(rocksdb_path, linebloom_path):
    # RTLD_GLOBAL: linebloom's object resolves RocksDB's symbols from the
    # librocksdb already loaded, so both use one RocksDB and one registry.
    rocksdb = ctypes.CDLL(rocksdb_path, mode=ctypes.RTLD_GLOBAL)
    linebloom = ctypes.CDLL(linebloom_path, mode=ctypes.RTLD_GLOBAL)
    c_char_pp = ctypes.POINTER(ctypes.c_char_p)
    signatures = {
        "rocksdb_options_create": ([], ctypes.c_void_p),
        "rocksdb_options_destroy": ([ctypes.c_void_p], None),
        "rocksdb_get_options_from_string": (
            [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p, c_char_pp], None),
        "rocksdb_options_enable_statistics": ([ctypes.c_void_p], None),
        "rocksdb_options_statistics_get_string": ([ctypes.c_void_p], ctypes.c_void_p),
        "rocksdb_open": ([ctypes.c_void_p, ctypes.c_char_p, c_char_pp], ctypes.c_void_p),
        "rocksdb_close": ([ctypes.c_void_p], None),
        "rocksdb_writeoptions_create": ([], ctypes.c_void_p),
        "rocksdb_readoptions_create": ([], ctypes.c_void_p),
        "rocksdb_flushoptions_create": ([], ctypes.c_void_p),
        "rocksdb_put": ([ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t,
                         ctypes.c_char_p, ctypes.c_size_t, c_char_pp], None),
        "rocksdb_get": ([ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t,
                         ctypes.POINTER(ctypes.c_size_t), c_char_pp], ctypes.c_void_p),
        "rocksdb_flush": ([ctypes.c_void_p, ctypes.c_void_p, c_char_pp], None),
        "rocksdb_free": ([ctypes.c_void_p], None),
    }
    for name, (argtypes, restype) in signatures.items():
        function = getattr(rocksdb, name)
        function.argtypes, function.restype = argtypes, restype
    linebloom.linebloom_rocksdb_register.argtypes = []
    linebloom.linebloom_rocksdb_register.restype = None
    return rocksdb, linebloom


def call(function, *args):
    """Calls a rocksdb_* function whose last argument is char** errptr."""
    err = ctypes.c_char_p()
    result = function(*args, ctypes.byref(err))
    if err.value is not None:
        raise RuntimeError(f"{function.__name__}: {err.value.decode()}")
    return result


def run(rocksdb, linebloom, db_path):
    linebloom.linebloom_rocksdb_register()
    base, options = rocksdb.rocksdb_options_create(), rocksdb.rocksdb_options_create()
    call(rocksdb.rocksdb_get_options_from_string, base,
         b"create_if_missing=true;block_based_table_factory={filter_policy=linebloom:10}",
         options)
    rocksdb.rocksdb_options_enable_statistics(options)
    db = call(rocksdb.rocksdb_open, options, db_path.encode())
    write, read = rocksdb.rocksdb_writeoptions_create(), rocksdb.rocksdb_readoptions_create()

    def key(i):
        return b"key%08d" % i

    for i in range(0, 2 * KEYS, 2):  # even keys present, odd ones absent
        call(rocksdb.rocksdb_put, db, write, key(i), 11, key(i), 11)
    call(rocksdb.rocksdb_flush, db, rocksdb.rocksdb_flushoptions_create())

    def get(k):
        length = ctypes.c_size_t()
        value = call(rocksdb.rocksdb_get, db, read, k, len(k), ctypes.byref(length))
        if not value:
            return None
        data = ctypes.string_at(value, length.value)
        rocksdb.rocksdb_free(value)
        return data

    missing = sum(get(key(i)) != key(i) for i in range(0, 2 * KEYS, 2))
    found_absent = sum(get(key(i)) is not None for i in range(1, 2 * KEYS, 2))
    text_pointer = rocksdb.rocksdb_options_statistics_get_string(options)
    stats = ctypes.string_at(text_pointer).decode()
    rocksdb.rocksdb_free(text_pointer)
    useful = int(re.search(r"rocksdb\.bloom\.filter\.useful COUNT : (\d+)", stats).group(1))
    rocksdb.rocksdb_close(db)
    print(f"present keys missing: {missing}, absent keys found: {found_absent}, "
          f"rocksdb.bloom.filter.useful: {useful} of {KEYS} absent-key lookups")
    return missing == 0 and found_absent == 0 and useful > KEYS * 9 // 10


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--linebloom", required=True, help="path of liblinebloom_rocksdb.so")
    parser.add_argument("--rocksdb", default=ctypes.util.find_library("rocksdb"),
                        help="path or name of librocksdb (default: the system's)")
    parser.add_argument("--db", help="DB folder to create (default: a temporary one)")
    args = parser.parse_args()
    if args.rocksdb is None:
        parser.error("no librocksdb found; pass --rocksdb")
    rocksdb, linebloom = load(args.rocksdb, os.path.abspath(args.linebloom))
    with tempfile.TemporaryDirectory() as scratch:
        ok = run(rocksdb, linebloom, args.db or os.path.join(scratch, "db"))
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
