# ctest helper: runs one command and checks its exit status and its output together,
# which PASS_REGULAR_EXPRESSION / WILL_FAIL cannot do (a regex there ignores the exit
# status). Used as
#   cmake -DCOMMAND=prog|arg1|arg2 -DEXPECT_EXIT=2 -DEXPECT_1=<regex> ... -P run_expect.cmake
# Variables:
#   COMMAND       the program and its arguments, separated by '|'
#   EXPECT_EXIT   the exit status it must return (default 0)
#   EXPECT_1..6   regexes that must each match stdout+stderr
#   REJECT_1..3   regexes that must not match
#   COUNT_REGEX   a regex, with COUNT: how many times it must match (e.g. table rows)
#   MEMORY_LIMIT_MB  run the command with its address space limited to this (ulimit -v):
#                 hostile inputs must not exhaust memory; exceeding it fails the allocation,
#                 so the exit status and output show it
# The environment is inherited, so ctest's ENVIRONMENT property applies to the command.
if(NOT DEFINED COMMAND)
  message(FATAL_ERROR "run_expect: COMMAND is not set")
endif()
if(NOT DEFINED EXPECT_EXIT)
  set(EXPECT_EXIT 0)
endif()
string(REPLACE "|" ";" command_list "${COMMAND}")
include(${CMAKE_CURRENT_LIST_DIR}/bounded_command.cmake)
bounded_command(command_list ${command_list})
execute_process(COMMAND ${command_list}
                RESULT_VARIABLE exit_status
                OUTPUT_VARIABLE out
                ERROR_VARIABLE err)
set(all "${out}${err}")
message("---- stdout\n${out}---- stderr\n${err}---- exit status: ${exit_status}")

set(failures "")
if(NOT "${exit_status}" STREQUAL "${EXPECT_EXIT}")
  string(APPEND failures "exit status ${exit_status}, expected ${EXPECT_EXIT}\n")
endif()
foreach(i RANGE 1 6)
  if(DEFINED EXPECT_${i})
    if(NOT all MATCHES "${EXPECT_${i}}")
      string(APPEND failures "output does not match: ${EXPECT_${i}}\n")
    endif()
  endif()
endforeach()
foreach(i RANGE 1 3)
  if(DEFINED REJECT_${i})
    if(all MATCHES "${REJECT_${i}}")
      string(APPEND failures "output matches the rejected pattern: ${REJECT_${i}}\n")
    endif()
  endif()
endforeach()
if(DEFINED COUNT_REGEX)
  string(REGEX MATCHALL "${COUNT_REGEX}" matches "${all}")
  list(LENGTH matches found)
  if(NOT found EQUAL COUNT)
    string(APPEND failures "${found} matches of ${COUNT_REGEX}, expected ${COUNT}\n")
  endif()
endif()
if(failures)
  message(FATAL_ERROR "run_expect failed:\n${failures}")
endif()
