// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// Which built-in filter a ratio is against: RocksDB's version (from the
// headers the bench is compiled with) and the instruction set its library
// was compiled for, which decides whether its Bloom probe is scalar
// (a portable build) or AVX2 (-march=haswell or newer). The library does not
// say; CMake passes LINEBLOOM_ROCKSDB_ISA (see bench/micro/CMakeLists.txt).

#pragma once

#include <string>

#include <rocksdb/version.h>

#ifndef LINEBLOOM_ROCKSDB_ISA
#define LINEBLOOM_ROCKSDB_ISA "ISA not stated"
#endif

namespace linebloom::bench {

// e.g. "RocksDB 11.8.1 built-in Bloom (AVX2)"; `filter` names the built-in
// filter ("Bloom" or "Ribbon").
inline std::string BuiltinLabel(const std::string& filter = "Bloom") {
  return "RocksDB " + std::to_string(ROCKSDB_MAJOR) + "." + std::to_string(ROCKSDB_MINOR) + "." +
         std::to_string(ROCKSDB_PATCH) + " built-in " + filter + " (" LINEBLOOM_ROCKSDB_ISA ")";
}

}  // namespace linebloom::bench
