// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// The registrar RocksDB calls when linebloom is built into it as a plugin
// (cmake -DROCKSDB_PLUGINS=linebloom). linebloom.mk names it in
// `linebloom_FUNC`; RocksDB's generated build_version.cc declares it with C
// linkage and adds it to ObjectRegistry's built-in libraries, so every
// ObjectRegistry::Default() -- the one that option strings and OPTIONS files
// are parsed with in db_bench, db_stress, sst_dump, ldb and any program
// linking that librocksdb -- knows "linebloom" without a preload.

#include <string>

#include <rocksdb/utilities/object_registry.h>

#include "linebloom/rocksdb/registration.h"

extern "C" int linebloom_register(ROCKSDB_NAMESPACE::ObjectLibrary& library, const std::string& arg) {
  return linebloom::rocksdb_plugin::RegisterLinebloom(library, arg);
}
