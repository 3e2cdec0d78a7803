# The environment that makes a program run on the simulated hardware, per backend: one
# spelling for tools, examples, benchmarks and tests (ctest ENVIRONMENT lists), built from
# the environment table (cmake/environment_variables.cmake: the MOCK and OWNER columns of
# common/include/accel_common/environment_variables.def).
#
# mockdev_environment(<out-var> <machine> [BACKEND <backend>])
#   <machine>: a preset name or a machine-file path (MOCKDEV_MACHINE).
#   BACKEND (default cuda) names whose driver files the runtime must load: each row of
#   that OWNER whose MOCK is a mockdev target is set to the target's file:
#     cuda: the runtime loads the mock libcuda.so.1 (ACCEL_CUDA_DRIVER) and
#           libnvidia-ml.so.1 (ACCEL_NVML_LIBRARY) from mockdev's facade targets.
#     xpu:  the real Level Zero loader opens the mock driver (ZE_ENABLE_ALT_DRIVERS naming
#           mockdev_level_zero's libze_mock.so).
#     all:  every backend's whose target exists, so each backend (and `accel info`) finds
#           its devices.
#   Then the MOCK machine row (MOCKDEV_MACHINE) is set to <machine>. A backend without a
#   mock driver row is a configure error, so a new backend adds its rows to the table
#   before any test can claim to run it on the mock.
#
# accel_backend_environment(<out-var> <backend> <machine>)
#   mockdev_environment() plus the MOCK backend row (ACCEL_BACKEND=<backend>): what a
#   conformance profile that runs <backend> on the simulated hardware needs.
function(mockdev_environment out_var machine)
  cmake_parse_arguments(ARG "" "BACKEND" "" ${ARGN})
  if(NOT ARG_BACKEND)
    set(ARG_BACKEND cuda)
  endif()
  # The backends with a mock driver file: the OWNERs of rows whose MOCK is a mockdev target.
  set(known "")
  foreach(variable IN LISTS ACCEL_ENVIRONMENT_VARIABLES)
    if(ACCEL_ENVIRONMENT_MOCK_${variable} MATCHES "^mockdev_")
      list(APPEND known "${ACCEL_ENVIRONMENT_OWNER_${variable}}")
    endif()
  endforeach()
  list(REMOVE_DUPLICATES known)
  if(NOT ARG_BACKEND STREQUAL "all" AND NOT ARG_BACKEND IN_LIST known)
    string(REPLACE ";" ", " known_text "${known};all")
    message(FATAL_ERROR "mockdev_environment: no simulated-hardware environment for backend "
                        "'${ARG_BACKEND}' (known: ${known_text})")
  endif()
  # Each driver file in the table's order: the named backend's (its targets must exist), or
  # for "all" every backend's whose mock driver this build has (the Level Zero driver needs
  # the Level Zero headers).
  set(environment "")
  foreach(variable IN LISTS ACCEL_ENVIRONMENT_VARIABLES)
    set(target "${ACCEL_ENVIRONMENT_MOCK_${variable}}")
    if(NOT target MATCHES "^mockdev_")
      continue()
    endif()
    if(("${ARG_BACKEND}" STREQUAL "all" AND TARGET ${target})
       OR "${ARG_BACKEND}" STREQUAL "${ACCEL_ENVIRONMENT_OWNER_${variable}}")
      list(APPEND environment "${variable}=$<TARGET_FILE:${target}>")
    endif()
  endforeach()
  foreach(variable IN LISTS ACCEL_ENVIRONMENT_VARIABLES)
    if(ACCEL_ENVIRONMENT_MOCK_${variable} STREQUAL "machine")
      list(APPEND environment "${variable}=${machine}")
    endif()
  endforeach()
  set(${out_var} ${environment} PARENT_SCOPE)
endfunction()

function(accel_backend_environment out_var backend machine)
  mockdev_environment(environment "${machine}" BACKEND "${backend}")
  set(selection "")
  foreach(variable IN LISTS ACCEL_ENVIRONMENT_VARIABLES)
    if(ACCEL_ENVIRONMENT_MOCK_${variable} STREQUAL "backend")
      list(APPEND selection "${variable}=${backend}")
    endif()
  endforeach()
  set(${out_var} ${selection} ${environment} PARENT_SCOPE)
endfunction()
