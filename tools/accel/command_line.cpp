#include "command_line.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <sstream>
#include <string_view>
#include <vector>

#include "accel/version.h"
#include "accel_common/environment_variables.h"
#include "accel_common/numbers.h"
#include "query.h"

namespace accel::tools {
namespace {

constexpr int kExitUsage = 2;
// The most devices --expect-devices can ask for (the runtime's DeviceIndex range is far
// smaller; a larger number is a typo).
constexpr std::uint64_t kMaxExpectedDevices = 4096;

// The help's width: a variable's meaning wraps onto lines of at most this many columns.
constexpr std::size_t kFooterWidth = 90;

constexpr const char* kExitStatusText =
    R"(exit status: 0 success (also when no accelerator is available: CPU fallback),
             1 a runtime error, or fewer devices than --expect-devices,
             2 a usage error or a configuration error (a bad variable or machine file).)";

// `accel run`'s exit statuses (Note [The exit status of accel run] in run_program.cpp).
constexpr const char* kRunFooter =
    R"(accel run sets, for PROGRAM only: LD_LIBRARY_PATH (the simulated drivers' directory
first, so libcuda.so.1, libnvidia-ml.so.1 and libcudart.so.13 load from it, then the
entries you had), ACCEL_CUDA_DRIVER, ACCEL_NVML_LIBRARY, ZE_ENABLE_ALT_DRIVERS (where the
mock Level Zero driver is built), MOCKDEV_MACHINE, and MOCKDEV_SCHEDULE, MOCKDEV_SEED,
MOCKDEV_RACES, MOCKDEV_LEAKS, MOCKDEV_TRACE for the options given. The machine is loaded
once before PROGRAM starts, so a machine file with an error is reported by accel, not by
PROGRAM.

exit status: PROGRAM's own, once it has started; this includes the simulation's verdict:
             under --races fail, a program that had data races exits 86 (mockdev's
             race-failure status), under --leaks fail one that left driver objects
             live exits 87, and a program killed by a signal ends by that signal,
               2 a usage error (an unknown option, a bad value, no `--` or no PROGRAM),
             125 a configuration error: an unknown machine, a machine file the simulated
                 driver cannot load, no simulated drivers in this install,
             127 PROGRAM cannot be found or run.)";

// The `environment:` block: the rows of accel_common/environment_variables.def with a HELP
// line, in that order, each meaning wrapped word by word under its first line.
std::string environment_block() {
  std::vector<const common::EnvironmentVariable*> shown;
  std::size_t name_width = 0;
  for (const common::EnvironmentVariable& variable : common::kEnvironmentVariables) {
    if (variable.help_line == 0) continue;
    shown.push_back(&variable);
    name_width = std::max(name_width, variable.name.size());
  }
  std::sort(shown.begin(), shown.end(),
            [](const auto* a, const auto* b) { return a->help_line < b->help_line; });
  const std::size_t indent = 2 + name_width + 2;
  std::string out = "environment:\n";
  for (const common::EnvironmentVariable* variable : shown) {
    std::string line = fmt::format("  {:<{}}", variable->name, name_width + 2);
    bool at_line_start = true;  // no word on `line` yet
    std::string_view rest = variable->meaning;
    while (!rest.empty()) {
      const std::size_t space = rest.find(' ');
      const std::string_view word = rest.substr(0, space);
      rest = space == std::string_view::npos ? std::string_view() : rest.substr(space + 1);
      if (!at_line_start && line.size() + 1 + word.size() > kFooterWidth) {
        out += line + "\n";
        line = std::string(indent, ' ');
        at_line_start = true;
      }
      if (!at_line_start) line += ' ';
      line += word;
      at_line_start = false;
    }
    out += line + "\n";
  }
  return out;
}

// Every option and flag: given twice is an error, not "the last one wins".
template <class Option>
Option* once(Option* option) {
  option->multi_option_policy(CLI::MultiOptionPolicy::Throw);
  return option;
}

// A value that must be one of `choices`, said as mockdev says it for the variable.
CLI::Validator one_of(std::vector<std::string> choices) {
  return CLI::Validator(
      [choices](std::string& text) -> std::string {
        if (std::find(choices.begin(), choices.end(), text) != choices.end()) return "";
        return fmt::format("expected {}, got '{}'", fmt::join(choices, ", "), text);
      },
      "");
}

}  // namespace

ParseOutcome parse_command_line(const std::vector<std::string>& args) {
  CommandLine line;
  CLI::App app{"accel: the accelerator runtime's command-line tool", "accel"};
  app.set_version_flag("-V,--version", std::string("accel ") + kVersionString);
  app.footer(environment_block() + "\n" + kExitStatusText);
  app.require_subcommand(1);

  CLI::App* info = app.add_subcommand(
      "info",
      "show the build, the environment, the backend, the driver files in use and a "
      "table of the visible devices");
  CLI::Option* json = once(info->add_flag("--json", line.json, "print the same facts as JSON"));
  once(info->add_flag("--count", line.count, "print only the number of visible devices"))
      ->excludes(json);
  once(info->add_option("--machine", line.machine,
                        "run on the simulated hardware (mockdev) described by a machine file "
                        "or a preset (see `accel machines`)"))
      ->type_name("FILE|PRESET");
  once(info->add_option("--backend", line.backend,
                        "the accelerator to report on as the selected one (sets "
                        "ACCEL_BACKEND); every compiled backend is listed either way"))
      ->type_name("cuda|xpu|none");
  once(info->add_flag("--selected-only", line.selected_only,
                      "list the devices of the selected backend only (other backends' "
                      "devices are listed by a child accel process each)"));
  CLI::Option* query =
      once(info->add_option("--query", line.query,
                            fmt::format("print only these facts of each device, one line per "
                                        "device (as nvidia-smi --query-gpu); fields: {}",
                                        fmt::join(query_field_names(), ", "))))
          ->type_name("FIELD,...")
          ->excludes(json)
          ->check(CLI::Validator(
              [](std::string& text) -> std::string {
                try {
                  (void)parse_query_fields(text);
                  return "";
                } catch (const QueryError& e) {
                  return e.what();
                }
              },
              ""));
  info->get_option("--count")->excludes(query);
  once(info->add_option("--format", line.format,
                        "the --query output: csv (nvidia-smi's: \", \" between values, a "
                        "header line) or text (aligned columns), optionally followed by "
                        ",noheader and ,nounits (default: csv)"))
      ->type_name("csv|text")
      ->needs(query)
      ->check(CLI::Validator(
          [](std::string& text) -> std::string {
            try {
              (void)parse_query_format(text);
              return "";
            } catch (const QueryError& e) {
              return e.what();
            }
          },
          ""));
  once(info->add_option("--expect-devices", line.expect_devices,
                        "exit 1 when fewer than N devices are visible"))
      ->type_name("N")
      ->check(CLI::Validator(
          [](std::string& text) -> std::string {
            // Read strictly and said in the user's terms (CLI11's own range check accepts
            // "4.0" and calls "abc" out of range).
            const auto count = common::parse_unsigned_decimal(text);
            if (count && *count <= kMaxExpectedDevices) return "";
            return fmt::format("expected a whole number of devices from 0 to {}, got '{}'",
                               kMaxExpectedDevices, text);
          },
          "N"));

  CLI::App* topo = app.add_subcommand(
      "topo",
      "show which devices can access each other's memory, as the driver answers (as "
      "nvidia-smi topo -p2p r)");
  once(topo->add_option("--machine", line.machine,
                        "run on the simulated hardware (mockdev) described by a machine file "
                        "or a preset (see `accel machines`)"))
      ->type_name("FILE|PRESET");
  once(topo->add_option("--backend", line.backend,
                        "the accelerator whose devices are shown (sets ACCEL_BACKEND)"))
      ->type_name("cuda|xpu|none");

  CLI::App* machines =
      app.add_subcommand("machines", "list the preset simulated machines (mockdev)");
  once(machines->add_option("--show", line.show,
                            "print the preset's machine file, a starting point for your own"))
      ->type_name("NAME");

  // `accel run [options] -- PROGRAM [ARGS...]`: CLI11 parses the words before the first
  // `--`; the words after it are the program's.
  CLI::App* run = app.add_subcommand(
      "run",
      "run any program on the simulated hardware (mockdev): accel run --machine 8xh100 "
      "-- ./app args");
  run->footer(kRunFooter);
  once(run->add_option("--machine", line.machine,
                       "the simulated machine: a machine file or a preset (see `accel "
                       "machines`)"))
      ->type_name("FILE|PRESET")
      ->required();
  once(run->add_option("--schedule", line.schedule,
                       "the order simulated streams run in (MOCKDEV_SCHEDULE; default: the "
                       "machine file's, else eager)"))
      ->type_name("eager|random|adversarial")
      ->check(one_of({"eager", "random", "adversarial"}));
  once(run->add_option("--seed", line.seed,
                       "the seed of the random schedule (MOCKDEV_SEED; default: the machine "
                       "file's)"))
      ->type_name("N")
      ->check(CLI::Validator(
          [](std::string& text) -> std::string {
            if (common::parse_unsigned_decimal(text)) return "";
            return fmt::format(
                "expected a whole number from 0 to 18446744073709551615, got "
                "'{}'",
                text);
          },
          "N"));
  once(run->add_option("--races", line.races,
                       "what a detected data race does (MOCKDEV_RACES; default: the machine "
                       "file's, else report)"))
      ->type_name("off|report|fail|abort")
      ->check(one_of({"off", "report", "fail", "abort"}));
  once(run->add_option("--leaks", line.leaks,
                       "list the driver objects live at exit; fail: and exit 87 if any "
                       "(MOCKDEV_LEAKS; default: off)"))
      ->type_name("off|report|fail")
      ->check(one_of({"off", "report", "fail"}));
  once(run->add_option("--trace", line.trace,
                       "write the simulated timeline to FILE (Chrome trace-event JSON; "
                       "MOCKDEV_TRACE)"))
      ->type_name("FILE");

  // `accel scenario ...` belongs to the scenario runner, which parses its own arguments.
  app.add_subcommand("scenario",
                     "run scenario files on the simulated hardware (accel scenario --help)");
  ParseOutcome outcome;
  if (!args.empty() && args[0] == "scenario") {
    line.command = Command::kScenario;
    line.scenario_args.assign(args.begin() + 1, args.end());
    outcome.line = line;
    return outcome;
  }
  // `accel replay ...` likewise belongs to the trace replayer.
  app.add_subcommand("replay",
                     "replay a memory trace against the caching allocator on a "
                     "simulated device (accel replay --help)");
  if (!args.empty() && args[0] == "replay") {
    line.command = Command::kReplay;
    line.replay_args.assign(args.begin() + 1, args.end());
    outcome.line = line;
    return outcome;
  }
  // `accel memory-summary ...` too: the replayer reads snapshots (its --memory-summary mode).
  app.add_subcommand("memory-summary",
                     "PyTorch's memory_summary() table for a dumped memory snapshot "
                     "(accel memory-summary --help)");
  if (!args.empty() && args[0] == "memory-summary") {
    line.command = Command::kReplay;
    line.replay_args = {"--memory-summary"};
    line.replay_args.insert(line.replay_args.end(), args.begin() + 1, args.end());
    outcome.line = line;
    return outcome;
  }
  // run: the program is what follows the first `--`, unparsed.
  std::vector<std::string> options = args;
  std::optional<std::vector<std::string>> program;
  if (!args.empty() && args[0] == "run") {
    if (const auto end = std::find(args.begin(), args.end(), "--"); end != args.end()) {
      options.assign(args.begin(), end);
      program.emplace(end + 1, args.end());
    }
  }
  std::vector<std::string> reversed(options.rbegin(), options.rend());  // CLI11's order
  if (!args.empty() && !args[0].starts_with("-") && args[0] != "info" && args[0] != "machines" &&
      args[0] != "run" && args[0] != "topo") {
    outcome.exit_status = kExitUsage;
    outcome.error = fmt::format(
        "accel: unknown command '{}' (commands: info, machines, memory-summary, replay, run, scenario, topo)\nRun "
        "'accel --help' for usage.\n",
        args[0]);
    return outcome;
  }
  try {
    app.parse(reversed);
    if (run->parsed()) {
      if (!program) {
        throw CLI::ValidationError(
            "no '--' before the program (accel run --machine FILE|PRESET [OPTIONS] -- PROGRAM "
            "[ARGS...])");
      }
      if (program->empty()) throw CLI::ValidationError("no program after '--'");
      line.program = std::move(*program);
    }
  } catch (const CLI::ParseError& e) {
    std::ostringstream out;
    std::ostringstream err;
    const int status = app.exit(e, out, err);
    if (status == 0) {  // --help, --version
      outcome.output = out.str();
      return outcome;
    }
    // One line and a hint, not the whole help. Name the subcommand whose help applies.
    std::string scope = "accel";
    if (info->parsed()) scope = "accel info";
    if (machines->parsed()) scope = "accel machines";
    if (run->parsed()) scope = "accel run";
    if (topo->parsed()) scope = "accel topo";
    std::string message = e.what();
    if (const std::size_t at = message.find(": At Most 1 required but received");
        at != std::string::npos) {
      message = message.substr(0, at) + " given more than once";
    }
    if (!args.empty() && args[0] == "run" && !program &&
        message.starts_with("The following argument")) {
      // CLI11: "The following argument(s) was/were not expected: WORD [WORD...]".
      const std::size_t colon = message.find(": ");
      message = fmt::format(
          "no '--' before the program '{}' (accel run --machine FILE|PRESET [OPTIONS] -- "
          "PROGRAM [ARGS...])",
          colon == std::string::npos ? message : message.substr(colon + 2));
    }
    if (e.get_name() == "RequiredError" && !info->parsed() && !machines->parsed() &&
        !run->parsed() && !topo->parsed()) {
      message = "no command given (info or machines)";
    }
    outcome.exit_status = kExitUsage;
    outcome.error = fmt::format("accel: {}\nRun '{} --help' for usage.\n", message, scope);
    return outcome;
  }
  line.command = machines->parsed() ? Command::kMachines
                 : run->parsed()    ? Command::kRun
                 : topo->parsed()   ? Command::kTopo
                                    : Command::kInfo;
  outcome.line = line;
  return outcome;
}

}  // namespace accel::tools
