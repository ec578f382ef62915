# Installed as linebloom-sstable-dependencies.cmake: a static linebloom::sstable
# links LZ4 (as PkgConfig::LZ4), so a consumer needs that target too.
find_dependency(PkgConfig)
pkg_check_modules(LZ4 REQUIRED IMPORTED_TARGET liblz4)
