# The environment that makes a program run on the simulated hardware, per backend: one
# spelling for tools, examples, benchmarks and tests (ctest ENVIRONMENT lists).
#
# mockdev_environment(<out-var> <machine> [BACKEND <backend>])
#   <machine>: a preset name or a machine-file path (MOCKDEV_MACHINE).
#   BACKEND (default cuda) names whose driver files the runtime must load:
#     cuda: the runtime loads the mock libcuda.so.1 (ACCEL_CUDA_DRIVER) and
#           libnvidia-ml.so.1 (ACCEL_NVML_LIBRARY) from mockdev's facade targets.
#     xpu:  the real Level Zero loader opens the mock driver (ZE_ENABLE_ALT_DRIVERS naming
#           mockdev_level_zero's libze_mock.so).
#     all:  both, so either backend (and `accel info`) finds its devices.
#   A backend this function does not know is a configure error, so a new backend adds its
#   variables here before any test can claim to run it on the mock.
#
# accel_backend_environment(<out-var> <backend> <machine>)
#   mockdev_environment() plus ACCEL_BACKEND=<backend>: what a conformance profile that
#   runs <backend> on the simulated hardware needs.
function(mockdev_environment out_var machine)
  cmake_parse_arguments(ARG "" "BACKEND" "" ${ARGN})
  if(NOT ARG_BACKEND)
    set(ARG_BACKEND cuda)
  endif()
  if(ARG_BACKEND STREQUAL "cuda")
    set(environment
        "ACCEL_CUDA_DRIVER=$<TARGET_FILE:mockdev_cuda>"
        "ACCEL_NVML_LIBRARY=$<TARGET_FILE:mockdev_nvml>")
  elseif(ARG_BACKEND STREQUAL "xpu")
    # The real Level Zero loader opens the mock driver named here (and no other driver).
    set(environment "ZE_ENABLE_ALT_DRIVERS=$<TARGET_FILE:mockdev_level_zero>")
  elseif(ARG_BACKEND STREQUAL "all")
    # Every compiled backend's driver files on the same simulated machine.
    set(environment
        "ACCEL_CUDA_DRIVER=$<TARGET_FILE:mockdev_cuda>"
        "ACCEL_NVML_LIBRARY=$<TARGET_FILE:mockdev_nvml>")
    if(TARGET mockdev_level_zero)
      list(APPEND environment "ZE_ENABLE_ALT_DRIVERS=$<TARGET_FILE:mockdev_level_zero>")
    endif()
  else()
    message(FATAL_ERROR "mockdev_environment: no simulated-hardware environment for backend "
                        "'${ARG_BACKEND}' (known: cuda, xpu, all)")
  endif()
  list(APPEND environment "MOCKDEV_MACHINE=${machine}")
  set(${out_var} ${environment} PARENT_SCOPE)
endfunction()

function(accel_backend_environment out_var backend machine)
  mockdev_environment(environment "${machine}" BACKEND "${backend}")
  set(${out_var} "ACCEL_BACKEND=${backend}" ${environment} PARENT_SCOPE)
endfunction()
