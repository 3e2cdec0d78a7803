# The mock Level Zero driver: state, registry, zeInit, drivers, devices, Sysman, its control
# API (mockdev/level_zero.h); the facade. (Its row of the vendor registry,
# registration.cpp, joins libmockdev.so whether or not this file is included:
# mockdev/CMakeLists.txt, MOCKDEV_APIS.)
target_sources(mockdev PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/ze_affinity.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ze_control.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ze_devices.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ze_driver.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ze_state.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ze_sysman.cpp)
# The registry row's `initialized` hook exists only with the driver (registration.cpp).
target_compile_definitions(mockdev PRIVATE MOCKDEV_HAVE_LEVEL_ZERO_DRIVER=1)

# The driver file the loader opens: MODULE, exactly libze_mock.so, hidden visibility, a
# fixed version script exporting only the *ProcAddrTable getters, -z nodelete (loader 1.8.12
# dlcloses a driver whose zeInit failed), linked with libmockdev.so and never with the
# loader (its exported API names would bind inside the mock).
set(_ze_map "${CMAKE_CURRENT_LIST_DIR}/ze_mock.map")
add_library(mockdev_level_zero MODULE ${CMAKE_CURRENT_LIST_DIR}/ze_facade.cpp)
set_target_properties(mockdev_level_zero PROPERTIES
  PREFIX ""
  OUTPUT_NAME "libze_mock"
  SUFFIX ".so"
  LIBRARY_OUTPUT_DIRECTORY "${PROJECT_BINARY_DIR}/mockdev/drivers"
  CXX_VISIBILITY_PRESET hidden
  VISIBILITY_INLINES_HIDDEN ON
  INSTALL_RPATH "$ORIGIN/../.."
  LINK_DEPENDS "${_ze_map}")
target_include_directories(mockdev_level_zero PRIVATE ${CMAKE_CURRENT_LIST_DIR}/..)
target_link_libraries(mockdev_level_zero PRIVATE
  mockdev accel_abi accel_level_zero_headers accel_build_flags)
target_link_options(mockdev_level_zero PRIVATE
  "-Wl,--version-script=${_ze_map}"
  -Wl,-z,nodelete
  "-Wl,-soname,libze_mock.so")
unset(_ze_map)
