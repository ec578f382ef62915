# Finds the RocksDB the plugin builds against and defines
#   linebloom_rocksdb_library  INTERFACE target: RocksDB's headers and library
#   linebloom_rocksdb_headers  INTERFACE target: RocksDB's headers only
#   LINEBLOOM_ROCKSDB_VERSION  from <rocksdb/version.h>, e.g. 11.8.1
#   LINEBLOOM_ROCKSDB_SHARED   ON if the library is a shared object
#   LINEBLOOM_ROCKSDB_BIN_DIR  where its db_bench/sst_dump/ldb are looked for
#                              first ("" = the PATH)
#   LINEBLOOM_DB_BENCH, LINEBLOOM_SST_DUMP, LINEBLOOM_LDB
#                              those tools (cache; NOTFOUND if missing), for
#                              the tests and benchmark scripts that drive them
# Both targets carry -fno-rtti when RocksDB was built without RTTI (its
# Release default, USE_RTTI=0): a class derived from a RocksDB class then
# must not refer to RocksDB's typeinfo, which that build does not have.
#
# Where from, in this order:
#   1. -DLINEBLOOM_ROCKSDB_ROOT=<prefix>: <prefix>/include and the librocksdb
#      in <prefix>/lib (or lib64); a static one is linked with
#      LINEBLOOM_ROCKSDB_STATIC_LIBS (the compression libraries it was built
#      with, default lz4), threads and libdl;
#   2. RocksDB's CMake package (RocksDBConfig.cmake), found on
#      CMAKE_PREFIX_PATH or in the system: RocksDB::rocksdb-shared if the
#      package has it, else RocksDB::rocksdb;
#   3. pkg-config's rocksdb (Debian's librocksdb-dev).

set(LINEBLOOM_ROCKSDB_ROOT "" CACHE PATH
  "Install prefix of the RocksDB to build against (default: RocksDB's CMake package or pkg-config)")
set(LINEBLOOM_ROCKSDB_STATIC_LIBS "lz4" CACHE STRING
  "Libraries a static librocksdb under LINEBLOOM_ROCKSDB_ROOT needs (its compression libraries)")

add_library(linebloom_rocksdb_library INTERFACE)
add_library(linebloom_rocksdb_headers INTERFACE)
set(LINEBLOOM_ROCKSDB_BIN_DIR "")

if(LINEBLOOM_ROCKSDB_ROOT)
  find_path(LINEBLOOM_ROCKSDB_INCLUDE_DIR rocksdb/version.h
    PATHS ${LINEBLOOM_ROCKSDB_ROOT}/include NO_DEFAULT_PATH REQUIRED)
  find_library(LINEBLOOM_ROCKSDB_LIBRARY rocksdb
    PATHS ${LINEBLOOM_ROCKSDB_ROOT}/lib ${LINEBLOOM_ROCKSDB_ROOT}/lib64 NO_DEFAULT_PATH REQUIRED)
  target_include_directories(linebloom_rocksdb_library INTERFACE ${LINEBLOOM_ROCKSDB_INCLUDE_DIR})
  set(linebloom_rocksdb_link ${LINEBLOOM_ROCKSDB_LIBRARY})
  if(LINEBLOOM_ROCKSDB_LIBRARY MATCHES "\\.a$")
    set(LINEBLOOM_ROCKSDB_SHARED OFF)
    find_package(Threads REQUIRED)
    list(APPEND linebloom_rocksdb_link
      ${LINEBLOOM_ROCKSDB_STATIC_LIBS} Threads::Threads ${CMAKE_DL_LIBS})
  else()
    set(LINEBLOOM_ROCKSDB_SHARED ON)
  endif()
  if(EXISTS ${LINEBLOOM_ROCKSDB_ROOT}/bin)
    set(LINEBLOOM_ROCKSDB_BIN_DIR ${LINEBLOOM_ROCKSDB_ROOT}/bin)
  endif()
  set(linebloom_rocksdb_from "${LINEBLOOM_ROCKSDB_ROOT}")
  set(LINEBLOOM_ROCKSDB_FOUND_BY root)
else()
  find_package(RocksDB CONFIG QUIET)
  if(RocksDB_FOUND AND (TARGET RocksDB::rocksdb-shared OR TARGET RocksDB::rocksdb))
    if(TARGET RocksDB::rocksdb-shared)
      set(linebloom_rocksdb_target RocksDB::rocksdb-shared)
      set(LINEBLOOM_ROCKSDB_SHARED ON)
    else()
      set(linebloom_rocksdb_target RocksDB::rocksdb)
      set(LINEBLOOM_ROCKSDB_SHARED OFF)
    endif()
    set(linebloom_rocksdb_link ${linebloom_rocksdb_target})
    get_target_property(LINEBLOOM_ROCKSDB_INCLUDE_DIR ${linebloom_rocksdb_target}
      INTERFACE_INCLUDE_DIRECTORIES)
    get_filename_component(linebloom_rocksdb_prefix "${RocksDB_DIR}/../../.." ABSOLUTE)
    if(EXISTS ${linebloom_rocksdb_prefix}/bin/db_bench)
      set(LINEBLOOM_ROCKSDB_BIN_DIR ${linebloom_rocksdb_prefix}/bin)
    endif()
    set(linebloom_rocksdb_from "CMake package ${RocksDB_DIR}")
    set(LINEBLOOM_ROCKSDB_FOUND_BY package)
  else()
    find_package(PkgConfig REQUIRED)
    pkg_check_modules(LINEBLOOM_PC_ROCKSDB REQUIRED IMPORTED_TARGET rocksdb)
    set(linebloom_rocksdb_link PkgConfig::LINEBLOOM_PC_ROCKSDB)
    find_path(LINEBLOOM_ROCKSDB_INCLUDE_DIR rocksdb/version.h
      HINTS ${LINEBLOOM_PC_ROCKSDB_INCLUDE_DIRS} REQUIRED)
    set(LINEBLOOM_ROCKSDB_SHARED ON)
    set(linebloom_rocksdb_from "pkg-config")
    set(LINEBLOOM_ROCKSDB_FOUND_BY pkg-config)
  endif()
endif()
if(NOT LINEBLOOM_ROCKSDB_INCLUDE_DIR)
  find_path(LINEBLOOM_ROCKSDB_INCLUDE_DIR rocksdb/version.h REQUIRED)
endif()
list(GET LINEBLOOM_ROCKSDB_INCLUDE_DIR 0 linebloom_rocksdb_include)
target_include_directories(linebloom_rocksdb_library INTERFACE ${linebloom_rocksdb_include})
target_link_libraries(linebloom_rocksdb_library INTERFACE ${linebloom_rocksdb_link})
target_include_directories(linebloom_rocksdb_headers INTERFACE ${linebloom_rocksdb_include})

file(STRINGS ${linebloom_rocksdb_include}/rocksdb/version.h linebloom_rocksdb_version_lines
  REGEX "^#define ROCKSDB_(MAJOR|MINOR|PATCH) [0-9]+")
foreach(part MAJOR MINOR PATCH)
  string(REGEX REPLACE ".*ROCKSDB_${part} ([0-9]+).*" "\\1" linebloom_rocksdb_${part}
    "${linebloom_rocksdb_version_lines}")
endforeach()
set(LINEBLOOM_ROCKSDB_VERSION
  "${linebloom_rocksdb_MAJOR}.${linebloom_rocksdb_MINOR}.${linebloom_rocksdb_PATCH}")

# RTTI: does the library define typeinfo for rocksdb::FilterPolicy?
include(CheckCXXSourceCompiles)
set(CMAKE_REQUIRED_INCLUDES ${linebloom_rocksdb_include})
set(CMAKE_REQUIRED_LIBRARIES ${linebloom_rocksdb_link})
set(CMAKE_REQUIRED_QUIET ON)
check_cxx_source_compiles([[
#include <typeinfo>
#include <rocksdb/filter_policy.h>
int main() { return typeid(rocksdb::FilterPolicy).name()[0] == 0; }
]] LINEBLOOM_ROCKSDB_HAS_RTTI_${linebloom_rocksdb_MAJOR}_${linebloom_rocksdb_MINOR})
unset(CMAKE_REQUIRED_INCLUDES)
unset(CMAKE_REQUIRED_LIBRARIES)
unset(CMAKE_REQUIRED_QUIET)
if(NOT LINEBLOOM_ROCKSDB_HAS_RTTI_${linebloom_rocksdb_MAJOR}_${linebloom_rocksdb_MINOR})
  target_compile_options(linebloom_rocksdb_library INTERFACE $<$<COMPILE_LANGUAGE:CXX>:-fno-rtti>)
  target_compile_options(linebloom_rocksdb_headers INTERFACE $<$<COMPILE_LANGUAGE:CXX>:-fno-rtti>)
  set(linebloom_rocksdb_rtti "without RTTI")
else()
  set(linebloom_rocksdb_rtti "with RTTI")
endif()

message(STATUS "linebloom: RocksDB ${LINEBLOOM_ROCKSDB_VERSION} from ${linebloom_rocksdb_from}"
  " (${linebloom_rocksdb_include}, shared: ${LINEBLOOM_ROCKSDB_SHARED}, ${linebloom_rocksdb_rtti})")

# RocksDB's own db_bench/sst_dump/ldb: those of the RocksDB built against
# (LINEBLOOM_ROCKSDB_BIN_DIR) if it has them, else the PATH's (Debian's
# rocksdb-tools). A plugin built for one release cannot be loaded into
# another release's tools, so with a bin directory the PATH is not searched.
if(LINEBLOOM_ROCKSDB_BIN_DIR)
  set(linebloom_tool_search PATHS ${LINEBLOOM_ROCKSDB_BIN_DIR} NO_DEFAULT_PATH)
endif()
find_program(LINEBLOOM_DB_BENCH NAMES db_bench rocksdb_db_bench ${linebloom_tool_search})
find_program(LINEBLOOM_SST_DUMP NAMES sst_dump rocksdb_sst_dump ${linebloom_tool_search})
find_program(LINEBLOOM_LDB NAMES ldb rocksdb_ldb ${linebloom_tool_search})

# For the directories outside this one (tests, benches).
set(LINEBLOOM_ROCKSDB_VERSION ${LINEBLOOM_ROCKSDB_VERSION} CACHE INTERNAL "")
set(LINEBLOOM_ROCKSDB_SHARED ${LINEBLOOM_ROCKSDB_SHARED} CACHE INTERNAL "")
set(LINEBLOOM_ROCKSDB_BIN_DIR "${LINEBLOOM_ROCKSDB_BIN_DIR}" CACHE INTERNAL "")
