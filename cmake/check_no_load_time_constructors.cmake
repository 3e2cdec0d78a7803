# ctest script: the simulated driver libraries run no load-time constructor that builds
# state (docs/decisions/188-fork-gate.md, Note [Constant driver tables] in
# mockdev/src/cuda/cuda_facade.cpp). A child forked while another thread was inside the
# dlopen() of such a library would inherit that state half-built.
#
#   cmake -DNM=<nm> "-DLIBRARIES=<lib>;..." "-DALLOWED=<source file>;..." -P <this file>
#
# Each translation unit with dynamic initialisation leaves a _GLOBAL__sub_I_<source file>
# symbol; ALLOWED names the files whose initialiser builds nothing the drivers serve.
cmake_policy(SET CMP0057 NEW)  # if(IN_LIST)
foreach(variable NM LIBRARIES)
  if(NOT DEFINED ${variable})
    message(FATAL_ERROR "check_no_load_time_constructors: ${variable} is not set")
  endif()
endforeach()
set(offenders "")
foreach(library IN LISTS LIBRARIES)
  execute_process(COMMAND "${NM}" "${library}" OUTPUT_VARIABLE symbols ERROR_VARIABLE error
                  RESULT_VARIABLE status)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "check_no_load_time_constructors: ${NM} ${library} failed: ${error}")
  endif()
  string(REGEX MATCHALL "_GLOBAL__sub_I_[A-Za-z0-9_.]+" initialisers "${symbols}")
  list(REMOVE_DUPLICATES initialisers)
  foreach(initialiser IN LISTS initialisers)
    string(REPLACE "_GLOBAL__sub_I_" "" source "${initialiser}")
    if(NOT source IN_LIST ALLOWED)
      list(APPEND offenders "${library}: ${source}")
    endif()
  endforeach()
endforeach()
if(offenders)
  string(REPLACE ";" "\n  " offenders "${offenders}")
  message(FATAL_ERROR "load-time constructors in the simulated drivers (make the data "
                      "constant-initialised):\n  ${offenders}")
endif()
list(LENGTH LIBRARIES count)
message(STATUS "no load-time constructors in ${count} simulated driver libraries")
