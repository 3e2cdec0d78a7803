// `accel`: the command-line face of the runtime (see command_line.h for the grammar).
//
// Exit status: 0 success (including "no accelerator: CPU fallback"), 1 a runtime error or
// fewer devices than --expect-devices, 2 a usage error or a configuration error (an
// accel::Error of kind kConfig from the runtime, a machine file the simulated driver
// rejects, --machine in an install without the simulation). `accel run` returns the
// program's status instead (Note [The exit status of accel run] in run_program.cpp).
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "accel/accelerator.h"
#include "accel/error.h"
#include "accel_common/environment_variables.h"
#include "accel_common/printable.h"
#include "command_line.h"
#include "info.h"
#include "mock_machine.h"
#include "query.h"
#include "render.h"
#include "run_program.h"
#include "topo.h"

namespace {

constexpr int kExitOk = 0;
constexpr int kExitError = 1;
constexpr int kExitConfig = 2;

// A configuration problem the tool found itself (not an accel::Error).
struct ConfigProblem {
  std::string message;
};

int check_expected(const accel::tools::CommandLine& line, int found) {
  if (!line.expect_devices || found >= *line.expect_devices) return kExitOk;
  std::cerr << fmt::format("accel: expected at least {} device{}, found {}\n", *line.expect_devices,
                           *line.expect_devices == 1 ? "" : "s", found);
  return kExitError;
}

// --backend NAME: set ACCEL_BACKEND before the first runtime call (the runtime selects its
// backend once), then check the name against the compiled backends, which the runtime
// lists even when it refuses the name. An unknown name is a usage error (exit 2) listing
// them, in the tool's words rather than the variable's.
void select_backend(const std::string& name) {
  ::setenv(accel::common::environment_variable_name("ACCEL_BACKEND"), name.c_str(), 1);
  const accel::BackendReport report = accel::backend_report();
  const std::vector<std::string>& compiled = report.compiled_backends;
  if (name == "none" || std::find(compiled.begin(), compiled.end(), name) != compiled.end()) {
    return;
  }
  throw ConfigProblem{
      fmt::format("--backend {}: not a compiled backend (compiled backends: {}; "
                  "or none)",
                  name, compiled.empty() ? "none" : fmt::format("{}", fmt::join(compiled, ", ")))};
}

// Note [Saying what the user did]
// The runtime's messages name the variables it read ("the CUDA driver named by
// ACCEL_CUDA_DRIVER='<path>' failed to initialise"). Under --machine the user set none of
// them: this tool did. So the message is shown with each assignment the tool made rewritten
// as the option that made it ("--machine 4xh100 ('<path>')"), after a lead naming the
// option; the simulated driver's own line above it (mockdev: ...) names the machine file's
// line or the variable that is wrong.
std::string as_user_did(std::string message,
                        const std::optional<accel::tools::MockSelection>& mock) {
  if (!mock) return message;
  for (const accel::tools::MockAssignment& assignment : accel::tools::mock_assignments(*mock)) {
    if (!assignment.driver_file) continue;  // the runtime names driver files, not the machine
    const std::string set = fmt::format("{}='{}'", assignment.variable, assignment.value);
    const std::string by_option =
        fmt::format("--machine {} ('{}')", mock->machine, assignment.value);
    for (std::size_t at = message.find(set); at != std::string::npos;
         at = message.find(set, at + by_option.size())) {
      message.replace(at, set.size(), by_option);
    }
  }
  return fmt::format("--machine {}: the simulated hardware did not start: {}", mock->machine,
                     message);
}

int run_info(const accel::tools::CommandLine& line) {
  std::optional<accel::tools::MockSelection> mock;
  if (line.machine) {
    // Before any runtime call: the runtime reads the driver variables when it first loads
    // the driver.
    mock = accel::tools::select_mock_machine(*line.machine);
  }
  if (line.backend) select_backend(*line.backend);
  // --query lists the selected backend's devices only: no child per other backend.
  accel::tools::InfoReport report =
      accel::tools::collect_info(line.machine, /*walk_devices=*/!line.count,
                                 /*walk_others=*/!line.selected_only && !line.query);
  if (report.error) {
    // Note [Configuration errors] (info.cpp): the error first, exit 2; --json still
    // writes its document, with the error in it, for programs that read it.
    report.error->message = as_user_did(report.error->message, mock);
    std::cerr << "accel: " << accel::common::printable(report.error->message) << '\n';
    std::cerr.flush();
    if (line.json && !line.count) accel::tools::render_json(report, std::cout);
    return kExitConfig;
  }
  if (line.count) {
    const int count = report.backend.available ? report.backend.device_count : 0;
    std::cout << count << '\n';
    return check_expected(line, count);
  }
  if (line.query) {
    // Checked when parsed (command_line.cpp): these do not throw here.
    accel::tools::render_query(report.devices, accel::tools::parse_query_fields(*line.query),
                               accel::tools::parse_query_format(line.format.value_or("csv")),
                               std::cout);
    std::cout.flush();
    // A device whose query failed shows [N/A]; say why on stderr, and exit 1 as the
    // device table does.
    for (const accel::tools::DeviceRow& row : report.devices) {
      if (row.error) {
        std::cerr << "accel: device " << row.index << ": " << accel::common::printable(*row.error)
                  << '\n';
      }
    }
  } else if (line.json) {
    accel::tools::render_json(report, std::cout);
  } else {
    accel::tools::render_text(report, std::cout);
  }
  std::cout.flush();
  const int expected = check_expected(line, static_cast<int>(report.devices.size()));
  return report.has_errors() ? kExitError : expected;
}

// `accel topo`: the peer matrix (topo.h). The same configuration checks as `accel info`
// run first, so a bad machine or variable is exit 2 with the same words.
int run_topo(const accel::tools::CommandLine& line) {
  std::optional<accel::tools::MockSelection> mock;
  if (line.machine) mock = accel::tools::select_mock_machine(*line.machine);
  if (line.backend) select_backend(*line.backend);
  accel::tools::InfoReport report =
      accel::tools::collect_info(line.machine, /*walk_devices=*/false, /*walk_others=*/false);
  if (report.error) {
    std::cerr << "accel: " << accel::common::printable(as_user_did(report.error->message, mock))
              << '\n';
    return kExitConfig;
  }
  if (!report.backend.available) {
    std::cout << accel::common::printable(fmt::format("backend {}: no devices ({})",
                                                      report.backend.backend,
                                                      report.backend.unavailable_reason))
              << "\nfallback: cpu\n";
    return kExitOk;
  }
  const accel::tools::TopoReport topo = accel::tools::collect_topo();
  accel::tools::render_topo(topo, std::cout);
  return topo.errors.empty() ? kExitOk : kExitError;
}

int run_machines(const accel::tools::CommandLine& line) {
  if (line.show) {
    std::cout << accel::tools::preset_text(*line.show);
  } else {
    std::cout << accel::tools::describe_presets();
  }
  return kExitOk;
}

// `accel scenario ...`: execs the scenario runner installed beside this program. The runner
// links the simulated hardware's control API; keeping it a separate program keeps `accel`
// itself free of it (tools.accel_links_no_mock; docs/SCENARIOS.md).
// `program`, beside this one, with `args` (execv: it does not return unless it failed).
int exec_beside(const std::string& program, const std::vector<std::string>& args,
                const char* what) {
  std::error_code ec;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  const std::string runner = (self.parent_path() / program).string();
  if (ec || access(runner.c_str(), X_OK) != 0) {
    throw ConfigProblem{fmt::format(
        "this accel install has no {} ({} not found; it is built with the simulated hardware, "
        "mockdev)",
        what, runner)};
  }
  std::vector<char*> argv;
  std::string name = program;
  argv.push_back(name.data());
  std::vector<std::string> copies = args;
  for (std::string& a : copies) argv.push_back(a.data());
  argv.push_back(nullptr);
  execv(runner.c_str(), argv.data());
  throw ConfigProblem{fmt::format("cannot run {}: {}", runner, std::strerror(errno))};
}

int run_scenario(const accel::tools::CommandLine& line) {
  std::error_code ec;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  const std::string runner = (self.parent_path() / "accel-scenario").string();
  if (ec || access(runner.c_str(), X_OK) != 0) {
    throw ConfigProblem{
        fmt::format("this accel install has no scenario runner ({} not found; it is built with the "
                    "simulated hardware, mockdev)",
                    runner)};
  }
  std::vector<char*> argv;
  std::string name = "accel-scenario";
  argv.push_back(name.data());
  std::vector<std::string> args = line.scenario_args;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  execv(runner.c_str(), argv.data());
  throw ConfigProblem{fmt::format("cannot run {}: {}", runner, std::strerror(errno))};
}

// `accel replay ...`: execs the trace replayer installed beside this program (it links the
// allocator's private parts and the machine-file reader; docs/REPLAY.md).
int run_replay(const accel::tools::CommandLine& line) {
  return exec_beside("accel-replay", line.replay_args, "trace replayer");
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  const accel::tools::ParseOutcome parsed = accel::tools::parse_command_line(args);
  if (!parsed.line) {
    std::cout << parsed.output;
    std::cerr << parsed.error;
    return parsed.exit_status;
  }
  try {
    switch (parsed.line->command) {
      case accel::tools::Command::kMachines:
        return run_machines(*parsed.line);
      case accel::tools::Command::kScenario:
        return run_scenario(*parsed.line);
      case accel::tools::Command::kReplay:
        return run_replay(*parsed.line);
      case accel::tools::Command::kRun:
        return accel::tools::run_program(*parsed.line);
      case accel::tools::Command::kTopo:
        return run_topo(*parsed.line);
      case accel::tools::Command::kInfo:
        break;
    }
    return run_info(*parsed.line);
  } catch (const accel::Error& e) {
    std::cerr << "accel: " << accel::common::printable(e.what()) << '\n';
    return e.kind() == accel::ErrorKind::kConfig ? kExitConfig : kExitError;
  } catch (const ConfigProblem& e) {
    std::cerr << "accel: " << accel::common::printable(e.message) << '\n';
    return kExitConfig;
  } catch (const accel::tools::NoMockError& e) {
    std::cerr << "accel: " << accel::common::printable(e.what()) << '\n';
    return kExitConfig;
  } catch (const accel::tools::UnknownPresetError& e) {
    std::cerr << "accel: " << accel::common::printable(e.what()) << '\n';
    return kExitConfig;
  } catch (const std::exception& e) {
    std::cerr << "accel: " << accel::common::printable(e.what()) << '\n';
    return kExitError;
  }
}
