# The deviceQuery-style client (device_query.cpp): a program written only against the
# toolkit's cuda.h and linked against its libcuda stub, run on the simulated driver by
# putting the mock driver folder first on LD_LIBRARY_PATH, its output compared with the
# expected listing of a preset. Included from tests/CMakeLists.txt.
#
# Without a CUDA toolkit the client cannot be built: the ctest entries then exist anyway and
# end with exit status 77, which ctest reports as "Skipped" (and ci/test lists), so the
# missing run is never a silent pass.
find_package(CUDAToolkit QUIET)
set(device_query_cases 4xh100 mixed)
if(CUDAToolkit_FOUND AND TARGET CUDA::cuda_driver AND TARGET mockdev_cuda)
  add_executable(device_query ${CMAKE_CURRENT_LIST_DIR}/device_query.cpp)
  # The client sees cuda.h first; the ABI header only lends it the attribute names.
  target_include_directories(device_query PRIVATE ${CUDAToolkit_INCLUDE_DIRS})
  target_link_libraries(device_query PRIVATE CUDA::cuda_driver accel_abi accel_build_flags)
  add_dependencies(device_query mockdev_cuda mockdev_nvml)
  foreach(machine IN LISTS device_query_cases)
    add_test(NAME device_query.${machine}
      COMMAND ${CMAKE_COMMAND}
        -DCOMMAND=$<TARGET_FILE:device_query>
        -DEXPECTED=${CMAKE_CURRENT_LIST_DIR}/device_query_${machine}.expected
        -DACTUAL=${CMAKE_CURRENT_BINARY_DIR}/device_query_${machine}.actual
        -P ${CMAKE_CURRENT_LIST_DIR}/compare_output.cmake)
    set_tests_properties(device_query.${machine} PROPERTIES LABELS unit
      ENVIRONMENT "MOCKDEV_MACHINE=${machine}"
      ENVIRONMENT_MODIFICATION
        "LD_LIBRARY_PATH=path_list_prepend:${PROJECT_BINARY_DIR}/mockdev/drivers;CUDA_VISIBLE_DEVICES=unset:")
  endforeach()
else()
  message(WARNING "accel tests: no CUDA toolkit (cuda.h, libcuda stub): the device_query client "
                  "is NOT built and its tests report Skipped")
  foreach(machine IN LISTS device_query_cases)
    add_test(NAME device_query.${machine}
      COMMAND sh -c "echo 'device_query NOT RUN: no CUDA toolkit (cuda.h and the libcuda stub) was found at configure time'; exit 77")
    set_tests_properties(device_query.${machine} PROPERTIES LABELS unit SKIP_RETURN_CODE 77)
  endforeach()
endif()
