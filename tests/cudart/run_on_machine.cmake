# Helpers of the cmake -P scripts that run programs on a simulated machine (run_device_query_rt,
# run_nvidia_samples); ACCEL (the accel tool) and MACHINE (a preset) must be set.
#   run_on_machine(<out_var> <program>): `accel run --machine <MACHINE> -- <program>`; its stdout
#     in <out_var>; any exit status but 0 is a FATAL_ERROR showing both streams.
#   listing_lines(<out_var> <text>): the text's lines as a CMake list (';', '[' and ']' replaced,
#     since none carries meaning in a listing).
function(run_on_machine out_var program)
  execute_process(COMMAND "${ACCEL}" run --machine "${MACHINE}" -- "${program}"
                  RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT "${status}" STREQUAL "0")
    message(FATAL_ERROR "accel run --machine ${MACHINE} -- ${program}: exit status ${status}, "
                        "expected 0\n---- stdout\n${out}---- stderr\n${err}")
  endif()
  set(${out_var} "${out}" PARENT_SCOPE)
endfunction()

function(listing_lines out_var text)
  string(REPLACE ";" "," text "${text}")
  string(REPLACE "[" "(" text "${text}")
  string(REPLACE "]" ")" text "${text}")
  string(REPLACE "\n" ";" lines "${text}")
  set(${out_var} "${lines}" PARENT_SCOPE)
endfunction()
