# Behaviours on Level Zero machines (2xmax1550): selection under the FLAT and COMPOSITE
# hierarchies, ZE_AFFINITY_MASK, guards, the caching allocator's statistics, and the copy
# behaviours' twins (scenarios/behaviours/*copy*) on xpu.
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
  endforeach()
else()
  message(WARNING "accel tests: the Level Zero behaviour scenarios (tests/scenarios/xpu/) "
                  "are NOT registered: they need the mock Level Zero driver and the "
                  "level_zero backend")
endif()
