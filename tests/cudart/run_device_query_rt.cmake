# ctest helper for the runtime-API deviceQuery (device_query_rt.cpp), run on one preset with
# `accel run --machine <MACHINE> -- <program>`; exit status 0 and `Result = PASS` required.
#   MODE=output: its stdout must equal EXPECTED byte for byte (cmake/text_hunk.cmake;
#     ACCEL_UPDATE_GOLDEN=1 writes EXPECTED instead).
#   MODE=agree: the driver-API listing of the same machine (DRIVER_PROGRAM,
#     tests/clients/device_query.cpp) must hold every line of the runtime program's `key: value`
#     block with the same value; the first disagreement is named (and how many there were).
#   cmake -DMODE=output|agree -DACCEL=<accel> -DMACHINE=<preset> -DPROGRAM=<device_query_rt>
#         [-DEXPECTED=<file>] [-DDRIVER_PROGRAM=<device_query>] -DACTUAL=<file> -P <this file>
foreach(var MODE ACCEL MACHINE PROGRAM ACTUAL)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "run_device_query_rt: ${var} is not set")
  endif()
endforeach()
include("${CMAKE_CURRENT_LIST_DIR}/../../cmake/text_hunk.cmake")
set(update "$ENV{ACCEL_UPDATE_GOLDEN}")
unset(ENV{ACCEL_UPDATE_GOLDEN})

# Runs <program> on the machine; its stdout in <out_var>; any exit status but 0 fails.
function(run_on_machine out_var program)
  execute_process(COMMAND "${ACCEL}" run --machine "${MACHINE}" -- "${program}"
                  RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT "${status}" STREQUAL "0")
    message(FATAL_ERROR "accel run --machine ${MACHINE} -- ${program}: exit status ${status}, "
                        "expected 0\n---- stdout\n${out}---- stderr\n${err}")
  endif()
  set(${out_var} "${out}" PARENT_SCOPE)
endfunction()

# The lines of a listing as a CMake list (';', '[' and ']' replaced: none carries meaning here).
function(listing_lines out_var text)
  string(REPLACE ";" "," text "${text}")
  string(REPLACE "[" "(" text "${text}")
  string(REPLACE "]" ")" text "${text}")
  string(REPLACE "\n" ";" lines "${text}")
  set(${out_var} "${lines}" PARENT_SCOPE)
endfunction()

run_on_machine(runtime_out "${PROGRAM}")
file(WRITE "${ACTUAL}" "${runtime_out}")
if(NOT runtime_out MATCHES "\nResult = PASS\n$")
  message(FATAL_ERROR "${PROGRAM} did not end with 'Result = PASS'\n${runtime_out}")
endif()

if(MODE STREQUAL "output")
  accel_compare_with_file("${EXPECTED}" "${runtime_out}" "${update}" "(whole output: ${ACTUAL})")
  message("output matches ${EXPECTED}")
  return()
elseif(NOT MODE STREQUAL "agree")
  message(FATAL_ERROR "run_device_query_rt: MODE is '${MODE}': output or agree")
endif()

# The driver's listing, as key -> value in variables named driver_<key>.
run_on_machine(driver_out "${DRIVER_PROGRAM}")
file(WRITE "${ACTUAL}.driver" "${driver_out}")
listing_lines(driver_lines "${driver_out}")
set(device "")
set(p2p_names access_supported performance_rank native_atomic_supported
              cuda_array_access_supported)  # the driver's column order
foreach(line IN LISTS driver_lines)
  if(line MATCHES "^Driver version ([0-9]+\\.[0-9]+), ([0-9]+) device\\(s\\)$")
    set("driver_driver_version" "${CMAKE_MATCH_1}")
    set("driver_device_count" "${CMAKE_MATCH_2}")
  elseif(line MATCHES "^Device ([0-9]+): \"(.*)\", compute capability ([0-9]+\\.[0-9]+), ([0-9]+) bytes$")
    set(device "${CMAKE_MATCH_1}")
    set("driver_device.${device}.name" "${CMAKE_MATCH_2}")
    set("driver_device.${device}.compute_capability" "${CMAKE_MATCH_3}")
    set("driver_device.${device}.total_global_mem_bytes" "${CMAKE_MATCH_4}")
  elseif(line MATCHES "^ +[0-9]+ ([a-z0-9_]+) +(-?[0-9]+)$" AND NOT device STREQUAL "")
    set("driver_device.${device}.${CMAKE_MATCH_1}" "${CMAKE_MATCH_2}")
  elseif(line MATCHES "^  ([0-9]+) -> ([0-9]+): can_access (-?[0-9]+)(.*)$")
    set(peer "peer.${CMAKE_MATCH_1}.${CMAKE_MATCH_2}")
    set("driver_${peer}.can_access" "${CMAKE_MATCH_3}")
    if(CMAKE_MATCH_4 MATCHES "^ \\| (-?[0-9]+) (-?[0-9]+) (-?[0-9]+) (-?[0-9]+) ")
      foreach(i RANGE 1 4)
        math(EXPR n "${i} - 1")
        list(GET p2p_names ${n} name)
        set("driver_${peer}.${name}" "${CMAKE_MATCH_${i}}")
      endforeach()
    endif()
  endif()
endforeach()

# The runtime's block: the lines after its heading, up to the blank line.
listing_lines(runtime_lines "${runtime_out}")
set(in_block FALSE)
set(compared 0)
set(disagreements 0)
set(first "")
foreach(line IN LISTS runtime_lines)
  if(line MATCHES "^key: value ")
    set(in_block TRUE)
  elseif(in_block AND line STREQUAL "")
    break()
  elseif(in_block)
    if(NOT line MATCHES "^([^: ]+): (.*)$")
      message(FATAL_ERROR "not a 'key: value' line in ${PROGRAM}'s block: '${line}'")
    endif()
    set(key "${CMAKE_MATCH_1}")
    set(value "${CMAKE_MATCH_2}")
    math(EXPR compared "${compared} + 1")
    if(NOT DEFINED "driver_${key}")
      set(why "${key}: the runtime says '${value}', the driver's listing has no such line")
    elseif(NOT "${driver_${key}}" STREQUAL value)
      set(why "${key}: the runtime says '${value}', the driver says '${driver_${key}}'")
    else()
      continue()
    endif()
    math(EXPR disagreements "${disagreements} + 1")
    if(first STREQUAL "")
      set(first "${why}")
    endif()
    message("${why}")
  endif()
endforeach()
if(compared EQUAL 0)
  message(FATAL_ERROR "${PROGRAM} printed no 'key: value' block\n${runtime_out}")
endif()
if(NOT DEFINED "driver_device_count")
  message(FATAL_ERROR "${DRIVER_PROGRAM}'s listing has no device count line\n${driver_out}")
endif()
if(disagreements GREATER 0)
  message(FATAL_ERROR "the runtime and the driver disagree on ${MACHINE}: first ${first} "
                      "(${disagreements} of ${compared} lines differ; listings: ${ACTUAL}, "
                      "${ACTUAL}.driver)")
endif()
message("runtime and driver agree on ${MACHINE}: ${compared} lines")
