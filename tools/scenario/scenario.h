#pragma once
// A scenario: one behaviour of the runtime on simulated hardware, written as a YAML file
// (docs/SCENARIOS.md): the machine, the environment, named threads, and steps that call
// the public API, script faults and fork, each with what it must produce.
//
// This header is the parsed form. Reading (scenario_file.cpp) checks everything that can
// be checked without running: unknown keys and steps, argument types and values, and
// expectations that a step can never satisfy, each with <file>:<line>. Running
// (executor.cpp) happens in a process of its own. Values only.

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "mockdev/machine.h"

namespace accel::scenario {

// A malformed scenario: what() is "<file>:<line>: <path>: expected <what>, got '<value>'"
// (the machine reader's shape), or "<file>:<line>: <message>". Line 0: an error about the
// file as a whole (missing, not a regular file, too large), whose message names the file
// itself ("scenario file '<path>': ..."), so what() is the message alone.
class ScenarioError : public std::runtime_error {
 public:
  ScenarioError(std::string file, int line, const std::string& message)
      : std::runtime_error(line > 0 ? file + ":" + std::to_string(line) + ": " + message : message),
        file_(std::move(file)),
        line_(line) {}
  const std::string& file() const noexcept { return file_; }
  int line() const noexcept { return line_; }

 private:
  std::string file_;
  int line_;
};

class StepEnv;
struct Step;

// What a step produced: a value (null when the step returns nothing) or an error.
struct Outcome {
  nlohmann::json value;          // null for steps without a result
  std::optional<std::string> error_kind;  // accel::ErrorKind name, "user" or "exception"
  std::string error_message;
  bool ok() const { return !error_kind; }
};

// The body of one step: runs on its thread, returns the value or throws.
using Action = std::function<nlohmann::json(StepEnv&)>;

// What a step must produce; every field is optional.
struct Expectation {
  std::optional<nlohmann::json> value;     // equal (objects: the keys given must match)
  std::optional<std::string> error_kind;   // the step must fail with this kind
  std::optional<std::string> message;      // ... and a message containing this fragment
  std::map<std::string, std::uint64_t> calls;  // driver call counters after the step
  std::map<std::string, std::uint64_t> live;   // live driver objects after the step
  std::map<int, std::uint64_t> used_bytes;     // device memory in use after the step
  std::optional<std::uint64_t> races;          // races found since the run started
};

struct Step {
  std::string kind;    // the registered step name ("set_device_index")
  std::string file;    // where it was written, for reports
  int line = 0;
  std::string thread = "main";
  std::string shown;   // the step as written, one line ("set_device_index: cuda:1")
  Action action;
  Expectation expect;
  bool has_expectation = false;
};

// A machine named on the command line (`--machine 4xh100,2xmax1550`): each scenario runs
// once on each, as a case of its own named "name[id]".
struct MachineChoice {
  std::string id;   // in case names: the preset as typed, or a machine file's stem
  std::string env;  // MOCKDEV_MACHINE for the run: the preset, or the file's path
  mockdev::MachineSpec spec;
};

struct Scenario {
  std::string name;         // `name:`, else the file's stem; a --machine case: "name[machine]"
  std::string base_name;    // `name:`, else the file's stem, whatever the case
  std::string machine_id;   // the --machine this case runs on ("" when its own machine)
  std::string file;         // as given on the command line
  std::string description;  // `description:`
  std::vector<std::string> tags;
  mockdev::MachineSpec machine;
  std::string machine_env;  // MOCKDEV_MACHINE for the run ("" for an inline machine)
  // Variables to set (value) or unset (nullopt) before the runtime is first used.
  std::map<std::string, std::optional<std::string>> environment;
  std::vector<std::string> threads;  // "main" first
  int timeout_seconds = 30;
  // `invariants: memory_stats`: checked after every step (tools/scenario/memory_steps.h).
  std::vector<std::string> invariants;
  // `skip: REASON`: not run, reported as skipped. `xfail: REASON`: expected to fail; a
  // failure is reported as xfailed, a pass as an error (XPASS, pytest's strict xfail).
  std::optional<std::string> skip;
  std::optional<std::string> xfail;
  std::vector<Step> steps;
};

}  // namespace accel::scenario
