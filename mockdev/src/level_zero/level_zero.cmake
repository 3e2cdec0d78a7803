# The mock Level Zero driver (included by mockdev/CMakeLists.txt where the Level Zero headers
# are found, cmake/level_zero.cmake): its adapter sources join libmockdev.so, and its facade
# is the MODULE library `mockdev_level_zero` -> <build>/mockdev/drivers/libze_mock.so, which
# the real loader opens through ZE_ENABLE_ALT_DRIVERS (mockdev_environment(... BACKEND xpu)).
# Two source lists, one per layer of the driver:
#   driver.cmake   state, registry, zeInit, drivers, devices, Sysman, the facade target
#   objects.cmake  contexts, memory, virtual memory, command lists, events
target_link_libraries(mockdev PRIVATE $<BUILD_INTERFACE:accel_level_zero_headers>)
include(${CMAKE_CURRENT_LIST_DIR}/driver.cmake)
include(${CMAKE_CURRENT_LIST_DIR}/objects.cmake)
