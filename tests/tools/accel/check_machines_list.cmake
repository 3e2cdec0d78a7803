# ctest helper: `accel machines` lists exactly the expected machines, and `accel info
# --machine NAME` and `accel topo --machine NAME` accept every name it lists (so the listing
# and --machine never disagree, in the build tree or in an install).
#   cmake -DACCEL=<accel> -DEXPECTED=<name>|<name>... -P check_machines_list.cmake
# Prints "accel machines: <N> machines listed, each accepted by --machine" on success.
string(REPLACE "|" ";" expected "${EXPECTED}")
execute_process(COMMAND "${ACCEL}" machines RESULT_VARIABLE status OUTPUT_VARIABLE out
                ERROR_VARIABLE err)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "accel machines exited ${status}:\n${out}${err}")
endif()
string(REGEX MATCHALL "(^|\n)[^ \n]+" names "${out}")
list(TRANSFORM names STRIP)
set(listed ${names})
list(SORT listed)
set(wanted ${expected})
list(SORT wanted)
if(NOT listed STREQUAL wanted)
  message(FATAL_ERROR "accel machines lists '${listed}', expected '${wanted}':\n${out}")
endif()
# Each name: the whole report (exit 0, nothing on stderr, the machine named, every backend's
# devices walked, a child per other backend included) and the peer matrix.
foreach(name IN LISTS names)
  execute_process(COMMAND "${ACCEL}" info --machine "${name}"
                  RESULT_VARIABLE status OUTPUT_VARIABLE report ERROR_VARIABLE err)
  if(NOT status EQUAL 0 OR NOT err STREQUAL ""
     OR NOT report MATCHES "\nmachine: +${name} \\(simulated by mockdev\\)\n")
    message(FATAL_ERROR "accel info --machine ${name} exited ${status}:\n${report}${err}")
  endif()
  execute_process(COMMAND "${ACCEL}" topo --machine "${name}"
                  RESULT_VARIABLE status OUTPUT_VARIABLE matrix ERROR_VARIABLE err)
  if(NOT status EQUAL 0 OR NOT err STREQUAL "")
    message(FATAL_ERROR "accel topo --machine ${name} exited ${status}:\n${matrix}${err}")
  endif()
endforeach()
list(LENGTH names n)
message("accel machines: ${n} machines listed, each accepted by --machine")
