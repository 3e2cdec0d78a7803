#pragma once
// Reading scenario files (docs/SCENARIOS.md, "The format"). Everything that can be checked
// before running is checked here and reported as ScenarioError with <file>:<line>.

#include <string>
#include <vector>

#include "scenario.h"

namespace accel::scenario {

class StepRegistry;

// Reads one scenario file. With `machine` (--machine), the file's own machine is still
// read and checked, then replaced: the steps are checked against `machine` (a physical
// device index it lacks is an error), and the case is named "name[id]". Throws
// ScenarioError.
Scenario load_scenario(const std::string& path, const StepRegistry& registry,
                       const MachineChoice* machine = nullptr);

// Parses scenario YAML text; `file` names it in errors and `directory` resolves relative
// machine paths. Throws ScenarioError.
Scenario parse_scenario(const std::string& text, const std::string& file,
                        const std::string& directory, const StepRegistry& registry,
                        const MachineChoice* machine = nullptr);

// The scenario files named by the command line: a file as given, a directory searched
// recursively for *.yaml except under any directory named "machines"; sorted, each once.
// Throws ScenarioError (line 0) for a path that does not exist or a directory with none.
std::vector<std::string> collect_scenario_files(const std::vector<std::string>& paths);

// The ErrorKind names an expectation may use, plus "user" (the raise step), "exception"
// (a C++ exception that is not an accel::Error) and "child" (a fork child whose steps failed).
const std::vector<std::string>& error_kind_names();

}  // namespace accel::scenario
