#include "command_line.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <sstream>
#include <string_view>
#include <vector>

#include "accel/version.h"
#include "accel_common/environment_variables.h"
#include "accel_common/numbers.h"

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
  std::sort(shown.begin(), shown.end(), [](const auto* a, const auto* b) {
    return a->help_line < b->help_line;
  });
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

}  // namespace

ParseOutcome parse_command_line(const std::vector<std::string>& args) {
  CommandLine line;
  CLI::App app{"accel: the accelerator runtime's command-line tool", "accel"};
  app.set_version_flag("-V,--version", std::string("accel ") + kVersionString);
  app.footer(environment_block() + "\n" + kExitStatusText);
  app.require_subcommand(1);

  CLI::App* info = app.add_subcommand(
      "info", "show the build, the environment, the backend, the driver files in use and a "
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

  CLI::App* machines =
      app.add_subcommand("machines", "list the preset simulated machines (mockdev)");
  once(machines->add_option("--show", line.show,
                            "print the preset's machine file, a starting point for your own"))
      ->type_name("NAME");

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
  app.add_subcommand("replay", "replay a memory trace against the caching allocator on a "
                               "simulated device (accel replay --help)");
  if (!args.empty() && args[0] == "replay") {
    line.command = Command::kReplay;
    line.replay_args.assign(args.begin() + 1, args.end());
    outcome.line = line;
    return outcome;
  }
  std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11's order
  if (!args.empty() && !args[0].starts_with("-") && args[0] != "info" &&
      args[0] != "machines") {
    outcome.exit_status = kExitUsage;
    outcome.error = fmt::format(
        "accel: unknown command '{}' (commands: info, machines, replay, scenario)\nRun 'accel --help' for "
        "usage.\n",
        args[0]);
    return outcome;
  }
  try {
    app.parse(reversed);
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
    std::string message = e.what();
    if (const std::size_t at = message.find(": At Most 1 required but received");
        at != std::string::npos) {
      message = message.substr(0, at) + " given more than once";
    }
    if (e.get_name() == "RequiredError" && !info->parsed() && !machines->parsed()) {
      message = "no command given (info or machines)";
    }
    outcome.exit_status = kExitUsage;
    outcome.error = fmt::format("accel: {}\nRun '{} --help' for usage.\n", message, scope);
    return outcome;
  }
  line.command = machines->parsed() ? Command::kMachines : Command::kInfo;
  outcome.line = line;
  return outcome;
}

}  // namespace accel::tools
