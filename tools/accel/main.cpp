// `accel`: the command-line face of the runtime (see command_line.h for the grammar).
//
// Exit status: 0 success (including "no accelerator: CPU fallback"), 1 a runtime error,
// 2 a usage error or a malformed machine file.
#include <exception>
#include <iostream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "accel/version.h"
#include "command_line.h"
#include "info.h"
#include "mock_machine.h"
#include "mockdev/machine.h"
#include "render.h"

namespace {

constexpr int kExitOk = 0;
constexpr int kExitError = 1;
constexpr int kExitUsage = 2;

int run_info(const accel::tools::CommandLine& line) {
  std::optional<std::string> machine_source;
  if (line.machine) {
    // Before any runtime call: the runtime reads the driver variables when it first loads
    // the driver.
    const accel::tools::MockSelection selection = accel::tools::select_mock_machine(*line.machine);
    machine_source = selection.source;
  }
  const accel::tools::InfoReport report = accel::tools::collect_info(machine_source);
  if (line.json) {
    accel::tools::render_json(report, std::cout);
  } else {
    accel::tools::render_text(report, std::cout);
  }
  std::cout.flush();
  return report.has_errors() ? kExitError : kExitOk;
}

int run(const accel::tools::CommandLine& line) {
  switch (line.command) {
    case accel::tools::Command::kHelp:
      std::cout << accel::tools::usage_text();
      return kExitOk;
    case accel::tools::Command::kVersion:
      std::cout << "accel " << accel::kVersionString << '\n';
      return kExitOk;
    case accel::tools::Command::kMachines:
      std::cout << accel::tools::describe_presets();
      return kExitOk;
    case accel::tools::Command::kInfo:
      return run_info(line);
  }
  return kExitError;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string_view> args(argv + 1, argv + argc);
  try {
    return run(accel::tools::parse_command_line(args));
  } catch (const accel::tools::UsageError& e) {
    std::cerr << e.what() << "\n\n" << accel::tools::usage_text();
    return kExitUsage;
  } catch (const mockdev::MachineFileError& e) {
    std::cerr << "accel: " << e.what() << '\n';
    return kExitUsage;
  } catch (const std::exception& e) {
    std::cerr << "accel: " << e.what() << '\n';
    return kExitError;
  }
}
