# ctest helper of tests/cudart/nvidia_samples.cmake: NVIDIA's deviceQuery, deviceQueryDrv and
# topologyQuery on one preset, each with `accel run --machine <MACHINE> -- <program>`.
#   - every program exits 0; both device queries end `Result = PASS` and detect the same count;
#   - every `name: value` line the two device queries both print for a device agrees (names
#     compared by their letters, values without blanks and with the numbers inside the name),
#     at least 20 per device,
#     and so does every peer-access line;
#   - topologyQuery lists `GPU<i> <-> CPU` for each device, and `GPU<i> <-> GPU<j>` exactly for
#     the pairs deviceQuery calls peers.
#   cmake -DACCEL=<accel> -DMACHINE=<preset> -DRUNTIME_QUERY=<deviceQuery>
#         -DDRIVER_QUERY=<deviceQueryDrv> -DTOPOLOGY_QUERY=<topologyQuery> -DACTUAL=<prefix>
#         -P <this file>
foreach(var ACCEL MACHINE RUNTIME_QUERY DRIVER_QUERY TOPOLOGY_QUERY ACTUAL)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "run_nvidia_samples: ${var} is not set")
  endif()
endforeach()

include("${CMAKE_CURRENT_LIST_DIR}/run_on_machine.cmake")

# run_on_machine, its stdout also written to <ACTUAL>.<tag>.
function(run_and_keep out_var program tag)
  run_on_machine(out "${program}")
  file(WRITE "${ACTUAL}.${tag}" "${out}")
  set(${out_var} "${out}" PARENT_SCOPE)
endfunction()

# Reads a device query's listing into variables prefixed <prefix>: <prefix>.count (the
# detected devices), <prefix>.<device>.keys and <prefix>.<device>.<key> (its `name: value`
# lines), <prefix>.peer.<i>.<j> (Yes/No).
function(read_listing prefix text program)
  if(NOT text MATCHES "\nResult = PASS\n?$")
    message(FATAL_ERROR "${program} did not end with 'Result = PASS'\n${text}")
  endif()
  if(NOT text MATCHES "Detected ([0-9]+) CUDA Capable device")
    message(FATAL_ERROR "${program} printed no 'Detected N CUDA Capable device(s)' line\n${text}")
  endif()
  set(${prefix}.count "${CMAKE_MATCH_1}" PARENT_SCOPE)
  listing_lines(lines "${text}")
  set(device "")
  foreach(line IN LISTS lines)
    if(line MATCHES "^Device ([0-9]+): \"")
      set(device "${CMAKE_MATCH_1}")
      set(keys "")
    elseif(line MATCHES "\\(GPU([0-9]+)\\) -> .*\\(GPU([0-9]+)\\) : (Yes|No)$")
      set(${prefix}.peer.${CMAKE_MATCH_1}.${CMAKE_MATCH_2} "${CMAKE_MATCH_3}" PARENT_SCOPE)
    elseif(NOT device STREQUAL "" AND line MATCHES "^  ([^:]+):(.+)$")
      # The name's letters are the key; numbers inside the name ("(132) Multiprocessors") are
      # part of the value, which keeps no blanks.
      set(name "${CMAKE_MATCH_1}")
      string(REGEX REPLACE "[ \t]" "" value "${CMAKE_MATCH_2}")
      string(REGEX MATCHALL "[0-9]+" numbers "${name}")
      if(NOT numbers STREQUAL "")
        string(REPLACE ";" "," numbers "${numbers}")
        string(REGEX REPLACE "(^|,)0+([0-9])" "\\1\\2" numbers "${numbers}")  # "(064)" is 64
        set(value "${numbers}|${value}")
      endif()
      string(TOLOWER "${name}" key)
      string(REGEX REPLACE "[^a-z]" "" key "${key}")
      if(NOT key STREQUAL "")
        list(APPEND keys "${key}")
        set(${prefix}.${device}.${key} "${value}" PARENT_SCOPE)
        set(${prefix}.${device}.keys "${keys}" PARENT_SCOPE)
      endif()
    endif()
  endforeach()
endfunction()

run_and_keep(runtime_out "${RUNTIME_QUERY}" deviceQuery)
run_and_keep(driver_out "${DRIVER_QUERY}" deviceQueryDrv)
run_and_keep(topology_out "${TOPOLOGY_QUERY}" topologyQuery)
read_listing(rt "${runtime_out}" deviceQuery)
read_listing(drv "${driver_out}" deviceQueryDrv)

if(NOT rt.count STREQUAL drv.count)
  message(FATAL_ERROR "deviceQuery detected ${rt.count} devices, deviceQueryDrv ${drv.count}")
endif()
if(rt.count EQUAL 0)
  message(FATAL_ERROR "no device detected on ${MACHINE}")
endif()
math(EXPR last "${rt.count} - 1")
set(disagreements "")
foreach(device RANGE ${last})
  set(compared 0)
  foreach(key IN LISTS rt.${device}.keys)
    if(DEFINED drv.${device}.${key})
      math(EXPR compared "${compared} + 1")
      if(NOT "${rt.${device}.${key}}" STREQUAL "${drv.${device}.${key}}")
        string(APPEND disagreements "  device ${device} ${key}: deviceQuery '${rt.${device}.${key}}', deviceQueryDrv '${drv.${device}.${key}}'\n")
      endif()
    endif()
  endforeach()
  if(compared LESS 20)
    message(FATAL_ERROR "device ${device}: only ${compared} fields printed by both queries "
                        "(expected at least 20); their outputs: ${ACTUAL}.deviceQuery*")
  endif()
  message("device ${device}: ${compared} fields printed by both queries")
  foreach(other RANGE ${last})
    if(other EQUAL device)
      continue()
    endif()
    set(p "peer.${device}.${other}")
    if(NOT DEFINED rt.${p} OR NOT DEFINED drv.${p})
      message(FATAL_ERROR "no peer-access line for GPU${device} -> GPU${other} in "
                          "deviceQuery or deviceQueryDrv")
    endif()
    if(NOT rt.${p} STREQUAL drv.${p})
      string(APPEND disagreements "  peer access GPU${device} -> GPU${other}: deviceQuery ${rt.${p}}, deviceQueryDrv ${drv.${p}}\n")
    endif()
    string(FIND "${topology_out}" "GPU${device} <-> GPU${other}:\n" at)
    if(rt.${p} STREQUAL "Yes" AND at EQUAL -1)
      string(APPEND disagreements "  topologyQuery lists no link GPU${device} <-> GPU${other}, a peer pair\n")
    elseif(rt.${p} STREQUAL "No" AND NOT at EQUAL -1)
      string(APPEND disagreements "  topologyQuery lists a link GPU${device} <-> GPU${other}, not a peer pair\n")
    endif()
  endforeach()
  string(FIND "${topology_out}" "GPU${device} <-> CPU:\n" at)
  if(at EQUAL -1)
    string(APPEND disagreements "  topologyQuery lists no GPU${device} <-> CPU link\n")
  endif()
endforeach()
if(NOT disagreements STREQUAL "")
  message(FATAL_ERROR "NVIDIA's samples disagree on ${MACHINE}:\n${disagreements}"
                      "outputs: ${ACTUAL}.*")
endif()
message("deviceQuery and deviceQueryDrv agree on ${rt.count} devices; topologyQuery lists "
        "the same peer pairs")
