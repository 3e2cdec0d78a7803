# Tests of accel replay (included from tools/replay/CMakeLists.txt). The figures of the
# tests/data traces are checked by replay_test.py, which computes them itself from the
# trace files; the malformed traces and bad options are checked here, exact message and
# exit status 2 each.
set(replay_data ${PROJECT_SOURCE_DIR}/tests/data)
set(replay_cmd "-DCOMMAND=$<TARGET_FILE:accel-replay>")
set(replay_run_expect ${PROJECT_SOURCE_DIR}/cmake/run_expect.cmake)

# Each malformed file: exit 2 and its exact message after "accel replay: <file>" (a ';' in
# a message is matched by '.', since CMake splits arguments at ';').
function(replay_bad_input name file message)
  add_test(NAME tools.replay_bad_${name}
    COMMAND ${CMAKE_COMMAND} "${replay_cmd}|${replay_data}/${file}|--capacity|1GiB|--no-progress"
      -DEXPECT_EXIT=2
      "-DEXPECT_1=^accel replay: [^\n]*tests/data/${file}${message}\n$"
      -P ${replay_run_expect})
endfunction()
replay_bad_input(truncated_json bad_truncated.json
  ":200: malformed JSON at byte 27148: unexpected end of input. expected ',' or '}'")
replay_bad_input(json_syntax bad_syntax.json
  ":5: malformed JSON at byte 120: unexpected '\"'. expected ',' or '}'")
replay_bad_input(json_bad_size bad_size.json
  ":6: device_traces\\[0\\]\\[2\\]\\.size: expected a non-negative integer, got '\"abc\"'")
replay_bad_input(json_unknown_action bad_action.json
  ":5: device_traces\\[0\\]\\[1\\]\\.action: unknown action 'realloc' \\(expected alloc, free_requested, free_completed, free, segment_alloc, segment_free, segment_map, segment_unmap, snapshot or oom\\)")
replay_bad_input(json_missing_addr bad_missing_addr.json
  ":5: device_traces\\[0\\]\\[1\\]\\.addr: missing")
replay_bad_input(json_no_traces bad_no_traces.json
  ": no device_traces \\(the snapshot was taken without memory history. record it with torch\\.cuda\\.memory\\._record_memory_history\\(\\)\\)")
replay_bad_input(json_double_alloc bad_double_alloc.json
  ":6: address 0x1000 allocated again while live \\(allocated at line 4 and not freed since\\)")
replay_bad_input(json_duplicate_key bad_duplicate_key.json
  ":5: device_traces\\[0\\]\\[1\\]\\.addr: duplicate key \\(an entry names each key once\\)")
replay_bad_input(json_double_free bad_double_free.json
  ":7: free_requested of address 0x1000, which is not live \\(freed at line 6 and not allocated again since\\)")
replay_bad_input(csv_duplicate_column bad_duplicate_column.csv
  ":1: header: duplicate column 'Size' \\(columns 5 and 7\\) in 'Thread,Time,Action,Pointer,Size,Stream,Size'")
replay_bad_input(csv_unknown_free bad_unknown_free.csv
  ":4: free of address 0x7f4a00000000, which the log never allocated \\(an RMM log holds every allocation from its start: is it complete\\?\\)")
replay_bad_input(csv_bad_size bad_size.csv
  ":16: Size: expected a non-negative integer, got 'abc'")
replay_bad_input(csv_fields bad_fields.csv
  ":9: expected 6 fields \\(Thread,Time,Action,Pointer,Size,Stream\\), got 5")
replay_bad_input(csv_action bad_action.csv
  ":5: Action: expected allocate, free or allocate failure, got 'reallocate'")
replay_bad_input(csv_pointer bad_pointer.csv
  ":7: Pointer: expected an address \\(0x\\.\\.\\. or decimal\\), got '0xZZ12'")
replay_bad_input(csv_header bad_header.csv
  ":1: header: no Pointer column \\(expected Thread,Time,Action,Pointer,Size,Stream, got 'Thread,Time,Action,Address,Size,Stream'\\)")
replay_bad_input(not_a_trace bad_not_a_trace.txt
  ":1: not a trace: expected a PyTorch snapshot \\(a JSON object with device_traces\\) or an RMM log \\(CSV with the header Thread,Time,Action,Pointer,Size,Stream\\)")

# Bad options: exit 2, one line naming the value.
add_test(NAME tools.replay_bad_capacity
  COMMAND ${CMAKE_COMMAND} "${replay_cmd}|${replay_data}/snapshot.json|--capacity|12XB"
    -DEXPECT_EXIT=2
    "-DEXPECT_1=^accel replay: --capacity: expected a size in bytes above 0 \\(e\\.g\\. 16GiB, 512MiB, 1073741824\\), got '12XB'\n$"
    -P ${replay_run_expect})
add_test(NAME tools.replay_bad_config
  COMMAND ${CMAKE_COMMAND} "${replay_cmd}|${replay_data}/snapshot.json|--config|expandable_segments:Maybe"
    -DEXPECT_EXIT=2
    "-DEXPECT_1=^accel replay: --config: [^\n]*'Maybe'[^\n]*\n$"
    -P ${replay_run_expect})
add_test(NAME tools.replay_bad_device
  COMMAND ${CMAKE_COMMAND} "${replay_cmd}|${replay_data}/snapshot.json|--device|1|--capacity|1GiB"
    -DEXPECT_EXIT=2
    "-DEXPECT_1=^accel replay: [^\n]*snapshot\\.json: --device 1: the snapshot has device_traces for 1 device\n$"
    -P ${replay_run_expect})
# --device is read strictly and its range given in the user's terms.
add_test(NAME tools.replay_negative_device
  COMMAND ${CMAKE_COMMAND} "${replay_cmd}|${replay_data}/snapshot.json|--device|-1|--capacity|1GiB"
    -DEXPECT_EXIT=2
    "-DEXPECT_1=^accel replay: --device expects a device index from 0 to 2147483647, got '-1'\n$"
    -P ${replay_run_expect})
add_test(NAME tools.replay_missing_file
  COMMAND ${CMAKE_COMMAND} "${replay_cmd}|${replay_data}/no_such_trace.json"
    -DEXPECT_EXIT=2
    "-DEXPECT_1=^accel replay: trace '[^\n]*no_such_trace\\.json': cannot open: No such file or directory\n$"
    -P ${replay_run_expect})
# Paths that are no trace: refused at once (Note [Bounded readers]), never read or waited on.
add_test(NAME tools.replay_trace_is_a_device
  COMMAND ${CMAKE_COMMAND} "${replay_cmd}|/dev/zero|--capacity|1GiB"
    -DEXPECT_EXIT=2
    "-DEXPECT_1=^accel replay: trace '/dev/zero': is a character device, not a regular file\n$"
    -P ${replay_run_expect})
add_test(NAME tools.replay_trace_is_a_directory
  COMMAND ${CMAKE_COMMAND} "${replay_cmd}|${replay_data}|--capacity|1GiB"
    -DEXPECT_EXIT=2
    "-DEXPECT_1=^accel replay: trace '[^\n]*tests/data': is a directory, not a regular file\n$"
    -P ${replay_run_expect})
set(replay_fifo ${CMAKE_CURRENT_BINARY_DIR}/replay_trace.fifo)
add_test(NAME tools.replay_trace_is_a_fifo
  COMMAND ${CMAKE_COMMAND}
    "-DCOMMAND=sh|-c|rm -f ${replay_fifo} && mkfifo ${replay_fifo} && exec $<TARGET_FILE:accel-replay> ${replay_fifo} --capacity 1GiB"
    -DEXPECT_EXIT=2
    "-DEXPECT_1=^accel replay: trace '[^\n]*replay_trace\\.fifo': is a FIFO \\(named pipe\\), not a regular file\n$"
    -P ${replay_run_expect})
# An unknown allocator key names the closest known one.
add_test(NAME tools.replay_config_suggests_the_closest_key
  COMMAND ${CMAKE_COMMAND} "${replay_cmd}|${replay_data}/snapshot.json|--config|expandable_segment:True"
    -DEXPECT_EXIT=2
    "-DEXPECT_1=^accel replay: --config: unknown key 'expandable_segment' \\(closest: expandable_segments\\) in 'expandable_segment:True'\n$"
    -P ${replay_run_expect})
# A peak no capacity searched can hold: the limit in bytes and binary units, no overflow.
add_test(NAME tools.replay_min_capacity_limit
  COMMAND ${CMAKE_COMMAND} "${replay_cmd}|${replay_data}/huge_peak.csv|--find-min-capacity"
    -DEXPECT_EXIT=2
    "-DEXPECT_1=^accel replay: [^\n]*huge_peak\\.csv: --find-min-capacity: the trace holds 18446744073709551615 bytes \\(16\\.00 EiB\\) live at once \\(its peak of live requested bytes\\), more than the largest capacity searched, 281474976710656 bytes \\(256\\.00 TiB\\)\n$"
    -P ${replay_run_expect})
add_test(NAME tools.replay_bad_machine
  COMMAND ${CMAKE_COMMAND} "${replay_cmd}|${replay_data}/snapshot.json|--machine|9xnothing"
    -DEXPECT_EXIT=2
    "-DEXPECT_1=^accel replay: --machine 9xnothing: machine '9xnothing': no such preset or file \\(presets: [^\n]*4xh100"
    -P ${replay_run_expect})
add_test(NAME tools.replay_capacity_and_machine
  COMMAND ${CMAKE_COMMAND} "${replay_cmd}|${replay_data}/snapshot.json|--capacity|1GiB|--machine|1xa100"
    -DEXPECT_EXIT=2
    "-DEXPECT_1=^accel replay: --capacity excludes --machine\nRun 'accel replay --help' for usage\\.\n$"
    -P ${replay_run_expect})

# `accel replay` execs accel-replay with its arguments.
add_test(NAME tools.accel_replay_dispatch
  COMMAND ${CMAKE_COMMAND} "-DCOMMAND=$<TARGET_FILE:accel>|replay|${replay_data}/rmm_log.csv|--capacity|1GiB"
    -DEXPECT_EXIT=0
    "-DEXPECT_1=^trace: [^\n]*rmm_log\\.csv \\(RMM log\\)\nevents replayed: 408 of 408 \\(204 allocations, 204 frees\\)\nskipped: 5 failed allocations\n"
    "-DEXPECT_2=\nresult: no out of memory\n$"
    -P ${replay_run_expect})
add_test(NAME tools.accel_replay_help
  COMMAND ${CMAKE_COMMAND} "-DCOMMAND=$<TARGET_FILE:accel>|replay|--help"
    -DEXPECT_EXIT=0 "-DEXPECT_1=Usage: accel replay \\[OPTIONS\\] trace" "-DEXPECT_2=--find-min-capacity"
    "-DEXPECT_3=--compare CONF\\.\\.\\." -P ${replay_run_expect})

# The progress bar: only when forced here (stderr is not a terminal under ctest).
add_test(NAME tools.replay_progress_forced
  COMMAND ${CMAKE_COMMAND} "${replay_cmd}|${replay_data}/snapshot.json|--capacity|1GiB|--progress"
    -DEXPECT_EXIT=0 "-DEXPECT_1=\raccel replay \\[#+ *\\] +[0-9]+% [0-9]+/476 events"
    "-DEXPECT_2=\raccel replay \\[####################\\] 100% 476/476 events\n"
    -P ${replay_run_expect})
add_test(NAME tools.replay_progress_off_without_terminal
  COMMAND ${CMAKE_COMMAND} "${replay_cmd}|${replay_data}/snapshot.json|--capacity|1GiB"
    -DEXPECT_EXIT=0 "-DEXPECT_1=\nresult: no out of memory\n$" "-DREJECT_1=\\[#" "-DREJECT_2=% [0-9]+/476 events"
    "-DEXPECT_2=\nskipped: 2 frees of addresses allocated before the trace, 6 allocator entries\n"
    -P ${replay_run_expect})

# Figures, bisection against a linear search, --compare, OOM and the converter script.
find_package(Python3 COMPONENTS Interpreter)
if(Python3_Interpreter_FOUND)
  foreach(case snapshot_figures rmm_figures snapshot_min_capacity rmm_min_capacity compare oom
               converter converter_rejects_code)
    add_test(NAME tools.replay_${case}
      COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/tests/replay_test.py
        --replay $<TARGET_FILE:accel-replay>
        --data ${replay_data}
        --converter ${PROJECT_SOURCE_DIR}/tools/convert_memory_snapshot.py
        --work ${CMAKE_CURRENT_BINARY_DIR}/replay_test_${case}
        ${case})
  endforeach()
else()
  message(WARNING "accel: python3 not found; the accel replay figure and converter tests are NOT run")
endif()

get_property(replay_tests DIRECTORY PROPERTY TESTS)
set_tests_properties(${replay_tests} PROPERTIES LABELS unit TIMEOUT 300)

# The pieces: readers, the simulated device, stream mapping, sizes.
find_package(GTest)
if(GTest_FOUND)
  add_executable(accel_replay_unit_tests
    ${CMAKE_CURRENT_SOURCE_DIR}/tests/json_reader_test.cpp
    ${CMAKE_CURRENT_SOURCE_DIR}/tests/replay_unit_test.cpp
    ${CMAKE_CURRENT_SOURCE_DIR}/tests/snapshot_compat_test.cpp
    ${CMAKE_CURRENT_SOURCE_DIR}/tests/trace_checks_test.cpp)
  target_link_libraries(accel_replay_unit_tests PRIVATE accel_replay_lib GTest::gtest_main
                                                        accel_build_flags)
  gtest_discover_tests(accel_replay_unit_tests TEST_PREFIX "tools.replay." PROPERTIES LABELS unit)
endif()
