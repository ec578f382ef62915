# linebloom as a RocksDB plugin: link (or copy) this folder to
# <rocksdb>/plugin/linebloom and configure RocksDB with
#   cmake -DROCKSDB_PLUGINS=linebloom ...
# Step-by-step instructions: docs/ROCKSDB.md, "Built into RocksDB".
#
# RocksDB's CMake build reads this file with a regular expression for the
# registrar (the `_FUNC` line below, one space on each side of `=`); the
# sources, compiler flags and include paths come from CMakeLists.txt next to
# it, which finds them in the linebloom checkout this folder belongs to. So
# this file deliberately lists no sources: CMake would otherwise compile them
# a second time, without the plugin's own flags.

linebloom_FUNC = linebloom_register

# RocksDB's Makefile build includes this file too; it would compile sources
# listed here next to themselves, i.e. into the linebloom checkout, so the
# plugin supports the CMake build only.
$(error linebloom: build RocksDB with CMake (cmake -DROCKSDB_PLUGINS=linebloom); see docs/ROCKSDB.md of linebloom)
