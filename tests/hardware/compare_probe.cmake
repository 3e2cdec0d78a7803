# Runs accel_cuda_rules_probe on a simulated machine and compares its compared sections
# (SECTIONS, a comma-separated list such as init,device,ctx,mem,fork,visible,stream,event,
# copy,capture,extended) with a recording made on real hardware. The simulation runs the adversarial schedule: the probe keeps a stream
# busy with a sleeping host function, and only a schedule where nothing completes until a
# host wait needs it answers "pending" the way a busy real stream does.
#   cmake -DPROBE=<exe> -DDRIVER=<libcuda> -DNVML=<libnvidia-ml> -DMACHINE=<yaml>
#         -DRECORDED=<probe.txt> -DDELIBERATE=<deliberate.txt> -DSECTIONS=<a,b,...>
#         -P compare_probe.cmake
# Fails listing every rule whose answer differs, is missing, or is new, except the rules
# DELIBERATE names (each with its reason).
cmake_minimum_required(VERSION 3.25)
set(ENV{MOCKDEV_MACHINE} "${MACHINE}")
set(ENV{MOCKDEV_SCHEDULE} "adversarial")
execute_process(COMMAND "${PROBE}" "${DRIVER}" "${NVML}"
                OUTPUT_VARIABLE simulated ERROR_VARIABLE errors RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "probe exited ${status} on the simulated machine:\n${simulated}\n${errors}")
endif()

if(NOT SECTIONS)
  message(FATAL_ERROR "SECTIONS names no probe section to compare")
endif()
string(REPLACE "," "|" section_alternatives "${SECTIONS}")
set(compared_sections "^(${section_alternatives})[.<]")
file(STRINGS "${DELIBERATE}" deliberate_lines REGEX "^[^#]")
set(skipped "")
foreach(entry IN LISTS deliberate_lines)
  string(REGEX REPLACE " #.*$" "" rule "${entry}")
  list(APPEND skipped "${rule}")
endforeach()

# rule -> answer maps, as parallel lists of "rule = answer" lines.
# Square brackets would group list elements in CMake, so they are read as < and >.
function(read_rules text out_var)
  string(REPLACE ";" "," text "${text}")
  string(REPLACE "[" "<" text "${text}")
  string(REPLACE "]" ">" text "${text}")
  string(REPLACE "\n" ";" lines "${text}")
  set(kept "")
  foreach(l IN LISTS lines)
    if(l MATCHES "${compared_sections}" AND l MATCHES "^(.*) = (.*)$")
      if(NOT CMAKE_MATCH_1 IN_LIST skipped)
        list(APPEND kept "${l}")
      endif()
    endif()
  endforeach()
  set(${out_var} "${kept}" PARENT_SCOPE)
endfunction()

file(READ "${RECORDED}" recorded_text)
read_rules("${recorded_text}" recorded)
read_rules("${simulated}" observed)
list(LENGTH recorded recorded_count)
if(recorded_count EQUAL 0)
  message(FATAL_ERROR "${RECORDED} holds no compared rule")
endif()

set(report "")
foreach(l IN LISTS recorded)
  if(NOT l IN_LIST observed)
    string(REGEX REPLACE " = .*$" "" rule "${l}")
    set(sim "(missing)")
    foreach(o IN LISTS observed)
      if(o MATCHES "^(.*) = (.*)$" AND CMAKE_MATCH_1 STREQUAL rule)
        set(sim "${CMAKE_MATCH_2}")
      endif()
    endforeach()
    string(REGEX REPLACE "^.* = " "" real "${l}")
    string(APPEND report "  ${rule}\n      hardware:  ${real}\n      simulated: ${sim}\n")
  endif()
endforeach()
foreach(o IN LISTS observed)
  string(REGEX REPLACE " = .*$" "" rule "${o}")
  set(found FALSE)
  foreach(l IN LISTS recorded)
    if(l MATCHES "^(.*) = " AND CMAKE_MATCH_1 STREQUAL rule)
      set(found TRUE)
    endif()
  endforeach()
  if(NOT found)
    string(APPEND report "  ${rule}: not in the recording (re-record the machine)\n")
  endif()
endforeach()
if(report)
  message(FATAL_ERROR "the simulated machine disagrees with the recorded hardware:\n${report}")
endif()
message(STATUS "${recorded_count} rules agree with the recording ${RECORDED}")
