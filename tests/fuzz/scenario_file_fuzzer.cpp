// Fuzzer: the scenario reader (accel::scenario::parse_scenario) on whole files, through the
// bounded YAML loader (Note [Bounded YAML]) and every step's argument parser. Any input
// must either parse or raise ScenarioError "fuzz.yaml:<line>: ..." with a line of at least
// 1 and no control character (an error is one line); anything else escaping (a yaml-cpp
// exception, std::bad_alloc, a crash, a hang, memory beyond libFuzzer's limit) is a
// finding. A parsed scenario must parse again from the same text to the same steps.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "accel_common/printable.h"
#include "scenario_file.h"
#include "step_registry.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using accel::scenario::ScenarioError;
  using accel::scenario::StepRegistry;
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const auto scenario = accel::scenario::parse_scenario(
        text, "fuzz.yaml", ACCEL_FUZZ_SCENARIO_DIR, StepRegistry::global());
    const auto again = accel::scenario::parse_scenario(text, "fuzz.yaml", ACCEL_FUZZ_SCENARIO_DIR,
                                                       StepRegistry::global());
    if (again.steps.size() != scenario.steps.size() || again.name != scenario.name) std::abort();
  } catch (const ScenarioError& e) {
    const std::string what = e.what();
    if (what.rfind("fuzz.yaml:", 0) != 0 || e.line() < 1) {
      std::fprintf(stderr, "ScenarioError without fuzz.yaml:<line>: %s\n", what.c_str());
      std::abort();
    }
    if (accel::common::find_control_character(what) != std::string::npos) {
      std::fprintf(stderr, "ScenarioError with a control character: %s\n",
                   accel::common::printable(what).c_str());
      std::abort();
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "parse_scenario let a non-ScenarioError escape: %s\n", e.what());
    std::abort();
  }
  return 0;
}
