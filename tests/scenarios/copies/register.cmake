# The copy steps' tests (tools/scenario/steps_copies.cpp; docs/SCENARIOS.md, "Copies and
# fills"), included by tests/tools/scenario/CMakeLists.txt, whose helpers (runner,
# scenario_runner_test, scenario_clean_env) they use.

# A step never reaches outside its buffers; the runtime's own refusals are the API's.
scenario_runner_test(copy_steps_stay_inside_their_buffers
  "${runner}|run|${data}/copies/buffer_overrun_is_refused.yaml"
  -DEXPECT_EXIT=0 "-DEXPECT_1=^PASS buffer_overrun_is_refused ")

# Their Level Zero twins (xpu_*) are registered with the other xpu behaviours
# (tests/scenarios/xpu/register.cmake).
