# Tests of the mock Level Zero driver's objects: contexts, memory, virtual
# memory, command lists and events of the mock driver, through Debian's real loader.
if(NOT TARGET mockdev_level_zero)
  return()
endif()
find_package(GTest REQUIRED)
if(NOT ACCEL_ZE_LOADER_LIBRARY)
  message(WARNING "The Level Zero loader (libze1) is not installed: the mock Level Zero "
                  "driver's object tests are not built")
  return()
endif()

add_executable(ze_objects_test
  ze_memory_test.cpp
  ze_lists_test.cpp
  ze_events_test.cpp
  ze_ordering_test.cpp
  ze_fences_test.cpp
  ze_copy_surface_test.cpp
  ze_modules_test.cpp
  ze_virtual_pages_test.cpp
  ze_ipc_test.cpp
  ze_leaks_test.cpp)
# ze_leaks_test.cpp reads the leak report's list (mockdev/src/core/leak_report.h) directly.
target_include_directories(ze_objects_test PRIVATE ${PROJECT_SOURCE_DIR}/mockdev/src)
target_link_libraries(ze_objects_test PRIVATE
  ${ACCEL_ZE_LOADER_LIBRARY} accel_test_spirv mockdev accel_level_zero_headers GTest::gtest_main
  accel_build_flags)
add_dependencies(ze_objects_test mockdev_level_zero)
mockdev_environment(_ze_objects_env none BACKEND xpu)
accel_add_gtest(ze_objects_test LABELS unit level_zero ENVIRONMENT ${_ze_objects_env})
unset(_ze_objects_env)

# Fences, the copy surface, modules and kernels again under the validation layer, which answers the argument
# checks itself: the codes must be the same. (Not under the loader's intercept mode: its
# handle translation dereferences the null and destroyed handles these tests pass.)
mockdev_environment(_ze_objects_env none BACKEND xpu)
foreach(_test
    FencesTest.UnsubmittedFenceDoesNotWaitAndADestroyedOneIsRefused
    FencesTest.TimeoutsRunInVirtualTime
    SurfaceTest.RegionCopyRules
    SurfaceTest.PrefetchAndAdviceTakeAllocationsOnly
    SurfaceTest.QueryKernelTimestampsIntoMemory
    ModulesTest.EntryPointsAndArgumentCountsFromTheSpirv
    ModulesTest.RefusedModulesAndTheirBuildLogs
    ModulesTest.ArgumentsGroupSizesAndSuggestions
    ModulesTest.LaunchRunsTheRegisteredBodyInVirtualTime
    VirtualPagesTest.PageSizeDependsOnTheSize
    IpcTest.MemoryHandlesCannotBeOpenedInTheSimulation
    IpcTest.EventPoolHandlesNeedTheIpcFlagAndCannotBeOpened
    IpcTest.ContextCreateExChecksItsDevices)
  add_test(NAME ${_test}.validation COMMAND ze_objects_test --gtest_filter=${_test})
  set_tests_properties(${_test}.validation PROPERTIES
    LABELS "unit;level_zero"
    ENVIRONMENT
      "${_ze_objects_env};ZE_ENABLE_VALIDATION_LAYER=1;ZE_ENABLE_PARAMETER_VALIDATION=1"
    TIMEOUT 60)
endforeach()
unset(_test)
unset(_ze_objects_env)
