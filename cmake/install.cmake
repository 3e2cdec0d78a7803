# Install rules and the CMake package: after `cmake --install build --prefix P`, a consumer
# writes find_package(accel) and target_link_libraries(app accel::runtime).
#
# Layout under the prefix:
#   include/accel/*.h, include/mockdev/*.h       public headers
#   lib/libaccel_runtime.a, lib/libmockdev.so     the runtime, the simulated-hardware engine
#   lib/libaccel_{allocator,runtime_spi,common}.a  the archives the runtime links
#   lib/accel/mockdev/libcuda.so.1, libnvidia-ml.so.1
#                                                 the mock driver facades; kept out of lib/
#                                                 so nothing finds them by accident
#   bin/accel                                     the command-line tool
#   bin/accel-scenario, accel-replay              the programs `accel scenario|replay` exec
#   bin/accel-convert-memory-snapshot             tools/convert_memory_snapshot.py
#   lib/cmake/accel/                              accelConfig.cmake, version, targets,
#                                                 AccelTesting.cmake (accel_add_mock_test)
#   share/accel/machines/<preset>.yaml            the presets' machine files (templates)
#   share/doc/accel/                              README.md and docs/ (decisions/ too),
#                                                 which the installed headers cite
#
# Every rule is guarded by if(TARGET ...), so a build without some targets (no Level Zero
# headers, no Google Benchmark) configures and installs what exists.
include(CMakePackageConfigHelpers)

set(ACCEL_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/accel")
set(ACCEL_MOCKDEV_INSTALL_DIR "${CMAKE_INSTALL_LIBDIR}/accel/mockdev")

set(accel_exported_targets "")
if(TARGET accel_runtime)
  # The static runtime archive links these archives, so they travel with it.
  list(APPEND accel_exported_targets accel_common accel_runtime_spi accel_allocator accel_runtime)
  install(DIRECTORY "${PROJECT_SOURCE_DIR}/runtime/include/accel"
          DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}"
          FILES_MATCHING PATTERN "*.h")
endif()
if(TARGET mockdev)
  list(APPEND accel_exported_targets mockdev)
  set_target_properties(mockdev PROPERTIES EXPORT_NAME mockdev)
  install(DIRECTORY "${PROJECT_SOURCE_DIR}/mockdev/include/mockdev"
          DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}"
          FILES_MATCHING PATTERN "*.h")
endif()

if(accel_exported_targets)
  install(TARGETS ${accel_exported_targets}
          EXPORT accelTargets
          ARCHIVE DESTINATION "${CMAKE_INSTALL_LIBDIR}"
          LIBRARY DESTINATION "${CMAKE_INSTALL_LIBDIR}"
          RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}")
  install(EXPORT accelTargets
          NAMESPACE accel::
          FILE accelTargets.cmake
          DESTINATION "${ACCEL_INSTALL_CMAKEDIR}")
endif()

# The facades are loaded by path at run time (ACCEL_CUDA_DRIVER; the Level Zero loader through
# ZE_ENABLE_ALT_DRIVERS, which `accel --machine` sets to libze_mock.so found next to
# libcuda.so.1), never linked, so they are
# not exported targets. Their INSTALL_RPATH ($ORIGIN/../..) finds lib/libmockdev.so. The
# clean-room libcudart.so.13 (cudart/, a driver-API client linking nothing of the project)
# goes beside them, so the one folder `accel run` puts on the loader path serves both.
foreach(facade IN ITEMS mockdev_cuda mockdev_nvml mockdev_level_zero accel_cudart)
  if(TARGET ${facade})
    install(TARGETS ${facade} LIBRARY DESTINATION "${ACCEL_MOCKDEV_INSTALL_DIR}")
  endif()
endforeach()
# The CUDA 12 surface of the simulated driver (mockdev/CMakeLists.txt), one folder down; its
# INSTALL_RPATH ($ORIGIN/../../..) reaches the same lib/.
if(TARGET mockdev_cuda12)
  install(TARGETS mockdev_cuda12 LIBRARY DESTINATION "${ACCEL_MOCKDEV_INSTALL_DIR}/cuda12")
endif()

if(TARGET accel)
  install(TARGETS accel RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}")
endif()
# The pickle->JSON converter of PyTorch memory snapshots, beside accel-replay under the name
# the replay's error for a pickle gives (Note [Pickled snapshots] in tools/replay/trace.cpp;
# the build tree has the same file beside accel, tools/CMakeLists.txt).
if(TARGET accel-replay)
  install(PROGRAMS "${PROJECT_SOURCE_DIR}/tools/convert_memory_snapshot.py"
          DESTINATION "${CMAKE_INSTALL_BINDIR}" RENAME accel-convert-memory-snapshot)
endif()

# The documentation the installed headers cite (docs/MACHINE_FILES.md, ...), next to them.
set(ACCEL_DOC_INSTALL_DIR "${CMAKE_INSTALL_DATADIR}/doc/accel")
install(FILES "${PROJECT_SOURCE_DIR}/README.md" DESTINATION "${ACCEL_DOC_INSTALL_DIR}")
install(DIRECTORY "${PROJECT_SOURCE_DIR}/docs/" DESTINATION "${ACCEL_DOC_INSTALL_DIR}"
        FILES_MATCHING PATTERN "*.md")

# The presets' machine files (the same text as mockdev/src/machine/presets.cpp; a unit test
# keeps them equal), as templates for users' own machines: `accel machines --show NAME`
# reads them from here. Only presets: the other scenario files are the project's test data.
set(ACCEL_MACHINES_INSTALL_DIR "${CMAKE_INSTALL_DATADIR}/accel/machines")
if(TARGET mockdev)
  include("${CMAKE_CURRENT_LIST_DIR}/AccelTesting.cmake")  # ACCEL_MOCKDEV_PRESETS
  foreach(preset IN LISTS ACCEL_MOCKDEV_PRESETS)
    install(FILES "${PROJECT_SOURCE_DIR}/scenarios/machines/${preset}.yaml"
            DESTINATION "${ACCEL_MACHINES_INSTALL_DIR}")
  endforeach()
  install(FILES "${CMAKE_CURRENT_LIST_DIR}/AccelTesting.cmake"
          DESTINATION "${ACCEL_INSTALL_CMAKEDIR}")
endif()

# find_dependency(yaml-cpp) is needed only if libmockdev.so's exported link interface
# names yaml-cpp (i.e. it links it PUBLIC); a PRIVATE link of a shared library is not
# part of the interface.
set(ACCEL_CONFIG_NEEDS_YAML_CPP OFF)
if(TARGET mockdev)
  get_target_property(mockdev_interface mockdev INTERFACE_LINK_LIBRARIES)
  if(mockdev_interface AND "${mockdev_interface}" MATCHES "yaml-cpp")
    set(ACCEL_CONFIG_NEEDS_YAML_CPP ON)
  endif()
endif()

configure_package_config_file(
  "${CMAKE_CURRENT_LIST_DIR}/accelConfig.cmake.in"
  "${PROJECT_BINARY_DIR}/accelConfig.cmake"
  INSTALL_DESTINATION "${ACCEL_INSTALL_CMAKEDIR}"
  PATH_VARS CMAKE_INSTALL_INCLUDEDIR ACCEL_MOCKDEV_INSTALL_DIR ACCEL_MACHINES_INSTALL_DIR
            ACCEL_DOC_INSTALL_DIR)
write_basic_package_version_file(
  "${PROJECT_BINARY_DIR}/accelConfigVersion.cmake"
  VERSION "${PROJECT_VERSION}"
  COMPATIBILITY SameMinorVersion)
install(FILES
          "${PROJECT_BINARY_DIR}/accelConfig.cmake"
          "${PROJECT_BINARY_DIR}/accelConfigVersion.cmake"
        DESTINATION "${ACCEL_INSTALL_CMAKEDIR}")
