#include "command_line.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <sstream>

#include "accel/version.h"
#include "accel_common/numbers.h"

namespace accel::tools {
namespace {

constexpr int kExitUsage = 2;
// The most devices --expect-devices can ask for (the runtime's DeviceIndex range is far
// smaller; a larger number is a typo).
constexpr std::uint64_t kMaxExpectedDevices = 4096;

constexpr const char* kFooter = R"(environment:
  ACCEL_BACKEND          compiled backend to use ("cuda", "xpu"), or "none" for no
                         accelerator; unset: the first compiled backend that sees a device
  ACCEL_CUDA_DRIVER      CUDA driver file to load (default libcuda.so.1)
  ACCEL_NVML_LIBRARY     NVML file to load (default libnvidia-ml.so.1)
  MOCKDEV_MACHINE        simulated machine (file or preset) when the mock driver is loaded
  ACCEL_MOCKDEV_DIR      directory holding the mock driver files used by --machine
  CUDA_VISIBLE_DEVICES   which devices the CUDA driver exposes
  ZE_AFFINITY_MASK       which devices the Level Zero driver exposes
  ZE_ENABLE_ALT_DRIVERS  Level Zero driver files the loader loads (--machine sets it)

exit status: 0 success (also when no accelerator is available: CPU fallback),
             1 a runtime error, or fewer devices than --expect-devices,
             2 a usage error or a configuration error (a bad variable or machine file).)";

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
  app.footer(kFooter);
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
