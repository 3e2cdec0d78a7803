// accel-scenario: reads, runs and sweeps scenario files (docs/SCENARIOS.md). Users reach it
// as `accel scenario ...`: the `accel` tool execs this program, which links the simulated
// hardware's control API, so that `accel` itself never does
// (docs/decisions/088-scenarios-run-by-separate-program.md).
//
//   accel-scenario run FILE|DIR... [--junit FILE] [--seed N] [--shard I/N] [--timeout S]
//                                  [--tag TAG] [--name PATTERN] [-k EXPR] [--machine M,...]
//                                  [--list]
//   accel-scenario sweep FILE|DIR... [the same options]
//   accel-scenario check FILE|DIR...
//   accel-scenario steps
//
// Exit status: 0 all passed, 1 a scenario failed (or a sweep found a violation), 2 a usage
// error (an option value out of range, a selection that matches nothing, a setting that
// cannot work: preflight.h), a malformed scenario file, or no simulated hardware in this
// install. Numbers are read here as text and checked by command_options.h, so that a bad
// value is named in the user's terms (CLI11 would wrap `--seed -1` to 2^64 - 1).
#include <CLI/CLI.hpp>
#include <cstdlib>
#include <iostream>

#include "command_options.h"
#include "keyword_expression.h"
#include "mock_machine.h"
#include "runner.h"
#include "step_registry.h"

namespace {

using namespace accel::scenario;

// Points the runtime at the mock driver files (the scenario's own environment may still
// name others). The runner itself never calls the runtime.
bool select_mock_driver() {
  try {
    const accel::tools::MockSelection s =
        accel::tools::mock_selection(accel::tools::mock_facade_directory(), "");
    setenv("ACCEL_CUDA_DRIVER", s.driver_path.c_str(), 1);
    setenv("ACCEL_NVML_LIBRARY", s.nvml_path.c_str(), 1);
    // The simulated hardware as the runtime's tool (decision 217), as `accel run` does: a
    // scenario's races and trace name the runtime's streams and the steps' call sites, and
    // the trace has the caching allocator's counters. The driver file loads libmockdev,
    // the same instance this runner links.
    setenv("ACCEL_TOOL_LIBRARY", s.driver_path.c_str(), 1);
    // A scenario's machine is the whole machine, Intel devices included: as `accel
    // --machine` does, the real Level Zero loader is pointed at the mock driver (absent
    // from a build without the Level Zero headers, where xpu machines show no device).
    if (!s.level_zero_driver_path.empty()) {
      setenv("ZE_ENABLE_ALT_DRIVERS", s.level_zero_driver_path.c_str(), 1);
    }
    return true;
  } catch (const std::exception& e) {
    std::cerr << "accel scenario: " << e.what() << "\n";
    return false;
  }
}

void list_steps(std::ostream& out) {
  for (const auto& [name, kind] : StepRegistry::global().kinds()) {
    out << name << (kind.returns_value ? " -> value" : "") << "\n    " << kind.usage << "\n";
  }
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"accel scenario: run scenario files on the simulated hardware", "accel scenario"};
  app.require_subcommand(1);
  std::vector<std::string> paths;
  RunnerOptions options;
  std::optional<std::string> junit, tag, name, seed_text, timeout_text, shard_text, keyword,
      machine_text;
  bool list = false;

  auto add_common = [&](CLI::App* cmd, bool with_seed) {
    cmd->add_option("paths", paths, "scenario files, or directories searched for *.yaml "
                                    "(machines/ excluded)")
        ->required()
        ->type_name("FILE|DIR");
    cmd->add_option("--junit", junit, "write JUnit XML here")->type_name("FILE");
    cmd->add_option("--tag", tag, "only the scenarios with this tag")->type_name("TAG");
    cmd->add_option("--name", name, "only the scenarios whose name matches (glob: * ? [...])")
        ->type_name("PATTERN");
    cmd->add_option("-k", keyword,
                    "only the cases this expression matches: names (substrings of the case "
                    "id, or tags) with and, or, not and parentheses, as pytest's -k")
        ->type_name("EXPR");
    cmd->add_option("--machine", machine_text,
                    "run each scenario on each of these machines (presets or machine files, "
                    "comma-separated), as cases named name[machine]")
        ->type_name("M[,M...]");
    cmd->add_flag("--list", list, "print the selected cases and run nothing");
    cmd->add_option("--timeout", timeout_text,
                    "seconds per scenario run (1 to 3600), overriding `timeout:`")
        ->type_name("S");
    cmd->add_option("--shard", shard_text, "run shard I of N (0-based), every Nth scenario")
        ->type_name("I/N");
    if (with_seed) {
      cmd->add_option("--seed", seed_text,
                      "the run seed, 0 to 2^64 - 1 (the `run_seed` of seed steps)")
          ->type_name("N");
    }
  };
  CLI::App* run = app.add_subcommand("run", "run scenarios, each in a process of its own");
  add_common(run, true);
  CLI::App* sweep =
      app.add_subcommand("sweep", "run each scenario once per driver call it makes, failing it");
  add_common(sweep, true);
  CLI::App* check = app.add_subcommand("check", "read and check scenario files, run nothing");
  check->add_option("paths", paths, "scenario files or directories")->required();
  app.add_subcommand("steps", "list the step vocabulary");

  if (argc > 1 && argv[1][0] != '-') {
    const std::string command = argv[1];
    if (command != "run" && command != "sweep" && command != "check" && command != "steps") {
      std::cerr << "accel scenario: unknown command '" << command
                << "' (commands: run, sweep, check, steps)\nRun 'accel scenario --help' for "
                   "usage.\n";
      return 2;
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help
    // One line and a hint, exit 2, as `accel` does for its own usage errors.
    std::cerr << "accel scenario: " << e.what() << "\nRun 'accel scenario --help' for usage.\n";
    return 2;
  }
  options.junit = junit;
  options.selection.tag = tag;
  options.selection.name = name;
  options.list = list;
  if (keyword) {
    try {
      options.selection.keyword = KeywordExpression::parse(*keyword);
    } catch (const KeywordError& e) {
      std::cerr << "accel scenario: " << e.what() << "\nRun 'accel scenario --help' for usage.\n";
      return 2;
    }
  }
  try {
    if (seed_text) options.seed = parse_seed(*seed_text);
    if (timeout_text) options.timeout_seconds = parse_timeout(*timeout_text);
    if (shard_text) options.selection.shard = parse_shard(*shard_text);
    if (machine_text) options.machines = parse_machines(*machine_text);
  } catch (const OptionError& e) {
    std::cerr << "accel scenario: " << e.what() << "\nRun 'accel scenario --help' for usage.\n";
    return 2;
  }
  if (app.got_subcommand("steps")) {
    list_steps(std::cout);
    return 0;
  }
  if (app.got_subcommand("check")) return check_scenarios(paths, std::cout, std::cerr);
  if (list) {  // nothing runs: no driver needed
    return app.got_subcommand("sweep") ? sweep_scenarios(paths, options, std::cout, std::cerr)
                                       : run_scenarios(paths, options, std::cout, std::cerr);
  }
  if (!select_mock_driver()) return 2;
  if (app.got_subcommand("sweep")) return sweep_scenarios(paths, options, std::cout, std::cerr);
  return run_scenarios(paths, options, std::cout, std::cerr);
}
