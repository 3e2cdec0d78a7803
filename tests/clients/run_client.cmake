# Runs a driver-API client and compares its standard output with an expected file, line for
# line (exit status 0 required too).
#   cmake -DCLIENT=<exe> -DEXPECTED=<file> -P run_client.cmake
# The environment (LD_LIBRARY_PATH, MOCKDEV_*) comes from ctest's ENVIRONMENT property.
execute_process(COMMAND "${CLIENT}" RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
file(READ "${EXPECTED}" expected)
if(NOT status EQUAL 0 OR NOT out STREQUAL expected)
  message(FATAL_ERROR "client exit status ${status}\n---- stdout\n${out}---- expected\n${expected}"
                      "---- stderr\n${err}")
endif()
message(STATUS "client output matches ${EXPECTED}")
