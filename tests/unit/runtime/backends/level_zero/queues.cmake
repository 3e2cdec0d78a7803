# Tests of the Level Zero backend's queues: the runtime's level_zero
# backend's memory, virtual memory, pinned host memory, memory_info, streams, events and
# peers, on the mock Level Zero driver opened by the real loader.
#  - accel_ze_queues_backend_test: through the backend class (what the public API cannot
#    reach: the mock's accounting per call, appends on a stream, the slot recycling);
#  - accel_ze_queues_api_test: through the public API with ACCEL_BACKEND=xpu (the caching
#    allocator, expandable segments, the pinned host allocator, streams, events).
if(NOT (ACCEL_HAVE_LEVEL_ZERO AND TARGET mockdev_level_zero))
  message(WARNING "accel tests: Level Zero queues tests NOT built: they need the Level Zero "
                  "headers and the mock Level Zero driver")
  return()
endif()

mockdev_environment(ze_queues_environment 2xmax1550 BACKEND xpu)

add_executable(accel_ze_queues_backend_test queues_backend_test.cpp)
target_link_libraries(accel_ze_queues_backend_test
  PRIVATE accel_runtime_private accel::mockdev GTest::gtest_main accel_build_flags)
add_dependencies(accel_ze_queues_backend_test mockdev_level_zero)
accel_add_gtest(accel_ze_queues_backend_test LABELS "unit;level_zero"
  ENVIRONMENT ${ze_queues_environment})

add_executable(accel_ze_queues_api_test queues_api_test.cpp)
target_link_libraries(accel_ze_queues_api_test
  PRIVATE accel_runtime_private accel::mockdev GTest::gtest_main accel_build_flags)
add_dependencies(accel_ze_queues_api_test mockdev_level_zero)
accel_add_gtest(accel_ze_queues_api_test LABELS "unit;level_zero"
  ENVIRONMENT "ACCEL_BACKEND=xpu" "MOCKDEV_SCHEDULE=adversarial" ${ze_queues_environment})
