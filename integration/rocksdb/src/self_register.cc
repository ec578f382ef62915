// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// Linked only into liblinebloom_rocksdb.so: registering at load time is what
// lets unmodified RocksDB tools (db_bench, ldb, sst_dump) accept "linebloom"
// in --options_file / option strings when the library is LD_PRELOADed.
// librocksdb.so is a dependency of this object, so its own static objects
// (ObjectLibrary::Default()) are initialised before this runs.

#include "linebloom/rocksdb/registration.h"

namespace {

[[maybe_unused]] const bool kRegistered = [] {
  linebloom::rocksdb_plugin::RegisterLinebloomWithDefaultLibrary();
  return true;
}();

}  // namespace
