# How tests are registered, for tests/ and for the benchmarks' own smoke
# tests under bench/. Included by the top-level CMakeLists.txt when
# LINEBLOOM_BUILD_TESTS is on.
#
# A test's CTest labels pick the stage that runs it (`ctest -L rocksdb`,
# `ctest -L concurrency`); each label also names an aggregate target,
# <label>_tests, that builds every program its tests need, so a stage builds
# and runs one label without a list of its tests. A test's labels are those
# it is given plus those of its directory (the directory property LABELS).

find_package(GTest REQUIRED)
include(GoogleTest)

# linebloom_label_targets(labels target...): adds the targets to the
# aggregate <label>_tests of each of `labels` (a list), made on first use.
function(linebloom_label_targets labels)
  foreach(label IN LISTS labels)
    if(NOT TARGET ${label}_tests)
      add_custom_target(${label}_tests)
    endif()
    add_dependencies(${label}_tests ${ARGN})
  endforeach()
endfunction()

# The labels of a test registered in the current directory with `labels`.
function(linebloom_test_labels out labels)
  get_directory_property(directory_labels LABELS)
  list(APPEND labels ${directory_labels})
  list(REMOVE_DUPLICATES labels)
  set(${out} "${labels}" PARENT_SCOPE)
endfunction()

# linebloom_add_gtest(NAME source... [LIBS lib...] [LABELS label...]): one
# GoogleTest binary, every TEST registered with CTest under its own name.
function(linebloom_add_gtest name)
  cmake_parse_arguments(ARG "" "" "LIBS;LABELS" ${ARGN})
  add_executable(${name} ${ARG_UNPARSED_ARGUMENTS})
  target_link_libraries(${name} PRIVATE ${ARG_LIBS} GTest::gtest GTest::gtest_main)
  set(properties TIMEOUT 600)
  if(ARG_LABELS)
    list(APPEND properties LABELS ${ARG_LABELS})
  endif()
  gtest_discover_tests(${name} DISCOVERY_TIMEOUT 60 PROPERTIES ${properties})
  linebloom_test_labels(labels "${ARG_LABELS}")
  linebloom_label_targets("${labels}" ${name})
endfunction()

# linebloom_add_test(NAME [NEEDS target...] [LABELS label...] COMMAND arg...):
# add_test(NAME name COMMAND arg...) for a test that runs programs of this
# build (a script, a tool): NEEDS names the targets it runs, which join the
# aggregates of its labels.
function(linebloom_add_test name)
  cmake_parse_arguments(ARG "" "" "NEEDS;LABELS;COMMAND" ${ARGN})
  add_test(NAME ${name} COMMAND ${ARG_COMMAND})
  if(ARG_LABELS)
    set_property(TEST ${name} APPEND PROPERTY LABELS ${ARG_LABELS})
  endif()
  linebloom_test_labels(labels "${ARG_LABELS}")
  if(ARG_NEEDS)
    linebloom_label_targets("${labels}" ${ARG_NEEDS})
  endif()
endfunction()
