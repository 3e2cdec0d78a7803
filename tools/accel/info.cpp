#include "info.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <set>
#include <utility>

#include "accel/error.h"
#include "accel/version.h"

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

// The variables whose values decide what the runtime and the mock do; always listed.
constexpr const char* kKnownVariables[] = {
    "CUDA_VISIBLE_DEVICES",  "ACCEL_BACKEND",     "ACCEL_CUDA_DRIVER", "ACCEL_NVML_LIBRARY",
    "ACCEL_REQUIRE_DEVICES", "ACCEL_MOCKDEV_DIR", "MOCKDEV_MACHINE",
};

std::optional<std::string> getenv_value(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr) return std::nullopt;
  return std::string(value);
}

// Note [Configuration errors]
// The runtime reports a misconfiguration (ACCEL_BACKEND names no compiled backend, a
// driver path that does not exist, a machine file the simulated driver rejects) as
// accel::Error of kind kConfig from every call that needs the device. backend_report()
// never throws; it carries the same message in `config_error`, raised here as that error.

// Raises the runtime's configuration error, if any. When the accelerator is unavailable,
// asks a call that needs the device (it initialises the runtime, which the tool may do):
// kConfig propagates; "nothing installed" (kUnavailable and the like) is the CPU fallback.
// Returns that call's other error, if any.
std::optional<Error> raise_configuration_error(const BackendReport& report) {
  if (!report.config_error.empty()) throw Error(ErrorKind::kConfig, report.config_error);
  if (report.available) return std::nullopt;
  try {
    (void)current_device_index();
  } catch (const Error& e) {
    if (e.kind() == ErrorKind::kConfig) throw;
    return e;
  }
  return std::nullopt;
}

}  // namespace

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
  for (const char* name : kKnownVariables) {
    values.push_back({name, getenv_value(name)});
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

std::string short_uuid(const std::string& uuid) {
  // "GPU-" / "MIG-" prefix, then the first group of hex digits.
  const std::size_t prefix = uuid.find('-');
  if (prefix == std::string::npos) return uuid;
  const std::size_t group_end = uuid.find('-', prefix + 1);
  if (group_end == std::string::npos) return uuid;
  return uuid.substr(0, group_end);
}

InfoReport collect_info(std::optional<std::string> machine, bool walk_devices) {
  InfoReport report;
  report.version = kVersionString;
  report.build = build_info();
  report.environment = environment_in_effect();
  report.machine = std::move(machine);
  report.backend = backend_report();
  if (!report.backend.driver_release.empty()) {
    report.driver_version = report.backend.driver_release;
  }
  if (std::optional<Error> failure = raise_configuration_error(report.backend)) {
    report.init_error = failure->what();
    if (!failure->driver_error_name().empty())
      report.init_error_name = failure->driver_error_name();
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
  return report;
}

bool mock_rejected_machine(const InfoReport& report) {
  return !report.backend.available && report.init_error_name == "CUDA_ERROR_INVALID_VALUE";
}

}  // namespace accel::tools
