#include "info.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <utility>

#include "accel/error.h"
#include "accel/version.h"
#include "accel_common/environment_variables.h"

#ifndef ACCEL_TOOLS_COMPILER
#define ACCEL_TOOLS_COMPILER "unknown"
#endif
#ifndef ACCEL_TOOLS_BUILD_TYPE
#define ACCEL_TOOLS_BUILD_TYPE ""
#endif
#ifndef ACCEL_TOOLS_BACKENDS
#define ACCEL_TOOLS_BACKENDS ""
#endif
#ifndef ACCEL_TOOLS_CUDA_ABI_CHECKED
#define ACCEL_TOOLS_CUDA_ABI_CHECKED 0
#endif

extern char** environ;

namespace accel::tools {
namespace {

std::optional<std::string> getenv_value(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr) return std::nullopt;
  return std::string(value);
}

// Note [Configuration errors]
// Only "nothing installed" is a CPU fallback (Note [Misconfiguration is an error] in
// accel/accelerator.h). Anything else that keeps the accelerator from working is the
// report's `error`, shown first, and the tool exits 2: an accel::Error of kind kConfig (a
// bad variable, driver path or machine file), the backend's broken configuration from
// backend_report() (an NVML that loads but fails: kDriver), and any failure of a call that
// needs the device other than kUnavailable (a driver that fails to initialise, such as the
// simulated driver refusing its machine). The tool may initialise the runtime, so it asks
// such a call whenever a backend serves the process, available or not: a driver whose NVML
// counts devices but which cannot initialise is found here, not in every device row.

// The first error that keeps the accelerator from working; nullopt when it works or when
// nothing is installed (then `*fallback_reason` says why, when a device call said more).
std::optional<InfoError> find_error(const BackendReport& report, std::string* fallback_reason,
                                    std::string* fallback_error_name) {
  if (report.backend == "none" && report.config_error.empty()) return std::nullopt;
  // The call raises the configuration error too, with the driver's code in its detail.
  try {
    (void)current_device_index();
  } catch (const Error& e) {
    if (e.kind() != ErrorKind::kUnavailable) {
      return InfoError{e.kind(), e.what(), e.driver_error_name()};
    }
    *fallback_reason = e.what();
    *fallback_error_name = e.driver_error_name();
  }
  if (!report.config_error.empty()) {
    return InfoError{report.config_error_kind, report.config_error, ""};
  }
  return std::nullopt;
}

// Note [Other backends' devices]
// One accelerator serves a process (Note [Which accelerator] in accel/accelerator.h), so
// this process walks the devices of the selected backend only; initialising a second
// driver here would break that rule. Each other backend that reports devices is asked by
// a child: this program again, `info --json --selected-only --backend NAME`, with the
// same environment (so --machine's simulated machine too). posix_spawn runs no atfork
// handler and the child is always reaped; a child that does not finish within
// kChildSeconds is killed, and its failure becomes the section's devices_error, never an
// exit of this program.
constexpr int kChildSeconds = 60;

struct ChildOutput {
  int exit_status = -1;  // -1: did not exit normally (killed, or not started)
  std::string out;
  std::string err;
  std::string failure;  // why it could not be run or finished
};

ChildOutput run_child(const std::vector<std::string>& args) {
  ChildOutput result;
  std::error_code ec;
  const std::string self = std::filesystem::read_symlink("/proc/self/exe", ec).string();
  if (ec) {
    result.failure = "cannot find this program (/proc/self/exe): " + ec.message();
    return result;
  }
  int out_pipe[2];
  int err_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) != 0) {
    result.failure = std::string("pipe: ") + std::strerror(errno);
    return result;
  }
  if (pipe2(err_pipe, O_CLOEXEC) != 0) {
    result.failure = std::string("pipe: ") + std::strerror(errno);
    close(out_pipe[0]);
    close(out_pipe[1]);
    return result;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out_pipe[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, err_pipe[1], STDERR_FILENO);
  std::vector<std::string> words = args;
  std::vector<char*> argv;
  for (std::string& word : words) argv.push_back(word.data());
  argv.push_back(nullptr);
  pid_t pid = -1;
  const int spawned = posix_spawn(&pid, self.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(out_pipe[1]);
  close(err_pipe[1]);
  if (spawned != 0) {
    result.failure = std::string("cannot run ") + self + ": " + std::strerror(spawned);
    close(out_pipe[0]);
    close(err_pipe[0]);
    return result;
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(kChildSeconds);
  std::array<pollfd, 2> fds{{{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}}};
  std::array<std::string*, 2> sinks{&result.out, &result.err};
  int open_fds = 2;
  bool timed_out = false;
  while (open_fds > 0) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      timed_out = true;
      break;
    }
    const int ready = poll(fds.data(), fds.size(), static_cast<int>(left.count()));
    if (ready < 0 && errno == EINTR) continue;
    if (ready < 0) break;
    for (std::size_t i = 0; i < fds.size(); ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      char buffer[4096];
      const ssize_t n = read(fds[i].fd, buffer, sizeof buffer);
      if (n > 0) {
        sinks[i]->append(buffer, static_cast<std::size_t>(n));
      } else if (n == 0 || errno != EINTR) {
        close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
      }
    }
  }
  for (pollfd& fd : fds) {
    if (fd.fd >= 0) close(fd.fd);
  }
  if (timed_out) kill(pid, SIGKILL);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (timed_out) {
    result.failure = "did not finish within " + std::to_string(kChildSeconds) + " s";
  } else if (WIFEXITED(status)) {
    result.exit_status = WEXITSTATUS(status);
  } else {
    result.failure = "ended by signal " + std::to_string(WTERMSIG(status));
  }
  return result;
}

std::string first_line(const std::string& text) {
  const std::string line = text.substr(0, text.find('\n'));
  return line.starts_with("accel: ") ? line.substr(7) : line;
}

std::optional<std::vector<BackendComponent>> parse_components(const std::string& json_text);

// The devices of backend `name`, from a child that selects it, and its files as the child
// saw them.
void walk_other_backend(BackendSection& section) {
  const std::string& name = section.report.backend;
  const ChildOutput child =
      run_child({"accel", "info", "--json", "--selected-only", "--backend", name});
  if (!child.failure.empty()) {
    section.devices_error = "accel info --backend " + name + ": " + child.failure;
    return;
  }
  std::optional<std::vector<DeviceRow>> rows = parse_device_rows(child.out);
  if (!rows) {
    section.devices_error = "accel info --backend " + name + " exited " +
                            std::to_string(child.exit_status) +
                            (child.err.empty() ? "" : ": " + first_line(child.err));
    return;
  }
  section.devices = std::move(rows);
  section.child_components = parse_components(child.out);
}

// The top-level "components" of `accel info --json` output; nullopt when absent.
std::optional<std::vector<BackendComponent>> parse_components(const std::string& json_text) {
  const nlohmann::json json = nlohmann::json::parse(json_text, nullptr, /*allow_exceptions=*/false);
  if (!json.is_object() || !json.contains("components") || !json["components"].is_array()) {
    return std::nullopt;
  }
  std::vector<BackendComponent> components;
  try {
    for (const nlohmann::json& c : json["components"]) {
      BackendComponent component;
      component.role = c.at("role").get<std::string>();
      if (c.contains("path") && c["path"].is_string())
        component.path = c["path"].get<std::string>();
      component.loaded = c.at("loaded").get<bool>();
      if (c.contains("version") && c["version"].is_string()) {
        component.version = c["version"].get<std::string>();
      }
      components.push_back(std::move(component));
    }
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;
  }
  return components;
}

template <class T>
std::optional<T> optional_field(const nlohmann::json& object, const char* key) {
  const auto it = object.find(key);
  if (it == object.end() || it->is_null()) return std::nullopt;
  return it->get<T>();
}

}  // namespace

std::optional<std::vector<DeviceRow>> parse_device_rows(const std::string& json_text) {
  const nlohmann::json json = nlohmann::json::parse(json_text, nullptr, /*allow_exceptions=*/false);
  if (!json.is_object() || !json.contains("devices") || !json["devices"].is_array()) {
    return std::nullopt;
  }
  std::vector<DeviceRow> rows;
  try {
    for (const nlohmann::json& device : json["devices"]) {
      DeviceRow row;
      row.index = device.at("index").get<int>();
      row.name = optional_field<std::string>(device, "name");
      row.uuid = optional_field<std::string>(device, "uuid");
      row.pci_bus_id = optional_field<std::string>(device, "pci_bus_id");
      row.mig_mode = optional_field<std::string>(device, "mig_mode");
      if (auto capability = optional_field<std::string>(device, "compute_capability")) {
        const std::size_t dot = capability->find('.');
        if (dot != std::string::npos) {
          row.cc_major = std::atoi(capability->substr(0, dot).c_str());
          row.cc_minor = std::atoi(capability->substr(dot + 1).c_str());
        }
      }
      row.multiprocessors = optional_field<int>(device, "multiprocessors");
      row.total_bytes = optional_field<std::uint64_t>(device, "total_memory_bytes");
      row.free_bytes = optional_field<std::uint64_t>(device, "free_memory_bytes");
      row.error = optional_field<std::string>(device, "error");
      rows.push_back(std::move(row));
    }
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;
  }
  return rows;
}

bool InfoReport::has_errors() const {
  return std::any_of(devices.begin(), devices.end(),
                     [](const DeviceRow& row) { return row.error.has_value(); });
}

BuildInfo build_info() {
  BuildInfo build;
  build.compiler = ACCEL_TOOLS_COMPILER;
  build.build_type = ACCEL_TOOLS_BUILD_TYPE;
  std::string backends = ACCEL_TOOLS_BACKENDS;  // "cuda,level_zero" (tools/CMakeLists.txt)
  std::size_t start = 0;
  while (start < backends.size()) {
    std::size_t end = backends.find(',', start);
    if (end == std::string::npos) end = backends.size();
    if (end > start) build.backends.push_back(backends.substr(start, end - start));
    start = end + 1;
  }
  build.cuda_abi_checked = ACCEL_TOOLS_CUDA_ABI_CHECKED != 0;
  return build;
}

std::vector<EnvironmentValue> environment_in_effect() {
  std::vector<EnvironmentValue> values;
  std::set<std::string> listed;
  // The variables whose values decide what the runtime and the mock do (the LISTED rows of
  // accel_common/environment_variables.def, in its order); then any other ACCEL_* set.
  for (const common::EnvironmentVariable& variable : common::kEnvironmentVariables) {
    if (!variable.listed) continue;
    const std::string name(variable.name);
    values.push_back({name, getenv_value(name.c_str())});
    listed.insert(name);
  }
  std::set<std::string> others;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    const std::string_view text(*entry);
    const std::size_t equals = text.find('=');
    if (equals == std::string_view::npos || !text.starts_with("ACCEL_")) continue;
    std::string name(text.substr(0, equals));
    if (!listed.contains(name)) others.insert(std::move(name));
  }
  for (const std::string& name : others) values.push_back({name, getenv_value(name.c_str())});
  return values;
}

// Note [Simulation settings]
// The simulated hardware reads five variables when it starts (docs/MACHINE_FILES.md,
// "Streams" and "Leak report"); the stream ones override the machine file's `streams:`
// value, which has its own default. This program never loads the machine, so an unset variable is shown with the
// rule that applies rather than a value it would have to guess.
std::vector<SimulationSetting> simulation_in_effect() {
  struct Row {
    const char* name;
    const char* default_text;
  };
  static constexpr Row kRows[] = {
      {common::environment_variable_name("MOCKDEV_SCHEDULE"),
       "the machine file's streams.schedule, else eager"},
      {common::environment_variable_name("MOCKDEV_SEED"),
       "the machine file's streams.seed, else 0"},
      {common::environment_variable_name("MOCKDEV_RACES"),
       "the machine file's streams.races, else report"},
      {common::environment_variable_name("MOCKDEV_LEAKS"), "no leak report at exit"},
      {common::environment_variable_name("MOCKDEV_TRACE"), "no trace is written"},
  };
  std::vector<SimulationSetting> settings;
  for (const Row& row : kRows) {
    settings.push_back({row.name, getenv_value(row.name), row.default_text});
  }
  return settings;
}

bool counted_no_device(const BackendReport& report) {
  return !report.available && report.device_count == 0 && report.config_error.empty() &&
         !report.count_source.empty() && report.count_source != "none";
}

std::string short_uuid(const std::string& uuid) {
  // "GPU-" / "MIG-" prefix, then the first group of hex digits.
  const std::size_t prefix = uuid.find('-');
  if (prefix == std::string::npos) return uuid;
  const std::size_t group_end = uuid.find('-', prefix + 1);
  if (group_end == std::string::npos) return uuid;
  return uuid.substr(0, group_end);
}

InfoReport collect_info(std::optional<std::string> machine, bool walk_devices, bool walk_others) {
  InfoReport report;
  report.version = kVersionString;
  report.build = build_info();
  report.environment = environment_in_effect();
  report.simulation = simulation_in_effect();
  report.machine = std::move(machine);
  try {
    report.backend = backend_report();
    if (!report.backend.compiled_backends.empty()) {
      report.build.backends = report.backend.compiled_backends;
    }
    if (!report.backend.driver_release.empty()) {
      report.driver_version = report.backend.driver_release;
    }
    std::string reason;
    std::string name;
    report.error = find_error(report.backend, &reason, &name);
    if (!reason.empty()) report.init_error = reason;
    if (!name.empty()) report.init_error_name = name;
  } catch (const Error& e) {  // kConfig and the like from the runtime's first use
    report.error = InfoError{e.kind(), e.what(), e.driver_error_name()};
  }
  if (report.error) {
    // Nothing works: the backend table says what was tried, no device is walked.
    report.backend.available = false;
    if (report.backend.unavailable_reason.empty()) {
      report.backend.unavailable_reason = report.error->message;
    }
    walk_devices = false;
    walk_others = false;
  }
  // Every compiled backend.
  for (BackendReport& other : backend_reports()) {
    BackendSection section;
    section.report = std::move(other);
    if (walk_devices && walk_others && !section.report.selected &&
        section.report.device_count > 0) {
      walk_other_backend(section);
    }
    report.backends.push_back(std::move(section));
  }
  if (!report.backend.available || !walk_devices) return report;

  // device_count() is the fork-safe count the user's program would see; the report's
  // count is the same number, but ask the API the way a program would.
  const int count = device_count();
  for (int i = 0; i < count; ++i) {
    DeviceRow row;
    row.index = i;
    try {
      const DeviceProperties props = get_device_properties(i);
      row.name = props.name;
      row.cc_major = props.major;
      row.cc_minor = props.minor;
      row.multiprocessors = props.multi_processor_count;
      row.total_bytes = props.total_memory_bytes;
      if (!props.uuid.empty()) row.uuid = props.uuid;
      if (!props.pci_bus_id.empty()) row.pci_bus_id = props.pci_bus_id;
      if (props.mig_enabled) row.mig_mode = *props.mig_enabled ? "Enabled" : "Disabled";
      const MemoryInfo memory = get_memory_info(i);
      row.free_bytes = memory.free_bytes;
      if (memory.total_bytes != 0) row.total_bytes = memory.total_bytes;
    } catch (const Error& e) {
      if (e.kind() == ErrorKind::kConfig) throw;
      row.error = e.what();
    } catch (const std::exception& e) {
      row.error = e.what();
    }
    report.devices.push_back(std::move(row));
  }
  try {
    report.current_device = current_device_index();
  } catch (const Error& e) {
    if (e.kind() == ErrorKind::kConfig) throw;
  }
  // The files as they are now: walking the devices initialised the driver, which loads
  // what a backend loads only then (the Level Zero driver, through the loader), so the
  // report says what this process used rather than what it had loaded before the walk.
  report.backend.components = backend_report().components;
  for (BackendSection& section : report.backends) {
    if (section.report.selected) section.report.components = report.backend.components;
  }
  return report;
}

}  // namespace accel::tools
