# ctest -P script: the mock Level Zero driver file exports exactly the dispatch-table
# getters the loader looks up: 17 + 6 optional core, 12 + 1 optional tools, 17 + 1
# (zesGetGlobalProcAddrTable, 1.5) Sysman = 54, nothing else (no zeInit, no C++ symbols),
# and is marked NODELETE (loader 1.8.12 dlcloses a driver whose zeInit failed).
#   -DNM=<nm> -DREADELF=<readelf> -DDRIVER=<libze_mock.so>
execute_process(COMMAND "${NM}" -D --defined-only "${DRIVER}"
                OUTPUT_VARIABLE symbols RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "nm failed on ${DRIVER}")
endif()
string(REGEX MATCHALL "[^\n]+" lines "${symbols}")
set(getters 0)
foreach(line IN LISTS lines)
  string(REGEX REPLACE "^.* " "" name "${line}")
  if(name MATCHES "^ze[ts]?Get[A-Za-z]+ProcAddrTable$")
    math(EXPR getters "${getters} + 1")
  else()
    message(FATAL_ERROR "libze_mock.so exports '${name}', which is not a *ProcAddrTable getter")
  endif()
endforeach()
if(NOT getters EQUAL 54)
  message(FATAL_ERROR "libze_mock.so exports ${getters} getters, expected 54")
endif()
execute_process(COMMAND "${READELF}" -d "${DRIVER}" OUTPUT_VARIABLE dynamic)
if(NOT dynamic MATCHES "NODELETE")
  message(FATAL_ERROR "libze_mock.so is not linked with -z nodelete")
endif()
if(dynamic MATCHES "libze_loader")
  message(FATAL_ERROR "libze_mock.so links the loader")
endif()
message(STATUS "libze_mock.so: 54 getters, nothing else, NODELETE, no loader")
