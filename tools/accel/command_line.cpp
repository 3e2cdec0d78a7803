#include "command_line.h"

namespace accel::tools {
namespace {

constexpr std::string_view kMachineFlag = "--machine";

// Options that only `info` accepts.
void parse_info_options(const std::vector<std::string_view>& args, std::size_t first,
                        CommandLine& line) {
  for (std::size_t i = first; i < args.size(); ++i) {
    const std::string_view arg = args[i];
    if (arg == "--json") {
      line.json = true;
    } else if (arg == kMachineFlag) {
      if (i + 1 >= args.size() || args[i + 1].empty()) {
        throw UsageError("accel: --machine needs a value (a machine file or a preset name)");
      }
      line.machine = std::string(args[++i]);
    } else if (arg.starts_with("--machine=")) {
      const std::string_view value = arg.substr(kMachineFlag.size() + 1);
      if (value.empty()) {
        throw UsageError("accel: --machine needs a value (a machine file or a preset name)");
      }
      line.machine = std::string(value);
    } else {
      throw UsageError("accel: unknown option for 'info': '" + std::string(arg) + "'");
    }
  }
}

void expect_no_more(const std::vector<std::string_view>& args, std::size_t first,
                    std::string_view command) {
  if (first < args.size()) {
    throw UsageError("accel: unexpected argument for '" + std::string(command) + "': '" +
                     std::string(args[first]) + "'");
  }
}

}  // namespace

CommandLine parse_command_line(const std::vector<std::string_view>& args) {
  if (args.empty()) throw UsageError("accel: no command given");
  CommandLine line;
  const std::string_view first = args[0];
  if (first == "info") {
    line.command = Command::kInfo;
    parse_info_options(args, 1, line);
  } else if (first == "machines") {
    line.command = Command::kMachines;
    expect_no_more(args, 1, first);
  } else if (first == "--help" || first == "-h" || first == "help") {
    line.command = Command::kHelp;
    expect_no_more(args, 1, first);
  } else if (first == "--version") {
    line.command = Command::kVersion;
    expect_no_more(args, 1, first);
  } else if (first.starts_with("-")) {
    throw UsageError("accel: unknown option '" + std::string(first) + "'");
  } else {
    throw UsageError("accel: unknown command '" + std::string(first) + "'");
  }
  return line;
}

std::string usage_text() {
  return R"(usage: accel <command> [options]

commands:
  info [--json] [--machine FILE|PRESET]
                 show the accelerator backend, the driver and NVML files in use, and a
                 table of the visible devices; --json prints the same as JSON.
                 --machine runs on the simulated hardware (mockdev) described by a
                 machine file or a built-in preset (see `accel machines`).
  machines       list the built-in simulated machines
  --help         show this text
  --version      show the version

environment:
  ACCEL_BACKEND        compiled backend to use, or "none" for no accelerator
  ACCEL_CUDA_DRIVER    CUDA driver file to load (default libcuda.so.1)
  ACCEL_NVML_LIBRARY   NVML file to load (default libnvidia-ml.so.1)
  MOCKDEV_MACHINE      simulated machine (file or preset) when the mock driver is loaded
  ACCEL_MOCKDEV_DIR    directory holding the mock driver files used by --machine
  CUDA_VISIBLE_DEVICES which devices the driver exposes

exit status: 0 success (also when no accelerator is available: CPU fallback),
             1 a runtime error, 2 a usage error or a malformed machine file.
)";
}

}  // namespace accel::tools
