# Behaviours on Level Zero machines (2xmax1550, laptop_igpu, mixed_vendors): selection under
# the FLAT and COMPOSITE hierarchies, ZE_AFFINITY_MASK, guards, fork, streams and events, the
# caching allocator (statistics, empty_cache, out of memory), Level Zero faults, and the
# twins of scenarios/behaviours/ on xpu. Those tagged `sweep` are swept (label `sweep`).
# They are registered only where the mock Level Zero driver and the xpu backend are built
# (the runner points the real loader at the mock driver itself, as `accel --machine` does);
# elsewhere a warning says they are not.
if(TARGET mockdev_level_zero AND "level_zero" IN_LIST ACCEL_BACKENDS)
  file(GLOB xpu_scenarios CONFIGURE_DEPENDS "${data}/xpu/*.yaml")
  foreach(file IN LISTS xpu_scenarios)
    get_filename_component(stem "${file}" NAME_WE)
    add_test(NAME scenario.${stem} COMMAND accel-scenario run "${file}")
    set_tests_properties(scenario.${stem} PROPERTIES LABELS scenario TIMEOUT 120
      ENVIRONMENT_MODIFICATION "${scenario_clean_env}")
    # Tagged `sweep`: swept over their Level Zero calls too, as the library's are.
    file(STRINGS "${file}" sweep_tag REGEX "^tags:.*[[ ,]sweep[] ,]")
    if(sweep_tag)
      add_test(NAME scenario_sweep.${stem} COMMAND accel-scenario sweep "${file}")
      set_tests_properties(scenario_sweep.${stem} PROPERTIES LABELS sweep TIMEOUT 600
        ENVIRONMENT_MODIFICATION "${scenario_clean_env}")
    endif()
  endforeach()
  # Faults on Level Zero entry points (docs/SCENARIOS.md, "Fault sweeps"): a code of another
  # API is refused before anything runs; a sweep fails every ze call the steps made except
  # the initialisation (zeInit: Note [Unswept calls] in tools/scenario/sweep_rules.cpp), and
  # the scenario stays clean.
  scenario_runner_test(xpu_fault_code_of_another_api
    "${runner}|run|${data}/malformed/cuda_code_on_ze_entry.yaml" -DEXPECT_EXIT=2
    "-DEXPECT_1=^accel scenario: [^\n]*cuda_code_on_ze_entry\\.yaml:5: steps\\[0\\]\\.fail_call\\.code: expected a non-zero ZE result code \\(name or number\\), got 'CUDA_ERROR_OUT_OF_MEMORY'\n$")
  scenario_runner_test(xpu_sweep_fails_each_ze_call
    "${runner}|sweep|${data}/xpu/xpu_poisoned_child_raises_fork_error.yaml" -DEXPECT_EXIT=0
    "-DEXPECT_1=^SWEEP xpu_poisoned_child_raises_fork_error \\([^\n]*\\): 34 call\\(s\\) swept over 8 entry point\\(s\\): zeContextCreate, zeDeviceGet, zeDeviceGetCommandQueueGroupProperties, zeDeviceGetMemoryProperties, zeDeviceGetModuleProperties, zeDeviceGetProperties, zeDriverGet, zeDriverGetApiVersion; 0 violation\\(s\\)\n1 scenario\\(s\\) swept, 0 violation\\(s\\)\n$"
    "-DREJECT_1=zeInit")
else()
  message(WARNING "accel tests: the Level Zero behaviour scenarios (tests/scenarios/xpu/) "
                  "are NOT registered: they need the mock Level Zero driver and the "
                  "level_zero backend")
endif()
