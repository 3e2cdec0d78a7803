# The CUDA backend's part of accel_runtime (included by runtime/CMakeLists.txt when
# ACCEL_BACKENDS names cuda). Its factory for the generated registry table is
# accel::detail::cuda::make_backend() (cuda_backend.h). One file per concern, named as the
# Level Zero backend's are (cuda_backend_impl.h lists them).
target_sources(accel_runtime PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/cuda_backend.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cuda_counting.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cuda_devices.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cuda_memory.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cuda_streams.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cuda_events.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cuda_copies.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cuda_graphs.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cuda_peer.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cuda_status.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cuda_device_facts.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cuda_visibility.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cuda_driver_library.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cuda_nvml_library.cpp)
# Header-only vendor ABI declarations; BUILD_INTERFACE keeps them out of the export set.
target_link_libraries(accel_runtime PRIVATE $<BUILD_INTERFACE:accel_abi>)
target_link_libraries(accel_runtime_private INTERFACE accel_abi)
