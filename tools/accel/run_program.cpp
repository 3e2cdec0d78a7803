#include "run_program.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <optional>
#include <sstream>
#include <system_error>
#include <utility>

#include "accel_common/edit_distance.h"
#include "accel_common/environment_variables.h"
#include "accel_common/printable.h"

namespace accel::tools {
namespace {

namespace fs = std::filesystem;

// The loader's search path: not a variable of the project's table (we never read it).
constexpr const char* kLoaderPath = "LD_LIBRARY_PATH";

// The lines of the simulated driver's stderr that say its machine or settings were refused
// (mockdev/src/core/engine.cpp, docs/MACHINE_FILES.md "Configuration errors").
constexpr std::string_view kMachineRefused = "mockdev: cannot load the simulated machine: ";
constexpr std::string_view kSettingsRefused = "mockdev: cannot start the simulated hardware: ";

// The child's exit status when it could not load the driver at all.
constexpr int kCheckCannotLoad = 3;

void add_setting(std::vector<RunAssignment>& out, const char* variable,
                 const std::optional<std::string>& value) {
  if (value) out.push_back({variable, *value});
}

// Note [Checking the machine before the program]
// `accel` never links the simulated hardware (tools.accel_links_no_mock), so the machine
// file is read by the one reader there is, the simulated driver's: a child process sets
// the machine and the simulation's settings, dlopens the mock libcuda.so.1 by its path and
// calls cuInit(0), which loads the machine. The driver prints "mockdev: cannot load the
// simulated machine: <file>:<line>: ..." (or "cannot start the simulated hardware:
// MOCKDEV_SCHEDULE=..." for a setting) when it refuses them; those lines, captured from the
// child's stderr, are accel's error. A cuInit that fails for another reason is the
// simulation working as configured (a machine whose driver is broken on purpose): the
// program runs and sees it. The child never writes the trace (MOCKDEV_TRACE is unset there)
// and leaves with _exit, so no exit hook of the driver runs. A child is used, not this
// process, so the program starts with none of the driver's state, threads or variables.
void check_machine_loads(const MockSelection& selection,
                         const std::vector<RunAssignment>& assignments) {
  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0) {
    throw RunConfigError(fmt::format("cannot check the machine: pipe: {}", std::strerror(errno)));
  }
  const pid_t child = ::fork();
  if (child < 0) {
    throw RunConfigError(fmt::format("cannot check the machine: fork: {}", std::strerror(errno)));
  }
  if (child == 0) {
    ::dup2(pipe_fds[1], STDERR_FILENO);
    ::dup2(pipe_fds[1], STDOUT_FILENO);
    for (const RunAssignment& assignment : assignments) {
      ::setenv(assignment.variable.c_str(), assignment.value.c_str(), 1);
    }
    ::unsetenv(common::environment_variable_name("MOCKDEV_TRACE"));
    void* driver = ::dlopen(selection.driver_path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (driver == nullptr) {
      std::fprintf(stderr, "%s\n", ::dlerror());
      std::fflush(stderr);
      ::_exit(kCheckCannotLoad);
    }
    using CuInit = int (*)(unsigned);
    const auto cu_init = reinterpret_cast<CuInit>(::dlsym(driver, "cuInit"));
    if (cu_init == nullptr) {
      std::fprintf(stderr, "no cuInit in %s\n", selection.driver_path.c_str());
      std::fflush(stderr);
      ::_exit(kCheckCannotLoad);
    }
    (void)cu_init(0);
    std::fflush(stderr);
    ::_exit(0);
  }
  ::close(pipe_fds[1]);
  std::string said;
  char buffer[4096];
  for (;;) {
    const ssize_t n = ::read(pipe_fds[0], buffer, sizeof buffer);
    if (n > 0) {
      said.append(buffer, static_cast<std::size_t>(n));
    } else if (n == 0 || errno != EINTR) {
      break;
    }
  }
  ::close(pipe_fds[0]);
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  std::string refused;
  std::istringstream lines(said);
  for (std::string line; std::getline(lines, line);) {
    if (line.starts_with(kMachineRefused) || line.starts_with(kSettingsRefused)) {
      refused += common::printable(line) + "\n";
    }
  }
  if (!refused.empty()) {
    std::cerr << refused;
    throw RunConfigError(fmt::format(
        "--machine {}: the simulated driver cannot load this machine (the line above says "
        "why); the program was not run",
        selection.machine));
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == kCheckCannotLoad) {
    throw RunConfigError(fmt::format("cannot load the simulated driver {}: {}",
                                     selection.driver_path, common::printable(said)));
  }
  if (WIFSIGNALED(status)) {
    throw RunConfigError(fmt::format(
        "--machine {}: loading the machine in the simulated driver ended by signal {} ({})",
        selection.machine, WTERMSIG(status), ::strsignal(WTERMSIG(status))));
  }
}

}  // namespace

std::vector<RunAssignment> run_assignments(const MockSelection& selection, const CommandLine& line,
                                           std::string_view ld_library_path,
                                           std::string_view tool_library) {
  std::vector<RunAssignment> out;
  std::string search = selection.facade_dir;
  if (!ld_library_path.empty()) search += ":" + std::string(ld_library_path);
  out.push_back({kLoaderPath, std::move(search)});
  for (const MockAssignment& assignment : mock_assignments(selection)) {
    out.push_back({std::string(assignment.variable), assignment.value});
  }
  add_setting(out, common::environment_variable_name("MOCKDEV_SCHEDULE"), line.schedule);
  add_setting(out, common::environment_variable_name("MOCKDEV_SEED"), line.seed);
  add_setting(out, common::environment_variable_name("MOCKDEV_RACES"), line.races);
  add_setting(out, common::environment_variable_name("MOCKDEV_LEAKS"), line.leaks);
  add_setting(out, common::environment_variable_name("MOCKDEV_TRACE"), line.trace);
  // The simulated driver file loads the simulated hardware, which exports the tool entry
  // points (decision 217).
  if (tool_library.empty()) {
    out.push_back({common::environment_variable_name("ACCEL_TOOL_LIBRARY"), selection.driver_path});
  }
  return out;
}

void check_machine_name(std::string_view machine, const std::vector<std::string>& presets) {
  if (machine.empty()) throw RunConfigError("--machine '': expected a preset or a machine file");
  const bool looks_like_file = machine.find('/') != std::string_view::npos ||
                               machine.ends_with(".yaml") || machine.ends_with(".yml");
  std::error_code ec;
  if (looks_like_file || fs::exists(fs::path(machine), ec)) return;  // the driver reads it
  if (std::find(presets.begin(), presets.end(), machine) != presets.end()) return;
  // The closest presets first, at most three within the distance a typo makes.
  std::vector<std::pair<std::size_t, std::string>> ranked;
  for (const std::string& name : presets) {
    const std::size_t distance = common::edit_distance(machine, name);
    if (distance <= common::close_distance_limit(machine)) ranked.emplace_back(distance, name);
  }
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  if (ranked.size() > 3) ranked.resize(3);
  std::vector<std::string> closest;
  for (auto& [distance, name] : ranked) closest.push_back(std::move(name));
  const std::string known =
      closest.empty() ? fmt::format("presets: {}",
                                    presets.empty() ? std::string("none installed")
                                                    : fmt::format("{}", fmt::join(presets, ", ")))
                      : fmt::format("closest: {}", fmt::join(closest, ", "));
  throw RunConfigError(fmt::format(
      "--machine {}: no such preset or machine file ({}; `accel machines` lists the presets)",
      common::printable(std::string(machine)), known));
}

// Note [The exit status of accel run]
// After execvp this process is the program, so its exit status is the program's, and
// whatever the simulation decides at exit is part of it: under MOCKDEV_RACES=fail a
// process that had races ends with mockdev's kRaceFailureExitStatus (86,
// mockdev/include/mockdev/exit.h), and under MOCKDEV_LEAKS=fail one that left driver objects
// live with kLeakFailureExitStatus (87). accel's own statuses are the ones it returns before
// the program starts: 2 for a usage error (command_line.cpp), 125 for a configuration
// error (the machine, the drivers), 127 for a program that cannot be found or run: the
// values env(1), nohup(1) and timeout(1) use for the same three cases.
int run_program(const CommandLine& line) {
  try {
    check_machine_name(*line.machine, preset_names());
    const MockSelection selection = mock_selection(mock_facade_directory(), *line.machine);
    const char* loader_path = std::getenv(kLoaderPath);
    const char* tool = std::getenv(common::environment_variable_name("ACCEL_TOOL_LIBRARY"));
    const std::vector<RunAssignment> assignments = run_assignments(
        selection, line, loader_path == nullptr ? "" : loader_path, tool == nullptr ? "" : tool);
    check_machine_loads(selection, assignments);
    for (const RunAssignment& assignment : assignments) {
      ::setenv(assignment.variable.c_str(), assignment.value.c_str(), 1);
    }
  } catch (const RunConfigError& e) {
    std::cerr << "accel: run: " << e.what() << '\n';
    return kExitRunConfig;
  } catch (const NoMockError& e) {
    std::cerr << "accel: run: " << common::printable(e.what()) << '\n';
    return kExitRunConfig;
  }
  std::vector<std::string> words = line.program;
  std::vector<char*> argv;
  for (std::string& word : words) argv.push_back(word.data());
  argv.push_back(nullptr);
  std::cout.flush();
  std::cerr.flush();
  ::execvp(argv[0], argv.data());
  const int error = errno;
  std::cerr << fmt::format("accel: run: cannot run '{}': {}\n", common::printable(line.program[0]),
                           std::strerror(error));
  return kExitRunNotFound;
}

}  // namespace accel::tools
