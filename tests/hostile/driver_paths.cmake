# ctest script: driver files named by a variable that are not regular files (a FIFO, a
# character device, a directory) are refused at once by `accel info`, named as what they
# are (Note [Bounded readers]): exit 2, never a hang in dlopen, never "fallback: cpu".
#   cmake -DACCEL=<accel> -DWORK_DIR=<scratch dir> [-DLEVEL_ZERO=ON] -P driver_paths.cmake
foreach(variable ACCEL WORK_DIR)
  if(NOT DEFINED ${variable})
    message(FATAL_ERROR "driver_paths: ${variable} is not set")
  endif()
endforeach()
foreach(variable CUDA_VISIBLE_DEVICES ACCEL_BACKEND ACCEL_REQUIRE_DEVICES ACCEL_MOCKDEV_DIR
                 ACCEL_CUDA_DRIVER ACCEL_NVML_LIBRARY ACCEL_LEVEL_ZERO_LOADER
                 ZE_ENABLE_ALT_DRIVERS MOCKDEV_MACHINE)
  unset(ENV{${variable}})
endforeach()
include(${CMAKE_CURRENT_LIST_DIR}/../../cmake/bounded_command.cmake)
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")
set(fifo "${WORK_DIR}/driver.fifo")
execute_process(COMMAND mkfifo "${fifo}" RESULT_VARIABLE made)
if(NOT made EQUAL 0)
  message(FATAL_ERROR "driver_paths: mkfifo ${fifo} failed (${made})")
endif()

# variable | path | what the path is
set(cases
  "ACCEL_CUDA_DRIVER|${fifo}|is a FIFO \\(named pipe\\), not a regular file"
  "ACCEL_CUDA_DRIVER|/dev/zero|is a character device, not a regular file"
  "ACCEL_CUDA_DRIVER|${WORK_DIR}|is a directory, not a regular file"
  "ACCEL_NVML_LIBRARY|${fifo}|is a FIFO \\(named pipe\\), not a regular file"
  "ACCEL_NVML_LIBRARY|/dev/zero|is a character device, not a regular file")
if(LEVEL_ZERO)
  list(APPEND cases
    "ACCEL_LEVEL_ZERO_LOADER|${fifo}|is a FIFO \\(named pipe\\), not a regular file"
    "ZE_ENABLE_ALT_DRIVERS|${fifo}|is a FIFO \\(named pipe\\), not a regular file"
    "ZE_ENABLE_ALT_DRIVERS|${WORK_DIR}/missing.so|cannot open: No such file or directory")
endif()

set(failures "")
foreach(case IN LISTS cases)
  string(REPLACE "|" ";" parts "${case}")
  list(GET parts 0 variable)
  list(GET parts 1 path)
  list(GET parts 2 what)
  set(ENV{${variable}} "${path}")
  # The backend the variable belongs to serves the report, so its error is the one shown.
  if(variable MATCHES "^(ACCEL_LEVEL_ZERO_LOADER|ZE_ENABLE_ALT_DRIVERS)$")
    set(ENV{ACCEL_BACKEND} xpu)
  else()
    set(ENV{ACCEL_BACKEND} cuda)
  endif()
  bounded_command(command "${ACCEL}" info)
  execute_process(COMMAND ${command} RESULT_VARIABLE status OUTPUT_VARIABLE out
                  ERROR_VARIABLE err TIMEOUT 20)
  unset(ENV{${variable}})
  string(REGEX REPLACE "([][+.*()^$?|\\\\])" "\\\\\\1" quoted "${path}")
  if(NOT status STREQUAL "2" OR NOT err MATCHES "^accel: ${variable}='[^']*' names no usable [^\n]*'${quoted}': ${what}"
     OR "${out}${err}" MATCHES "fallback")
    string(APPEND failures "  ${variable}=${path}: exit '${status}'\n${out}${err}\n")
  endif()
endforeach()
file(REMOVE_RECURSE "${WORK_DIR}")
if(failures)
  message(FATAL_ERROR "driver_paths: cases that were not refused as expected:\n${failures}")
endif()
list(LENGTH cases n)
message("driver_paths: ${n} cases, each refused at once with exit 2")
