# The project's own CMake functions, included by the top-level CMakeLists.txt
# before any part is added, so that every part can use them in any order.

include(CMakePackageConfigHelpers)

# Where the package's CMake files are installed (find_package(linebloom)).
set(LINEBLOOM_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/linebloom)

# linebloom_library_properties(target export_name): what every installed
# library of the project shares. PIC, so that a static library can be linked
# into the RocksDB plugin's shared object; the version for shared builds;
# the name it has in the package (linebloom::<export_name>).
function(linebloom_library_properties target export_name)
  set_target_properties(${target} PROPERTIES
    EXPORT_NAME ${export_name}
    POSITION_INDEPENDENT_CODE ON
    VERSION ${PROJECT_VERSION}
    SOVERSION ${PROJECT_VERSION_MAJOR})
endfunction()

# linebloom_target_warnings(target): the project's warnings, PRIVATE to the
# target, so they never reach a project that links or add_subdirectory()s
# linebloom. Lock rules are written as thread-safety annotations
# (linebloom/foundation/thread_annotations.h); clang checks them.
function(linebloom_target_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wshadow)
  if(CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    target_compile_options(${target} PRIVATE -Wthread-safety -Werror=thread-safety)
  endif()
endfunction()

# linebloom_warnings_everywhere(dir): linebloom_target_warnings on every
# target that compiles code in `dir` and the directories below it. Called
# once, on the project's top directory, after all parts are added, so that a
# new library, test or tool gets the warnings without asking for them.
function(linebloom_warnings_everywhere dir)
  get_property(targets DIRECTORY ${dir} PROPERTY BUILDSYSTEM_TARGETS)
  foreach(target IN LISTS targets)
    get_target_property(type ${target} TYPE)
    if(type MATCHES "^(EXECUTABLE|STATIC_LIBRARY|SHARED_LIBRARY|MODULE_LIBRARY|OBJECT_LIBRARY)$")
      linebloom_target_warnings(${target})
    endif()
  endforeach()
  get_property(subdirs DIRECTORY ${dir} PROPERTY SUBDIRECTORIES)
  foreach(subdir IN LISTS subdirs)
    linebloom_warnings_everywhere(${subdir})
  endforeach()
endfunction()

# linebloom_install_part(PART target... [HEADERS dir] [DEPENDENCIES file]):
# installs the targets (and the public headers under `dir`) as component
# PART of the package: the export file linebloom-PART-targets.cmake, which
# linebloomConfig.cmake loads when find_package asks for PART, after
# running `file` (installed as linebloom-PART-dependencies.cmake) to find
# the libraries the part links.
function(linebloom_install_part part)
  cmake_parse_arguments(ARG "" "HEADERS;DEPENDENCIES" "" ${ARGN})
  install(TARGETS ${ARG_UNPARSED_ARGUMENTS} EXPORT linebloom-${part}-targets
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
    RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  if(ARG_HEADERS)
    install(DIRECTORY ${ARG_HEADERS} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
  endif()
  if(ARG_DEPENDENCIES)
    install(FILES ${ARG_DEPENDENCIES} DESTINATION ${LINEBLOOM_CMAKE_DIR}
            RENAME linebloom-${part}-dependencies.cmake)
  endif()
  install(EXPORT linebloom-${part}-targets NAMESPACE linebloom::
          DESTINATION ${LINEBLOOM_CMAKE_DIR})
endfunction()

# linebloom_install_package_config(): the package's linebloomConfig.cmake
# (from cmake/linebloomConfig.cmake.in: the core always, each installed part
# as a component) and its version file.
function(linebloom_install_package_config)
  configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/linebloomConfig.cmake.in
    ${PROJECT_BINARY_DIR}/linebloomConfig.cmake
    INSTALL_DESTINATION ${LINEBLOOM_CMAKE_DIR})
  write_basic_package_version_file(${PROJECT_BINARY_DIR}/linebloomConfigVersion.cmake
    COMPATIBILITY SameMinorVersion)
  install(FILES ${PROJECT_BINARY_DIR}/linebloomConfig.cmake
                ${PROJECT_BINARY_DIR}/linebloomConfigVersion.cmake
          DESTINATION ${LINEBLOOM_CMAKE_DIR})
endfunction()
