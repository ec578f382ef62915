# linebloom as a RocksDB plugin, for RocksDB's CMake and make builds.
# Step-by-step instructions: docs/BINDINGS.md, "Built into RocksDB".
#
# Put this folder's files into <rocksdb>/plugin/linebloom: a real folder
# holding a symlink to each file (integration/rocksdb/plugin/link_into.sh does
# it), so that RocksDB's make build, which writes an object file next to its
# source path, writes linebloom's objects into RocksDB's tree, not into this
# checkout. CMake is content with a symlink to the whole folder too.
#
# RocksDB's CMake build reads only the registrar from this file, with a
# regular expression (the `_FUNC` line below, one space on each side of `=`);
# its sources and flags come from CMakeLists.txt next to it. Everything after
# that line is for RocksDB's Makefile, which includes this file.

linebloom_FUNC = linebloom_register

# Where RocksDB reaches this file (plugin/linebloom), and the checkout it
# belongs to (through the symlink), unless given: make LINEBLOOM_SOURCE_DIR=...
LINEBLOOM_PLUGIN_DIR := $(patsubst %/,%,$(dir $(lastword $(MAKEFILE_LIST))))
ifndef LINEBLOOM_SOURCE_DIR
LINEBLOOM_SOURCE_DIR := $(abspath $(dir $(realpath $(lastword $(MAKEFILE_LIST))))../../..)
endif

ifneq ($(realpath $(LINEBLOOM_PLUGIN_DIR)),$(realpath $(dir $(LINEBLOOM_PLUGIN_DIR)))/$(notdir $(LINEBLOOM_PLUGIN_DIR)))
$(error linebloom: $(LINEBLOOM_PLUGIN_DIR) is a symlink to a folder, so RocksDB's make would write objects into it; make it a folder of symlinks instead: integration/rocksdb/plugin/link_into.sh <rocksdb>)
endif
ifeq ($(wildcard $(LINEBLOOM_SOURCE_DIR)/integration/rocksdb/include/linebloom/rocksdb/registration.h),)
$(error linebloom: no linebloom checkout at '$(LINEBLOOM_SOURCE_DIR)'; pass LINEBLOOM_SOURCE_DIR=<linebloom>)
endif

# The core filter library with its foundation layer, the RocksDB adapter and
# the registrar: every .cc of the folders source_dirs.txt names (one a line,
# relative to the checkout; CMakeLists.txt reads the same file), less
# self_register.cc, which registers from a static initializer for the
# preloadable shared object, which built into RocksDB linebloom_register()
# does instead. Each is listed under the virtual folder checkout/, which
# exists nowhere: the rules below compile <checkout>/X.cc into
# $(OBJ_DIR)/plugin/linebloom/checkout/X.o, inside RocksDB's tree. (`:=`,
# not ` = `: RocksDB's CMake build reads this file too, and takes the words
# after `SOURCES` followed by ` = ` for sources of its own.)
linebloom_source_dirs := $(shell cat $(LINEBLOOM_SOURCE_DIR)/integration/rocksdb/plugin/source_dirs.txt)
linebloom_checkout_sources := $(filter-out %/self_register.cc, \
  $(wildcard $(patsubst %,$(LINEBLOOM_SOURCE_DIR)/%/*.cc,$(linebloom_source_dirs)))) \
  $(LINEBLOOM_SOURCE_DIR)/integration/rocksdb/plugin/linebloom_register.cc
linebloom_SOURCES := $(patsubst $(LINEBLOOM_SOURCE_DIR)/%,checkout/%,$(linebloom_checkout_sources))

# Flags for linebloom's sources only, after RocksDB's own (the same as
# CMakeLists.txt's linebloom_COMPILE_FLAGS; why each: there).
LINEBLOOM_CXXFLAGS = -std=c++20 -DLINEBLOOM_ROCKSDB_INTERNAL_HEADER \
  -I$(LINEBLOOM_SOURCE_DIR)/filter_policy/foundation/include \
  -I$(LINEBLOOM_SOURCE_DIR)/filter_policy/include \
  -I$(LINEBLOOM_SOURCE_DIR)/filter_policy/src \
  -I$(LINEBLOOM_SOURCE_DIR)/integration/rocksdb/include

$(OBJ_DIR)/$(LINEBLOOM_PLUGIN_DIR)/checkout/%.o: $(LINEBLOOM_SOURCE_DIR)/%.cc
	$(AM_V_CC)mkdir -p $(@D) && $(CXX) $(CXXFLAGS) $(LINEBLOOM_CXXFLAGS) -c $< -o $@ $(COVERAGEFLAGS)

# RocksDB includes a dependency file per source; these make linebloom's from
# its own flags, so a changed linebloom header recompiles what includes it.
$(OBJ_DIR)/$(LINEBLOOM_PLUGIN_DIR)/checkout/%.cc.d: $(LINEBLOOM_SOURCE_DIR)/%.cc
	@mkdir -p $(@D) && $(CXX) $(CXXFLAGS) $(LINEBLOOM_CXXFLAGS) $(PLATFORM_SHARED_CFLAGS) \
	  -MM -MT'$@' -MT'$(@:.cc.d=.o)' "$<" -o '$@'
