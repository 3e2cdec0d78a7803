# NVIDIA's own cuda-samples on the simulated machine: programs nobody here wrote, built from a
# checkout the user names (never copied into this tree) and run with `accel run`:
#   deviceQuery     (runtime API, linked against this project's libcudart.so.13),
#   deviceQueryDrv  (driver API, linked against the toolkit's libcuda stub),
#   topologyQuery   (runtime API; no kernels, so it is compiled as host C++).
# ctest cudart.nvidia_samples.<preset> (run_nvidia_samples.cmake) runs the three on a preset:
# each exits 0, both device queries end `Result = PASS`, every field the two device queries
# both print agrees device by device, and topologyQuery lists every GPU pair. Included from
# tests/cudart/CMakeLists.txt.
#
# ACCEL_CUDA_SAMPLES_DIR (cache variable, default from the environment variable of that name):
# a checkout of https://github.com/NVIDIA/cuda-samples. Without one (CI has no network to
# fetch it), or without the toolkit, one ctest entry says NOT RUN and why, and reports Skipped.
set(ACCEL_CUDA_SAMPLES_DIR "$ENV{ACCEL_CUDA_SAMPLES_DIR}" CACHE PATH
    "A checkout of NVIDIA/cuda-samples, whose device and topology queries run on the simulated machine")
set(nvidia_samples_machines 4xh100 2xa100 mixed)
set(_samples "${ACCEL_CUDA_SAMPLES_DIR}/Samples/1_Utilities")
set(_why "")
if(ACCEL_CUDA_SAMPLES_DIR STREQUAL "")
  set(_why "ACCEL_CUDA_SAMPLES_DIR does not name a checkout of NVIDIA/cuda-samples (git clone https://github.com/NVIDIA/cuda-samples, then configure with -DACCEL_CUDA_SAMPLES_DIR=<checkout>)")
elseif(NOT EXISTS "${_samples}/deviceQuery/deviceQuery.cpp"
       OR NOT EXISTS "${_samples}/deviceQueryDrv/deviceQueryDrv.cpp"
       OR NOT EXISTS "${_samples}/topologyQuery/topologyQuery.cu"
       OR NOT EXISTS "${ACCEL_CUDA_SAMPLES_DIR}/Common/helper_cuda.h")
  set(_why "ACCEL_CUDA_SAMPLES_DIR (${ACCEL_CUDA_SAMPLES_DIR}) lacks Samples/1_Utilities/deviceQuery, deviceQueryDrv or topologyQuery, or Common/helper_cuda.h")
elseif(NOT (CUDAToolkit_FOUND AND TARGET CUDA::cuda_driver AND TARGET accel_cudart AND TARGET accel))
  set(_why "no CUDA toolkit (cuda_runtime_api.h and the libcuda stub) was found at configure time")
endif()

if(_why STREQUAL "")
  # Third-party code: built with its own warnings, not this project's -Werror.
  add_executable(nvidia_device_query "${_samples}/deviceQuery/deviceQuery.cpp")
  target_link_libraries(nvidia_device_query PRIVATE accel_cudart)
  add_executable(nvidia_device_query_drv "${_samples}/deviceQueryDrv/deviceQueryDrv.cpp")
  target_link_libraries(nvidia_device_query_drv PRIVATE CUDA::cuda_driver)
  set_source_files_properties("${_samples}/topologyQuery/topologyQuery.cu" PROPERTIES
    LANGUAGE CXX COMPILE_OPTIONS "-xc++")
  add_executable(nvidia_topology_query "${_samples}/topologyQuery/topologyQuery.cu")
  set_target_properties(nvidia_topology_query PROPERTIES LINKER_LANGUAGE CXX)
  target_link_libraries(nvidia_topology_query PRIVATE accel_cudart)
  foreach(program nvidia_device_query nvidia_device_query_drv nvidia_topology_query)
    target_include_directories(${program} PRIVATE
      "${ACCEL_CUDA_SAMPLES_DIR}/Common" ${CUDAToolkit_INCLUDE_DIRS})
    add_dependencies(${program} accel mockdev_cuda mockdev_nvml)
  endforeach()
  foreach(machine IN LISTS nvidia_samples_machines)
    add_test(NAME cudart.nvidia_samples.${machine}
      COMMAND ${CMAKE_COMMAND} -DACCEL=$<TARGET_FILE:accel> -DMACHINE=${machine}
              -DRUNTIME_QUERY=$<TARGET_FILE:nvidia_device_query>
              -DDRIVER_QUERY=$<TARGET_FILE:nvidia_device_query_drv>
              -DTOPOLOGY_QUERY=$<TARGET_FILE:nvidia_topology_query>
              -DACTUAL=${CMAKE_CURRENT_BINARY_DIR}/nvidia_samples.${machine}
              -P ${CMAKE_CURRENT_LIST_DIR}/run_nvidia_samples.cmake)
    set_tests_properties(cudart.nvidia_samples.${machine} PROPERTIES LABELS "unit;cudart"
      TIMEOUT 120 ENVIRONMENT_MODIFICATION "CUDA_VISIBLE_DEVICES=unset:")
  endforeach()
else()
  add_test(NAME cudart.nvidia_samples COMMAND ${CMAKE_COMMAND} -E echo
    "cudart.nvidia_samples: NOT RUN: ${_why}")
  set_tests_properties(cudart.nvidia_samples PROPERTIES LABELS "unit;cudart"
    PASS_REGULAR_EXPRESSION "^$" SKIP_REGULAR_EXPRESSION "NOT RUN")
endif()
unset(_samples)
unset(_why)
