# The runtime-API deviceQuery (device_query_rt.cpp): written only against the toolkit's
# cuda_runtime_api.h, linked against the project's libcudart.so.13 (accel_cudart, never
# NVIDIA's), run on every CUDA preset with `accel run --machine <preset>`. Included from
# tests/cudart/CMakeLists.txt.
#   cudart.device_query_rt.<preset>: stdout equals expected/device_query_rt.<preset>.expected
#     and ends `Result = PASS` (ACCEL_UPDATE_GOLDEN=1 records it).
#   cudart.device_query_agree.<preset>: every line of its `key: value` block agrees with the
#     driver-API listing of tests/clients/device_query.cpp on the same preset.
# Without the toolkit's headers (or, for the agreement, its libcuda stub) the tests exist anyway
# and report Skipped, saying NOT RUN, never passed.
set(device_query_rt_machines 2xa100 1xa100 4xh100 8xh100 mixed mixed_vendors)
set(device_query_rt_script "${CMAKE_CURRENT_LIST_DIR}/run_device_query_rt.cmake")
if(CUDAToolkit_FOUND AND TARGET accel AND TARGET mockdev_cuda)
  add_executable(device_query_rt "${CMAKE_CURRENT_LIST_DIR}/device_query_rt.cpp")
  target_include_directories(device_query_rt PRIVATE ${CUDAToolkit_INCLUDE_DIRS})
  target_link_libraries(device_query_rt PRIVATE accel_cudart accel_build_flags)
  add_dependencies(device_query_rt accel mockdev_cuda mockdev_nvml)
  foreach(machine IN LISTS device_query_rt_machines)
    add_test(NAME cudart.device_query_rt.${machine}
      COMMAND ${CMAKE_COMMAND} -DMODE=output -DACCEL=$<TARGET_FILE:accel> -DMACHINE=${machine}
              -DPROGRAM=$<TARGET_FILE:device_query_rt>
              -DEXPECTED=${CMAKE_CURRENT_LIST_DIR}/expected/device_query_rt.${machine}.expected
              -DACTUAL=${CMAKE_CURRENT_BINARY_DIR}/device_query_rt.${machine}.actual
              -P ${device_query_rt_script})
    set_tests_properties(cudart.device_query_rt.${machine} PROPERTIES LABELS "unit;cudart"
      TIMEOUT 120 ENVIRONMENT_MODIFICATION "CUDA_VISIBLE_DEVICES=unset:")
  endforeach()
else()
  foreach(machine IN LISTS device_query_rt_machines)
    add_test(NAME cudart.device_query_rt.${machine} COMMAND ${CMAKE_COMMAND} -E echo
      "cudart.device_query_rt.${machine}: NOT RUN: no CUDA toolkit (cuda_runtime_api.h) was found at configure time")
    set_tests_properties(cudart.device_query_rt.${machine} PROPERTIES LABELS "unit;cudart"
      PASS_REGULAR_EXPRESSION "^$" SKIP_REGULAR_EXPRESSION "NOT RUN")
  endforeach()
endif()
# The driver-API listing is tests/clients/device_query.cmake's `device_query`, built under the
# same condition as there (it is included after this directory).
if(TARGET device_query_rt AND TARGET CUDA::cuda_driver)
  foreach(machine IN LISTS device_query_rt_machines)
    add_test(NAME cudart.device_query_agree.${machine}
      COMMAND ${CMAKE_COMMAND} -DMODE=agree -DACCEL=$<TARGET_FILE:accel> -DMACHINE=${machine}
              -DPROGRAM=$<TARGET_FILE:device_query_rt> -DDRIVER_PROGRAM=$<TARGET_FILE:device_query>
              -DACTUAL=${CMAKE_CURRENT_BINARY_DIR}/device_query_agree.${machine}.actual
              -P ${device_query_rt_script})
    set_tests_properties(cudart.device_query_agree.${machine} PROPERTIES LABELS "unit;cudart"
      TIMEOUT 120 ENVIRONMENT_MODIFICATION "CUDA_VISIBLE_DEVICES=unset:")
  endforeach()
else()
  foreach(machine IN LISTS device_query_rt_machines)
    add_test(NAME cudart.device_query_agree.${machine} COMMAND ${CMAKE_COMMAND} -E echo
      "cudart.device_query_agree.${machine}: NOT RUN: no CUDA toolkit (cuda_runtime_api.h and the libcuda stub) was found at configure time")
    set_tests_properties(cudart.device_query_agree.${machine} PROPERTIES LABELS "unit;cudart"
      PASS_REGULAR_EXPRESSION "^$" SKIP_REGULAR_EXPRESSION "NOT RUN")
  endforeach()
endif()
if(NOT TARGET device_query_rt)
  message(WARNING "accel tests: no CUDA toolkit: the runtime-API deviceQuery (device_query_rt) "
                  "is NOT built and its tests report Skipped")
endif()
