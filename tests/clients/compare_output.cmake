# ctest helper: runs COMMAND and requires exit status 0 and stdout equal, byte for byte,
# to the file EXPECTED. On a mismatch it prints the differing lines as one hunk
# (cmake/text_hunk.cmake) and keeps the actual output next to the build's test files
# (ACTUAL) for a diff. ACCEL_UPDATE_GOLDEN=1 in the environment writes EXPECTED from the
# output instead (exit status 0 still required).
#   cmake -DCOMMAND=<program> -DEXPECTED=<file> -DACTUAL=<file> -P compare_output.cmake
# The environment is inherited, so ctest's ENVIRONMENT property applies to the command.
foreach(var COMMAND EXPECTED ACTUAL)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "compare_output: ${var} is not set")
  endif()
endforeach()
include("${CMAKE_CURRENT_LIST_DIR}/../../cmake/text_hunk.cmake")
set(update "$ENV{ACCEL_UPDATE_GOLDEN}")
unset(ENV{ACCEL_UPDATE_GOLDEN})
execute_process(COMMAND ${COMMAND} RESULT_VARIABLE exit_status OUTPUT_VARIABLE out
                ERROR_VARIABLE err)
file(WRITE "${ACTUAL}" "${out}")
if(NOT "${exit_status}" STREQUAL "0")
  message(FATAL_ERROR "exit status ${exit_status}, expected 0\n---- stdout\n${out}---- stderr\n${err}")
endif()
accel_compare_with_file("${EXPECTED}" "${out}" "${update}" "(whole output: ${ACTUAL}; stderr:\n${err})")
message("output matches ${EXPECTED} (${exit_status})")
