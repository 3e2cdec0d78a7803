# The allocator steps' own runner tests (tools/scenario/steps_memory.cpp,
# steps_host_memory.cpp, the `invariants:` setting; docs/SCENARIOS.md "Memory steps and
# invariants:"), included by tests/tools/scenario/CMakeLists.txt, whose scenario_runner_test
# and ${runner} they use. Bad arguments and expectations are file:line errors before anything
# runs (exit 2); a failing statistic names its keys; a broken invariant fails its step.
set(memory_data ${PROJECT_SOURCE_DIR}/tests/scenarios/memory)
scenario_runner_test(memory_unknown_stat_key "${runner}|run|${memory_data}/unknown_stat_key.yaml"
  -DEXPECT_EXIT=2
  "-DEXPECT_1=unknown_stat_key\\.yaml:4: steps\\[0\\]\\.expect\\.value: expected a statistic \\(closest: allocated_bytes\\.all\\.current, [^\n]*\\), got 'allocated_bytes\\.all\\.curent'\n")
scenario_runner_test(memory_unknown_host_stat_key
  "${runner}|run|${memory_data}/unknown_host_stat_key.yaml" -DEXPECT_EXIT=2
  "-DEXPECT_1=unknown_host_stat_key\\.yaml:4: steps\\[0\\]\\.expect\\.value: expected a statistic \\(closest: num_host_alloc, [^\n]*\\), got 'num_host_allocs'\n")
scenario_runner_test(memory_bad_block_state "${runner}|run|${memory_data}/bad_block_state.yaml"
  -DEXPECT_EXIT=2
  "-DEXPECT_1=bad_block_state\\.yaml:6: steps\\[0\\]\\.expect\\.value\\[0\\]\\.blocks\\[0\\]\\.state: expected active_allocated, active_pending_free or inactive, got 'pending'\n")
scenario_runner_test(memory_unknown_allocation "${runner}|run|${memory_data}/unknown_allocation.yaml"
  -DEXPECT_EXIT=2
  "-DEXPECT_1=unknown_allocation\\.yaml:4: steps\\[1\\]\\.free: expected a device allocation made by an earlier step \\(closest: x\\), got 'y'\n")
scenario_runner_test(memory_device_and_stream "${runner}|run|${memory_data}/device_and_stream.yaml"
  -DEXPECT_EXIT=2
  "-DEXPECT_1=device_and_stream\\.yaml:4: steps\\[1\\]\\.allocate\\.device: expected either a device or a stream \\(a stream names its device\\)")
scenario_runner_test(memory_unknown_invariants "${runner}|run|${memory_data}/unknown_invariants.yaml"
  -DEXPECT_EXIT=2
  "-DEXPECT_1=unknown_invariants\\.yaml:2: invariants: expected memory_stats \\(the allocator's invariants, checked after every step\\), got 'memory_stat'\n")
scenario_runner_test(memory_stat_mismatch_names_keys "${runner}|run|${memory_data}/stat_mismatch.yaml"
  -DEXPECT_EXIT=1
  "-DEXPECT_1=stat_mismatch\\.yaml:4 on thread main: memory_stats: 0\n  expected: value \\{\"allocated_bytes\\.all\\.current\":2048,\"segment\\.all\\.current\":1\\}\n  got:      \\{\"allocated_bytes\\.all\\.current\":1024,\"segment\\.all\\.current\":1\\}\n")
scenario_runner_test(memory_invariant_violation_fails_its_step
  "${runner}|run|${memory_data}/invariant_violation.yaml" -DEXPECT_EXIT=1
  "-DEXPECT_1=invariant_violation\\.yaml:8 on thread main: set_allocator_settings: expandable_segments:True\n  expected: the allocator's invariants hold \\(invariants: memory_stats\\)\n  got:      device 0: layout: segment 0x[0-9a-f]+ is_expandable 0\n")
scenario_runner_test(memory_invariants_hold "${runner}|run|${memory_data}/invariants_hold.yaml"
  -DEXPECT_EXIT=0 "-DEXPECT_1=^PASS invariants_hold ")
scenario_runner_test(memory_bad_fraction "${runner}|run|${memory_data}/bad_fraction.yaml"
  -DEXPECT_EXIT=2
  "-DEXPECT_1=bad_fraction\\.yaml:3: steps\\[0\\]\\.set_per_process_memory_fraction\\.fraction: expected a number \\(the runtime checks its range\\), got 'half'\n")
