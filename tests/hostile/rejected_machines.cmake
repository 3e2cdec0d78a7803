# ctest script: every machine file in a corpus of files the simulated driver rejects must
# fail `accel info` loudly, by both routes, in every output mode and under both backends
# (cuda, and xpu where the mock Level Zero driver is built) (Note [Configuration
# errors] in tools/accel/info.cpp): exit 2, the file named with its line by mockdev
# ("<file>:<line>:"), never "fallback: cpu", never a count on stdout.
#   cmake -DACCEL=<accel> -DCUDA_DRIVER=<mock libcuda> -DNVML=<mock nvml> -DCORPUS=<dir>
#         [-DLEVEL_ZERO_DRIVER=<mock ze driver>] -P rejected_machines.cmake
# Each run is bounded (TIMEOUT below): a hang fails the case, it never stalls the suite.
foreach(variable ACCEL CUDA_DRIVER NVML CORPUS)
  if(NOT DEFINED ${variable})
    message(FATAL_ERROR "rejected_machines: ${variable} is not set")
  endif()
endforeach()
set(per_run_seconds 30)
include(${CMAKE_CURRENT_LIST_DIR}/../../cmake/bounded_command.cmake)

# The variables of the caller's environment that would change what the runtime loads.
foreach(variable CUDA_VISIBLE_DEVICES ACCEL_BACKEND ACCEL_REQUIRE_DEVICES ACCEL_MOCKDEV_DIR
                 ZE_AFFINITY_MASK ZE_FLAT_DEVICE_HIERARCHY MOCKDEV_SCHEDULE MOCKDEV_SEED
                 MOCKDEV_RACES MOCKDEV_TRACE)
  unset(ENV{${variable}})
endforeach()

file(GLOB corpus LIST_DIRECTORIES false "${CORPUS}/*.yaml")
list(LENGTH corpus files)
if(files LESS 1)
  message(FATAL_ERROR "rejected_machines: no machine files in ${CORPUS}")
endif()

set(failures "")
set(runs 0)
# Runs accel with `args` in the current environment and checks one case.
function(check_case route file mode)
  set(args info)
  if(mode STREQUAL "xpu")  # the Level Zero backend serves the report
    list(APPEND args --backend xpu)
  endif()
  if(mode STREQUAL "json")
    list(APPEND args --json)
  elseif(mode STREQUAL "count")
    list(APPEND args --count)
  endif()
  if(route STREQUAL "machine")
    list(APPEND args --machine "${file}")
  endif()
  bounded_command(command "${ACCEL}" ${args})
  execute_process(COMMAND ${command}
                  RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err
                  TIMEOUT ${per_run_seconds})
  get_filename_component(name "${file}" NAME)
  set(what "${name} (${route}, ${mode})")
  set(problems "")
  if(NOT status STREQUAL "2")
    string(APPEND problems "exit status '${status}', expected 2; ")
  endif()
  string(REGEX REPLACE "([][+.*()^$?|\\\\])" "\\\\\\1" quoted "${file}")
  if(NOT err MATCHES "mockdev: cannot load the simulated machine: MOCKDEV_MACHINE: ${quoted}:[0-9]+: ")
    string(APPEND problems "stderr does not name the file with its line; ")
  endif()
  if(NOT err MATCHES "\naccel: [^\n]+\n$")
    string(APPEND problems "the tool's error is not its last stderr line; ")
  endif()
  if("${out}${err}" MATCHES "fallback: cpu|\"fallback\": \"cpu\"")
    string(APPEND problems "it fell back to the CPU; ")
  endif()
  if(mode STREQUAL "json")
    string(JSON kind ERROR_VARIABLE json_error GET "${out}" error kind)
    if(json_error OR NOT kind MATCHES "^(driver|config)$")
      string(APPEND problems "stdout has no JSON error object (${json_error}); ")
    endif()
  elseif(NOT out STREQUAL "")
    string(APPEND problems "stdout is not empty: '${out}'; ")
  endif()
  if(problems)
    set(failures "${failures}  ${what}: ${problems}\n---- stderr\n${err}" PARENT_SCOPE)
  endif()
endfunction()

set(modes text json count)
if(DEFINED LEVEL_ZERO_DRIVER)
  list(APPEND modes xpu)
endif()
foreach(file IN LISTS corpus)
  foreach(mode IN LISTS modes)
    unset(ENV{ACCEL_CUDA_DRIVER})
    unset(ENV{ACCEL_NVML_LIBRARY})
    unset(ENV{ZE_ENABLE_ALT_DRIVERS})
    unset(ENV{MOCKDEV_MACHINE})
    check_case(machine "${file}" ${mode})
    set(ENV{ACCEL_CUDA_DRIVER} "${CUDA_DRIVER}")
    set(ENV{ACCEL_NVML_LIBRARY} "${NVML}")
    if(DEFINED LEVEL_ZERO_DRIVER)
      set(ENV{ZE_ENABLE_ALT_DRIVERS} "${LEVEL_ZERO_DRIVER}")
    endif()
    set(ENV{MOCKDEV_MACHINE} "${file}")
    check_case(environment "${file}" ${mode})
    math(EXPR runs "${runs} + 2")
  endforeach()
endforeach()

if(failures)
  message(FATAL_ERROR "rejected_machines: cases that did not fail loudly:\n${failures}")
endif()
message("rejected_machines: ${files} machine files, ${runs} runs, each exit 2 naming <file>:<line>")
