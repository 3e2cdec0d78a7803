# The Level Zero backend's part of accel_runtime (included by runtime/CMakeLists.txt when
# ACCEL_BACKENDS names level_zero). ACCEL_BACKEND, `accel info --backend` and reports call it
# "xpu" (its device type). Factory: accel::detail::level_zero::make_backend()
# (ze_backend.h). Needs the Level Zero headers (cmake/level_zero.cmake); the loader is
# opened at run time, never linked. One file per concern, named as the CUDA backend's are
# (ze_backend_impl.h lists them).
if(NOT ACCEL_HAVE_LEVEL_ZERO)
  message(FATAL_ERROR "ACCEL_BACKENDS names level_zero, but the Level Zero headers "
                      "(level_zero/ze_api.h, Debian package libze-dev) were not found")
endif()
set(ACCEL_BACKEND_NAME "xpu")
target_sources(accel_runtime PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/ze_backend.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ze_counting.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ze_devices.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ze_memory.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ze_streams.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ze_events.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ze_copies.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ze_peer.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ze_status.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ze_device_facts.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ze_visibility.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ze_loader_library.cpp)
target_link_libraries(accel_runtime PRIVATE $<BUILD_INTERFACE:accel_abi>
                      $<BUILD_INTERFACE:accel_level_zero_headers>)
target_link_libraries(accel_runtime_private INTERFACE accel_abi accel_level_zero_headers)
