# accel_add_mock_test(): register a ctest entry that runs a program on the simulated
# hardware (mockdev). Installed with the package (find_package(accel) includes it) and
# used in accel's own build tree too.
#
#   accel_add_mock_test(<test-name>
#                       COMMAND <target-or-program> [args...]
#                       MACHINE <preset | machine-file>
#                       [SCHEDULE eager|random|adversarial] [SEED <n>]
#                       [RACES off|report|fail|abort] [TRACE <file>]
#                       [ENV <VAR=value>...]
#                       [LABELS <label>...])
#
# The test runs with every variable the mock needs:
#   ACCEL_CUDA_DRIVER    the mock libcuda.so.1      (installed: <prefix>/lib/accel/mockdev/;
#   ACCEL_NVML_LIBRARY   the mock libnvidia-ml.so.1  build tree: the mockdev_cuda/_nvml targets)
#   MOCKDEV_MACHINE      the machine: a preset name (ACCEL_MOCKDEV_PRESETS: 4xh100, 8xh100,
#                        2xa100, 1xa100, mixed, none, 2xmax1550, laptop_igpu,
#                        mixed_vendors) or a machine file, given relative to
#                        the calling CMakeLists.txt or absolute; docs/MACHINE_FILES.md
# The simulation's settings, as `accel run` takes them (docs/MACHINE_FILES.md), each over
# the machine file's:
#   SCHEDULE   MOCKDEV_SCHEDULE: the order simulated streams run in
#   SEED       MOCKDEV_SEED: the seed of the random schedule (an unsigned decimal number)
#   RACES      MOCKDEV_RACES: what a detected data race does; under `fail` a program that
#              had races exits 86, so the test fails
#   TRACE      MOCKDEV_TRACE: the timeline trace file (Chrome trace-event JSON), relative
#              to the calling directory's build directory or absolute
# and with CUDA_VISIBLE_DEVICES and ACCEL_BACKEND unset, so the environment ctest runs in
# cannot change the simulated machine (set them with ENV to test them). ENV adds or
# overrides variables (ENV MOCKDEV_MACHINE=... is an error: use MACHINE).
#
# Mistakes are configure errors, never a test that quietly runs on the CPU: an unknown
# preset, a machine file that does not exist, a package installed without the mock driver.
# A machine file is only checked to exist here; the mock reads it when the test runs
# (a malformed one makes cuInit fail, and the mock says why on stderr).
#
# A GoogleTest fixture that resets the simulated machine between tests and reads its call
# counters is in <mockdev/testing/gtest.h>.

# The presets of the mock (mockdev::preset_names(); a unit test keeps the two equal), as a
# variable of the including scope and a global property (functions read the property, so
# they work from any directory).
set(ACCEL_MOCKDEV_PRESETS 4xh100 8xh100 2xa100 1xa100 mixed none 2xmax1550 laptop_igpu
    mixed_vendors)
set_property(GLOBAL PROPERTY ACCEL_MOCKDEV_PRESETS "${ACCEL_MOCKDEV_PRESETS}")

function(accel_add_mock_test name)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "" "MACHINE;SCHEDULE;SEED;RACES;TRACE"
                        "COMMAND;ENV;LABELS")
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "accel_add_mock_test(${name}): unexpected arguments "
                        "'${ARG_UNPARSED_ARGUMENTS}' (expected COMMAND, MACHINE, SCHEDULE, "
                        "SEED, RACES, TRACE, ENV, LABELS)")
  endif()
  # The simulation's settings: the values mockdev accepts (a wrong one is a configure
  # error here rather than a test whose driver refuses to start).
  set(settings "")
  foreach(option IN ITEMS SCHEDULE SEED RACES TRACE)
    if(NOT DEFINED ARG_${option})
      continue()
    endif()
    set(value "${ARG_${option}}")
    if(option STREQUAL "SCHEDULE")
      set(valid eager random adversarial)
    elseif(option STREQUAL "RACES")
      set(valid off report fail abort)
    else()
      set(valid "")
    endif()
    if(valid AND NOT value IN_LIST valid)
      string(REPLACE ";" ", " valid "${valid}")
      message(FATAL_ERROR "accel_add_mock_test(${name}): ${option} '${value}': expected "
                          "${valid}")
    endif()
    if(option STREQUAL "SEED" AND NOT value MATCHES "^[0-9]+$")
      message(FATAL_ERROR "accel_add_mock_test(${name}): SEED '${value}': expected an "
                          "unsigned decimal number")
    endif()
    if(option STREQUAL "TRACE")
      if(value STREQUAL "")
        message(FATAL_ERROR "accel_add_mock_test(${name}): TRACE '': expected a file")
      endif()
      cmake_path(ABSOLUTE_PATH value BASE_DIRECTORY "${CMAKE_CURRENT_BINARY_DIR}" NORMALIZE)
    endif()
    list(APPEND settings "MOCKDEV_${option}=${value}")
  endforeach()
  if(NOT ARG_COMMAND)
    message(FATAL_ERROR "accel_add_mock_test(${name}): COMMAND <target> [args...] is required")
  endif()
  if(NOT DEFINED ARG_MACHINE OR ARG_MACHINE STREQUAL "")
    get_property(presets GLOBAL PROPERTY ACCEL_MOCKDEV_PRESETS)
    string(REPLACE ";" ", " presets "${presets}")
    message(FATAL_ERROR "accel_add_mock_test(${name}): MACHINE <preset|machine-file> is "
                        "required (presets: ${presets})")
  endif()

  # The machine: a preset, or a file that exists now.
  get_property(ACCEL_MOCKDEV_PRESETS GLOBAL PROPERTY ACCEL_MOCKDEV_PRESETS)
  set(machine "${ARG_MACHINE}")
  if(NOT machine MATCHES "/" AND NOT machine MATCHES "\\.ya?ml$")
    if(NOT machine IN_LIST ACCEL_MOCKDEV_PRESETS)
      string(REPLACE ";" ", " presets "${ACCEL_MOCKDEV_PRESETS}")
      message(FATAL_ERROR "accel_add_mock_test(${name}): MACHINE '${machine}': no such "
                          "preset (presets: ${presets}; a machine file is a path ending "
                          "in .yaml)")
    endif()
  else()
    cmake_path(ABSOLUTE_PATH machine BASE_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}"
               NORMALIZE)
    if(NOT EXISTS "${machine}" OR IS_DIRECTORY "${machine}")
      message(FATAL_ERROR "accel_add_mock_test(${name}): MACHINE '${ARG_MACHINE}': no such "
                          "file (${machine})")
    endif()
  endif()

  # The mock driver files: the build tree's targets, else the installed package's.
  if(TARGET mockdev_cuda AND TARGET mockdev_nvml AND COMMAND mockdev_environment)
    mockdev_environment(environment "${machine}")
  else()
    if(NOT DEFINED ACCEL_MOCKDEV_DRIVER_DIR
       OR NOT EXISTS "${ACCEL_MOCKDEV_DRIVER_DIR}/libcuda.so.1"
       OR NOT EXISTS "${ACCEL_MOCKDEV_DRIVER_DIR}/libnvidia-ml.so.1")
      message(FATAL_ERROR "accel_add_mock_test(${name}): the accel package has no mock "
                          "driver (expected libcuda.so.1 and libnvidia-ml.so.1 in "
                          "'${ACCEL_MOCKDEV_DRIVER_DIR}'; accel built without "
                          "ACCEL_BUILD_MOCKDEV?)")
    endif()
    set(environment
        "ACCEL_CUDA_DRIVER=${ACCEL_MOCKDEV_DRIVER_DIR}/libcuda.so.1"
        "ACCEL_NVML_LIBRARY=${ACCEL_MOCKDEV_DRIVER_DIR}/libnvidia-ml.so.1"
        "MOCKDEV_MACHINE=${machine}")
  endif()

  # Applied in order: unset what would change the machine, then the mock's variables and
  # the simulation's settings, then the caller's.
  set(modifications "CUDA_VISIBLE_DEVICES=unset:" "ACCEL_BACKEND=unset:")
  foreach(entry IN LISTS environment settings ARG_ENV)
    if(NOT entry MATCHES "^([A-Za-z_][A-Za-z0-9_]*)=(.*)$")
      message(FATAL_ERROR "accel_add_mock_test(${name}): ENV '${entry}': expected VAR=value")
    endif()
    set(variable "${CMAKE_MATCH_1}")
    set(value "${CMAKE_MATCH_2}")
    if(variable STREQUAL "MOCKDEV_MACHINE" AND entry IN_LIST ARG_ENV)
      message(FATAL_ERROR "accel_add_mock_test(${name}): ENV '${entry}': give the machine "
                          "with MACHINE")
    endif()
    list(APPEND modifications "${variable}=set:${value}")
  endforeach()

  add_test(NAME "${name}" COMMAND ${ARG_COMMAND})
  set_tests_properties("${name}" PROPERTIES ENVIRONMENT_MODIFICATION "${modifications}")
  if(ARG_LABELS)
    set_tests_properties("${name}" PROPERTIES LABELS "${ARG_LABELS}")
  endif()
endfunction()
