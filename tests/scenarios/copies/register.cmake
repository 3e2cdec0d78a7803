# The copy steps' tests (tools/scenario/steps_copies.cpp; docs/SCENARIOS.md, "Copies and
# fills"), included by tests/tools/scenario/CMakeLists.txt, whose helpers (runner,
# scenario_runner_test, scenario_clean_env) they use.

# A step never reaches outside its buffers; the runtime's own refusals are the API's.
scenario_runner_test(copy_steps_stay_inside_their_buffers
  "${runner}|run|${data}/copies/buffer_overrun_is_refused.yaml"
  -DEXPECT_EXIT=0 "-DEXPECT_1=^PASS buffer_overrun_is_refused ")

# The Level Zero twins of the copy behaviours (scenarios/behaviours/*copy*), on 2xmax1550.
# The runner points the Level Zero loader at the mock driver itself (ZE_ENABLE_ALT_DRIVERS,
# as `accel --machine` does), so the environment here is only the cleared one; they are
# registered only where that driver and the xpu backend are built.
if(TARGET mockdev_level_zero AND "level_zero" IN_LIST ACCEL_BACKENDS)
  file(GLOB copies_xpu_scenarios CONFIGURE_DEPENDS "${data}/copies/xpu_*.yaml")
  foreach(file IN LISTS copies_xpu_scenarios)
    get_filename_component(stem "${file}" NAME_WE)
    add_test(NAME scenario.${stem} COMMAND accel-scenario run "${file}")
    set_tests_properties(scenario.${stem} PROPERTIES LABELS scenario TIMEOUT 120
      ENVIRONMENT_MODIFICATION "${scenario_clean_env}")
  endforeach()
else()
  message(WARNING "accel tests: the Level Zero copy scenarios (tests/scenarios/copies/xpu_*) "
                  "are NOT registered: they need the mock Level Zero driver and the "
                  "level_zero backend")
endif()
