# ctest helper: runs one command and compares its exit status, stdout and stderr, whole,
# with a golden file (tests/tools/accel/golden/README.md). Used as
#   cmake -DCOMMAND=prog|arg1|arg2 -DGOLDEN_DIR=<dir> -DNAME=<name> [values] -P check_golden.cmake
# Variables:
#   COMMAND      the program and its arguments, separated by '|'
#   GOLDEN_DIR, NAME   the golden file is <GOLDEN_DIR>/<NAME>.txt (see BACKENDS)
#   BACKENDS     the compiled backends, comma-separated (ACCEL_BACKENDS): the files were
#                recorded with those of a full build; another list reads
#                <GOLDEN_DIR>/backends-<a>-<b>/<NAME>.txt where its output differs
#   SOURCE_DIR, BUILD_DIR   the project's source and build trees: written <source>, <build>
#   VERSION      the project's version: "accel <version>" and "version": "<version>"
#   COMPILER, BUILD_TYPE    what `accel info` shows under build: (tools/CMakeLists.txt)
#   ABI_CHECKED  1 or 0: whether the CUDA ABI was checked against cuda.h at configure time
# Each substitution replaces one exact string that the build or the machine decides, so
# everything else is compared byte for byte. ACCEL_UPDATE_GOLDEN=1 in the environment
# writes the file from the output instead of comparing (and the test passes).
foreach(required COMMAND GOLDEN_DIR NAME BACKENDS SOURCE_DIR BUILD_DIR VERSION COMPILER
                 ABI_CHECKED)
  if(NOT DEFINED ${required} OR "${${required}}" STREQUAL "")
    message(FATAL_ERROR "check_golden: ${required} is not set")
  endif()
endforeach()
if(NOT ABI_CHECKED MATCHES "^[01]$")
  message(FATAL_ERROR "check_golden: ABI_CHECKED is '${ABI_CHECKED}', expected 1 or 0")
endif()
# The backends of a full build, as CI configures it (ci/setup installs Level Zero).
set(recorded_backends "cuda,level_zero")
set(default_golden "${GOLDEN_DIR}/${NAME}.txt")
if(BACKENDS STREQUAL recorded_backends)
  set(golden "${default_golden}")
else()
  string(REPLACE "," "-" variant "backends-${BACKENDS}")
  set(golden "${GOLDEN_DIR}/${variant}/${NAME}.txt")
endif()

# accel lists every ACCEL_* variable it sees: the switch itself must not be one of them.
set(update "$ENV{ACCEL_UPDATE_GOLDEN}")
unset(ENV{ACCEL_UPDATE_GOLDEN})
string(REPLACE "|" ";" command_list "${COMMAND}")
execute_process(COMMAND ${command_list} RESULT_VARIABLE exit_status
                OUTPUT_VARIABLE out ERROR_VARIABLE err)

# One text holding all three: a stream that does not end with a newline says so, so the
# file round-trips exactly.
function(golden_section out_var title text)
  set(section "---- ${title}\n${text}")
  if(NOT text STREQUAL "" AND NOT text MATCHES "\n$")
    string(APPEND section "\n---- (no newline at the end of ${title})\n")
  endif()
  set(${out_var} "${section}" PARENT_SCOPE)
endfunction()
golden_section(out_section stdout "${out}")
golden_section(err_section stderr "${err}")
set(actual "exit status: ${exit_status}\n${out_section}${err_section}---- end\n")

# The substitutions, longest path first (the build tree may lie inside the source tree).
string(LENGTH "${SOURCE_DIR}" source_length)
string(LENGTH "${BUILD_DIR}" build_length)
if(build_length GREATER source_length)
  string(REPLACE "${BUILD_DIR}" "<build>" actual "${actual}")
  string(REPLACE "${SOURCE_DIR}" "<source>" actual "${actual}")
else()
  string(REPLACE "${SOURCE_DIR}" "<source>" actual "${actual}")
  string(REPLACE "${BUILD_DIR}" "<build>" actual "${actual}")
endif()
string(REPLACE "accel ${VERSION}\n" "accel <version>\n" actual "${actual}")
string(REPLACE "\"version\": \"${VERSION}\"" "\"version\": \"<version>\"" actual "${actual}")
# The build line: "<compiler>[, <build type>], backends: ..." (render_text.cpp build_line).
if(BUILD_TYPE STREQUAL "")
  set(build_id "${COMPILER}")
else()
  set(build_id "${COMPILER}, ${BUILD_TYPE}")
endif()
string(REPLACE "${build_id}, backends: " "<compiler>, <build type>, backends: " actual "${actual}")
string(REPLACE "\"compiler\": \"${COMPILER}\"" "\"compiler\": \"<compiler>\"" actual "${actual}")
string(REPLACE "\"build_type\": \"${BUILD_TYPE}\"" "\"build_type\": \"<build type>\""
               actual "${actual}")
if(ABI_CHECKED)
  set(abi_text "yes")
  set(abi_json "true")
else()
  set(abi_text "no")
  set(abi_json "false")
endif()
string(REPLACE "CUDA ABI checked against cuda.h: ${abi_text}\n"
               "CUDA ABI checked against cuda.h: <yes or no>\n" actual "${actual}")
string(REPLACE "\"cuda_abi_checked\": ${abi_json}" "\"cuda_abi_checked\": <true or false>"
               actual "${actual}")

set(update_hint
    "if the new output is right: ACCEL_UPDATE_GOLDEN=1 ctest -R '^tools\\.accel_${NAME}$'")
if(update STREQUAL "1")
  # Another backend list records only what differs from the full build's file.
  if(NOT golden STREQUAL default_golden AND EXISTS "${default_golden}")
    file(READ "${default_golden}" recorded)
    if(recorded STREQUAL actual)
      file(REMOVE "${golden}")
      message("check_golden: ${default_golden} holds this output too")
      return()
    endif()
  endif()
  file(WRITE "${golden}" "${actual}")
  message("check_golden: wrote ${golden}")
  return()
elseif(NOT update STREQUAL "")
  message(FATAL_ERROR "check_golden: ACCEL_UPDATE_GOLDEN is '${update}': set it to 1 to "
                      "record the golden files, or unset it to compare with them")
endif()
if(NOT EXISTS "${golden}")
  set(golden "${default_golden}")  # this backend list prints what the full build prints
endif()
if(NOT EXISTS "${golden}")
  message("the output was:\n${actual}")
  message(FATAL_ERROR "check_golden: no golden file ${golden}; to record it, ${update_hint}")
endif()
file(READ "${golden}" expected)
if(expected STREQUAL actual)
  return()
endif()

# A mismatch: one hunk (cmake/text_hunk.cmake).
include("${CMAKE_CURRENT_LIST_DIR}/../../../cmake/text_hunk.cmake")
accel_text_hunk(hunk first_line "${expected}" "${actual}")
# Plain message() lines (FATAL_ERROR would indent every line of the hunk).
message("the whole output was:\n${actual}")
message("--- ${golden}\n+++ the output\n${hunk}")
message(FATAL_ERROR "check_golden: the output differs from ${golden} (after the "
                    "substitutions), first at line ${first_line}: see the hunk above; "
                    "${update_hint}")
