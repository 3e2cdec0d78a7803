# The environment variables the project reads, from their one table,
# common/include/accel_common/environment_variables.def (its header says what each column
# means; C++ reads the same rows through accel_common/environment_variables.h). Included
# once by the top-level CMakeLists.txt, before any add_subdirectory, so every directory
# sees these variables:
#
#   ACCEL_ENVIRONMENT_VARIABLES      every NAME, in the table's order
#   ACCEL_ENVIRONMENT_OWNER_<NAME>   its OWNER (cuda, xpu, runtime, ...)
#   ACCEL_ENVIRONMENT_MOCK_<NAME>    its MOCK (none, machine, backend or a mockdev target)
#   ACCEL_TEST_CLEARED_ENVIRONMENT   "NAME=unset:" for each CLEARED row: the
#                                    ENVIRONMENT_MODIFICATION entries that keep a host's
#                                    values from reaching a test (add a test's own
#                                    "VAR=set:..." after them)
#
# A row CMake cannot read is a configure error naming its line, so the C++ table and this
# one cannot drift apart silently.
set(_accel_environment_table
    "${CMAKE_CURRENT_LIST_DIR}/../common/include/accel_common/environment_variables.def")
get_filename_component(_accel_environment_table "${_accel_environment_table}" ABSOLUTE)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${_accel_environment_table}")

# Every line that starts a row; a row's first line holds every column but MEANING.
file(STRINGS "${_accel_environment_table}" _accel_environment_rows
     REGEX "^[ \t]*ACCEL_ENVIRONMENT_VARIABLE[ \t]*\\(")
set(_accel_environment_row_regex
    "^[ \t]*ACCEL_ENVIRONMENT_VARIABLE\\(([A-Z][A-Z0-9_]*), *([a-z_]+), *([a-z_]+), *([01]), *([0-9]+), *([01]),")
set(ACCEL_ENVIRONMENT_VARIABLES "")
set(ACCEL_TEST_CLEARED_ENVIRONMENT "")
foreach(_accel_row IN LISTS _accel_environment_rows)
  if(NOT _accel_row MATCHES "${_accel_environment_row_regex}")
    message(FATAL_ERROR "${_accel_environment_table}: cannot read the row '${_accel_row}' "
                        "(expected ACCEL_ENVIRONMENT_VARIABLE(NAME, owner, mock, 0|1, "
                        "help line, 0|1, on its first line)")
  endif()
  set(_accel_name "${CMAKE_MATCH_1}")
  if(_accel_name IN_LIST ACCEL_ENVIRONMENT_VARIABLES)
    message(FATAL_ERROR "${_accel_environment_table}: ${_accel_name} has two rows")
  endif()
  list(APPEND ACCEL_ENVIRONMENT_VARIABLES "${_accel_name}")
  set(ACCEL_ENVIRONMENT_OWNER_${_accel_name} "${CMAKE_MATCH_2}")
  set(ACCEL_ENVIRONMENT_MOCK_${_accel_name} "${CMAKE_MATCH_3}")
  if(CMAKE_MATCH_6)
    list(APPEND ACCEL_TEST_CLEARED_ENVIRONMENT "${_accel_name}=unset:")
  endif()
endforeach()
if(NOT ACCEL_ENVIRONMENT_VARIABLES)
  message(FATAL_ERROR "${_accel_environment_table}: no ACCEL_ENVIRONMENT_VARIABLE rows")
endif()
unset(_accel_row)
unset(_accel_name)
unset(_accel_environment_rows)
unset(_accel_environment_row_regex)
