# Runs a driver-API client and compares its standard output with an expected file, byte for
# byte (exit status 0 required too); a mismatch prints one hunk (cmake/text_hunk.cmake).
# ACCEL_UPDATE_GOLDEN=1 in the environment writes the expected file from the output instead.
#   cmake -DCLIENT=<exe> -DEXPECTED=<file> -P run_client.cmake
# The environment (LD_LIBRARY_PATH, MOCKDEV_*) comes from ctest's ENVIRONMENT property.
include("${CMAKE_CURRENT_LIST_DIR}/../../cmake/text_hunk.cmake")
set(update "$ENV{ACCEL_UPDATE_GOLDEN}")
unset(ENV{ACCEL_UPDATE_GOLDEN})
execute_process(COMMAND "${CLIENT}" RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "client exit status ${status}\n---- stdout\n${out}---- stderr\n${err}")
endif()
accel_compare_with_file("${EXPECTED}" "${out}" "${update}" "---- stderr\n${err}")
message(STATUS "client output matches ${EXPECTED}")
