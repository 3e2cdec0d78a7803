#pragma once
// The `accel` tool's command line: what the user asked for, parsed from argv with CLI11.
//
// Grammar:
//   accel info [--json | --count | --query FIELD,... [--format csv|text[,noheader][,nounits]]]
//              [--machine FILE|PRESET] [--backend NAME] [--selected-only] [--expect-devices N]
//   accel topo [--machine FILE|PRESET] [--backend NAME]
//   accel machines [--show NAME]
//   accel scenario ARGS...   (handed to the scenario runner, accel-scenario)
//   accel replay ARGS...     (handed to the trace replayer, accel-replay)
//   accel run --machine FILE|PRESET [--schedule eager|random|adversarial] [--seed N]
//             [--races off|report|fail|abort] [--leaks off|report|fail] [--trace FILE]
//             -- PROGRAM [ARGS...]
//   accel --help | -h        accel info --help, accel machines --help, accel run --help
//   accel --version | -V
// For `run`, the first `--` ends accel's options: every word after it is the program and
// its arguments, unparsed. `--machine=VALUE` is accepted too; an option given twice is a usage
// error. Parsing is pure: it reads argv only and never touches the environment or the runtime.
// Values only; thread-safe.

#include <optional>
#include <string>
#include <vector>

namespace accel::tools {

enum class Command { kInfo, kMachines, kScenario, kReplay, kRun, kTopo };

struct CommandLine {
  Command command = Command::kInfo;
  bool json = false;                       // info --json
  bool count = false;                      // info --count: the number of devices only
  std::optional<std::string> machine;      // info, topo, run --machine FILE|PRESET
  std::optional<std::string> backend;      // info, topo --backend NAME (checked when it runs)
  std::optional<std::string> query;        // info --query FIELD,... (checked: query.h)
  std::optional<std::string> format;       // info --format (checked; only with --query)
  bool selected_only = false;              // info --selected-only: no child per other backend
  std::optional<int> expect_devices;       // info --expect-devices N
  std::optional<std::string> show;         // machines --show NAME
  std::vector<std::string> scenario_args;  // scenario: every word after it, unparsed
  std::vector<std::string> replay_args;    // replay: every word after it, unparsed
                                           // (memory-summary: --memory-summary and them)
  // run: the simulation's settings (checked here: only the values mockdev accepts) and
  // the program with its arguments (never empty).
  std::optional<std::string> schedule;  // eager | random | adversarial
  std::optional<std::string> seed;      // an unsigned decimal number below 2^64
  std::optional<std::string> races;     // off | report | fail | abort
  std::optional<std::string> leaks;     // off | report | fail
  std::optional<std::string> trace;     // the trace file
  std::vector<std::string> program;     // PROGRAM [ARGS...]
};

// What parsing decided: run `line`, or print `output` / `error` and exit with
// `exit_status` (help and version: stdout and 0; a usage error: one line and a hint on
// stderr, and 2).
struct ParseOutcome {
  std::optional<CommandLine> line;
  int exit_status = 0;
  std::string output;  // for stdout
  std::string error;   // for stderr
};

// Parses the words after the program name.
ParseOutcome parse_command_line(const std::vector<std::string>& args);

}  // namespace accel::tools
