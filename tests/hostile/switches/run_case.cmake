# One hostile case: prepares what the case needs, then runs cmake/run_expect.cmake (its
# variables: COMMAND, EXPECT_EXIT, EXPECT_n, REJECT_n).
#   MKFIFO=<path>                a FIFO made afresh at <path>, which nobody reads
#   THREADS=<n> SCENARIO=<path>  a scenario file at <path> naming n threads
#   RUN_EXPECT=<path>            cmake/run_expect.cmake
if(DEFINED MKFIFO)
  file(REMOVE "${MKFIFO}")
  execute_process(COMMAND mkfifo "${MKFIFO}" RESULT_VARIABLE made)
  if(NOT made EQUAL 0)
    message(FATAL_ERROR "run_case: mkfifo ${MKFIFO} failed: ${made}")
  endif()
endif()
if(DEFINED THREADS)
  set(names "")
  foreach(i RANGE 1 ${THREADS})
    string(APPEND names "t${i}, ")
  endforeach()
  string(REGEX REPLACE ", $" "" names "${names}")
  file(WRITE "${SCENARIO}"
    "# ${THREADS} threads: more than a scenario may name (executor.h, kMaxScenarioThreads).\n"
    "machine: 1xa100\nthreads: [${names}]\nsteps:\n  - device_count:\n")
endif()
include("${RUN_EXPECT}")
