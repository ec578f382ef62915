// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// Makes "linebloom" a FilterPolicy id that RocksDB's option strings,
// OPTIONS files and FilterPolicy::CreateFromString understand:
//
//   linebloom                      bits_per_key 10
//   linebloom:9.5                  bits_per_key 9.5
//   linebloom:10:6                 bits_per_key 10, compact_from_level 6
//   id=linebloom;bits_per_key=12;num_probes=0;verify_checksum=false
//
// and "linebloom_level_aware" an EventListener id (level_aware_listener.h):
// listeners={id=linebloom_level_aware} in DBOptions.
//
// Programs call RegisterLinebloomWithDefaultLibrary() once before parsing
// options; liblinebloom_rocksdb.so does it by itself when it is loaded
// (LD_PRELOAD into db_bench, ldb, sst_dump).

#pragma once

#include <string>

#include <rocksdb/utilities/object_registry.h>

namespace linebloom::rocksdb_plugin {

// Adds the linebloom FilterPolicy and listener factories to `library` and
// returns the number of factories added. The signature is RocksDB's RegistrarFunc, so it can also
// be passed to ObjectLibrary::Register or ObjectRegistry::AddLibrary.
int RegisterLinebloom(::rocksdb::ObjectLibrary& library, const std::string& arg = "");

// RegisterLinebloom on ObjectLibrary::Default(), once per process
// (thread-safe; later calls do nothing).
void RegisterLinebloomWithDefaultLibrary();

}  // namespace linebloom::rocksdb_plugin
