#include "mock_machine.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <sstream>
#include <system_error>
#include <vector>

#include "accel_common/bounded_file.h"
#include "accel_common/environment_variables.h"
#include "accel_common/printable.h"

#ifndef ACCEL_TOOLS_MOCKDEV_BUILD_DIR
#define ACCEL_TOOLS_MOCKDEV_BUILD_DIR ""
#endif
#ifndef ACCEL_TOOLS_MACHINES_BUILD_DIR
#define ACCEL_TOOLS_MACHINES_BUILD_DIR ""
#endif
#ifndef ACCEL_TOOLS_INSTALL_LIBDIR
#define ACCEL_TOOLS_INSTALL_LIBDIR "lib"
#endif
#ifndef ACCEL_TOOLS_INSTALL_DATADIR
#define ACCEL_TOOLS_INSTALL_DATADIR "share"
#endif
#ifndef ACCEL_TOOLS_CUDA_FACADE_NAME
#define ACCEL_TOOLS_CUDA_FACADE_NAME "libcuda.so.1"
#endif
#ifndef ACCEL_TOOLS_NVML_FACADE_NAME
#define ACCEL_TOOLS_NVML_FACADE_NAME "libnvidia-ml.so.1"
#endif
#ifndef ACCEL_TOOLS_LEVEL_ZERO_DRIVER_NAME
#define ACCEL_TOOLS_LEVEL_ZERO_DRIVER_NAME "libze_mock.so"
#endif

namespace accel::tools {
namespace fs = std::filesystem;
namespace {

fs::path executable_directory() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::path() : exe.parent_path();
}

std::vector<std::string> machine_names(const fs::path& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir, ec)) {
    if (entry.path().extension() == ".yaml") names.push_back(entry.path().stem().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

// The text of a machine file of the machines directory, read as the mock reads machine
// files (Note [Bounded readers]); the reader's message when it is not a readable file.
accel::common::FileContents read_machine_file(const fs::path& path) {
  return accel::common::read_file(path.string(), accel::common::kMaxMachineFileBytes,
                                  "machine file");
}

std::string trim(std::string_view text) {
  const std::size_t first = text.find_first_not_of(" \t\"'");
  if (first == std::string_view::npos) return "";
  const std::size_t last = text.find_last_not_of(" \t\r\"'");
  return std::string(text.substr(first, last - first + 1));
}

// The MockSelection member holding the value of a row whose MOCK is `mock`; null for the
// rows --machine does not set ("none", "backend").
constexpr std::string MockSelection::*selection_field(std::string_view mock) {
  if (mock == "machine") return &MockSelection::machine;
  if (mock == "mockdev_cuda") return &MockSelection::driver_path;
  if (mock == "mockdev_nvml") return &MockSelection::nvml_path;
  if (mock == "mockdev_level_zero") return &MockSelection::level_zero_driver_path;
  return nullptr;
}

// Every mock driver file of the table has its member: a new backend's mock driver row
// fails to compile here until MockSelection carries its file.
constexpr bool every_mock_file_has_a_field() {
  for (const common::EnvironmentVariable& variable : common::kEnvironmentVariables) {
    if (variable.mock.starts_with("mockdev_") && selection_field(variable.mock) == nullptr) {
      return false;
    }
  }
  return true;
}
static_assert(every_mock_file_has_a_field(),
              "a MOCK target of accel_common/environment_variables.def has no MockSelection "
              "member (selection_field)");

// Note [Summarising a machine file without the mock]
// The tool does not link the mock's YAML parser, so `accel machines` summarises a preset
// from its lines: each `- name:` item under `devices:` is a device kind, an item's
// `count:` multiplies it. That is exactly the shape of the preset files; the mock remains
// the only validator (`accel info --machine NAME` reports a file it rejects).
std::string summarise(const std::string& yaml) {
  std::vector<std::pair<std::string, int>> kinds;
  bool in_devices = false;
  std::istringstream lines(yaml);
  for (std::string line; std::getline(lines, line);) {
    if (line.empty() || line[0] == '#') continue;
    if (line[0] != ' ' && line[0] != '-') {
      in_devices = line.starts_with("devices:");
      continue;
    }
    if (!in_devices) continue;
    const std::string item = trim(line);
    if (item.starts_with("- name:")) {
      kinds.emplace_back(accel::common::printable(trim(item.substr(7))), 1);
    } else if (item.starts_with("- {")) {  // flow style: - {name: X, memory: ..., count: 2}
      const std::size_t name = item.find("name:");
      const std::size_t count = item.find("count:");
      if (name == std::string::npos) return "(devices: see --show)";
      const std::size_t end = item.find_first_of(",}", name);
      kinds.emplace_back(accel::common::printable(trim(item.substr(name + 5, end - name - 5))), 1);
      if (count != std::string::npos) kinds.back().second = std::atoi(item.c_str() + count + 6);
    } else if (item.starts_with("count:") && !kinds.empty()) {
      kinds.back().second = std::atoi(trim(item.substr(6)).c_str());
    } else if (item.starts_with("-")) {
      return "(devices: see --show)";  // a shape this summary does not read
    }
  }
  // Group equal names: "4 x NVIDIA H100 80GB HBM3".
  std::map<std::string, int> counts;
  std::vector<std::string> order;
  int total = 0;
  for (const auto& [name, count] : kinds) {
    if (counts[name] == 0) order.push_back(name);
    counts[name] += count;
    total += count;
  }
  std::vector<std::string> parts;
  for (const std::string& name : order) parts.push_back(fmt::format("{} x {}", counts[name], name));
  return fmt::format("{} {}{}{}", total, total == 1 ? "device" : "devices",
                     parts.empty() ? "" : ": ", fmt::join(parts, ", "));
}

}  // namespace

// Note [Finding the mock driver]
// The same `accel` binary runs from the build tree (tests, ci/demo) and from an installed
// prefix (a user's package). The facades are found relative to the executable first, so
// an installed copy never loads the build tree's files even when both exist, and the
// build tree's directory (compiled in) is the last resort. ACCEL_MOCKDEV_DIR overrides
// both, e.g. for a relocated package. The machine files are found the same way.
std::string mock_facade_directory() {
  if (const char* dir = std::getenv(common::environment_variable_name("ACCEL_MOCKDEV_DIR"));
      dir != nullptr && *dir != '\0') {
    return dir;
  }
  std::error_code ec;
  const fs::path installed =
      executable_directory() / ".." / ACCEL_TOOLS_INSTALL_LIBDIR / "accel" / "mockdev";
  if (fs::is_directory(installed, ec)) return fs::weakly_canonical(installed, ec).string();
  return ACCEL_TOOLS_MOCKDEV_BUILD_DIR;
}

MockSelection mock_selection(std::string facade_dir, std::string_view path_or_preset) {
  MockSelection selection;
  selection.machine = std::string(path_or_preset);
  selection.facade_dir = std::move(facade_dir);
  if (selection.facade_dir.empty()) {
    throw NoMockError("this accel install has no simulated hardware (mockdev): --machine needs it");
  }
  const fs::path dir(selection.facade_dir);
  selection.driver_path = (dir / ACCEL_TOOLS_CUDA_FACADE_NAME).string();
  selection.nvml_path = (dir / ACCEL_TOOLS_NVML_FACADE_NAME).string();
  std::error_code ec;
  for (const std::string& file : {selection.driver_path, selection.nvml_path}) {
    if (!fs::is_regular_file(file, ec)) {
      throw NoMockError(
          fmt::format("this accel install has no simulated hardware (mockdev): --machine needs it "
                      "(no mock driver file {}; build mockdev, or set ACCEL_MOCKDEV_DIR)",
                      file));
    }
  }
  // The Level Zero driver is optional: a build without the Level Zero headers has none,
  // and then the simulated machine shows through CUDA only.
  const fs::path level_zero = dir / ACCEL_TOOLS_LEVEL_ZERO_DRIVER_NAME;
  if (fs::is_regular_file(level_zero, ec)) selection.level_zero_driver_path = level_zero.string();
  return selection;
}

std::vector<MockAssignment> mock_assignments(const MockSelection& selection) {
  std::vector<MockAssignment> assignments;
  for (const common::EnvironmentVariable& variable : common::kEnvironmentVariables) {
    const auto field = selection_field(variable.mock);
    if (field == nullptr) continue;  // not set by --machine
    const std::string& value = selection.*field;
    const bool driver_file = variable.mock != "machine";
    // An empty driver file: this build has no such mock driver (Level Zero without its
    // headers), so the machine shows through the other backends only.
    if (driver_file && value.empty()) continue;
    assignments.push_back({variable.name, value, driver_file});
  }
  return assignments;
}

MockSelection select_mock_machine(std::string_view path_or_preset) {
  MockSelection selection = mock_selection(mock_facade_directory(), path_or_preset);
  // Overwrite: --machine means "this machine", whatever the shell had exported. With
  // ZE_ENABLE_ALT_DRIVERS the real Level Zero loader loads the mock driver instead of the
  // installed ones, so the Intel devices of the same machine appear under xpu.
  for (const MockAssignment& assignment : mock_assignments(selection)) {
    ::setenv(assignment.variable.data(), assignment.value.c_str(), 1);
  }
  return selection;
}

fs::path machines_directory() {
  std::error_code ec;
  const fs::path installed =
      executable_directory() / ".." / ACCEL_TOOLS_INSTALL_DATADIR / "accel" / "machines";
  if (fs::is_directory(installed, ec)) return fs::weakly_canonical(installed, ec);
  const fs::path build(ACCEL_TOOLS_MACHINES_BUILD_DIR);
  if (!build.empty() && fs::is_directory(build, ec)) return build;
  return {};
}

std::vector<std::string> preset_names() {
  const fs::path dir = machines_directory();
  return dir.empty() ? std::vector<std::string>{} : machine_names(dir);
}

std::string describe_presets() {
  const fs::path dir = machines_directory();
  if (dir.empty()) return "(no machine files found: this accel install has none)\n";
  std::string out;
  for (const std::string& name : machine_names(dir)) {
    const accel::common::FileContents file = read_machine_file(dir / (name + ".yaml"));
    out +=
        fmt::format("{:<15} {}\n", name, file.ok() ? summarise(file.text) : "(" + file.error + ")");
  }
  return out;
}

std::string preset_text(std::string_view name) {
  const fs::path dir = machines_directory();
  const std::vector<std::string> names =
      dir.empty() ? std::vector<std::string>{} : machine_names(dir);
  if (std::find(names.begin(), names.end(), name) == names.end()) {
    throw UnknownPresetError(
        fmt::format("no preset machine '{}' (presets: {})", name,
                    names.empty() ? "none installed" : fmt::format("{}", fmt::join(names, ", "))));
  }
  accel::common::FileContents file = read_machine_file(dir / (std::string(name) + ".yaml"));
  if (!file.ok()) throw UnknownPresetError(file.error);
  return std::move(file.text);
}

}  // namespace accel::tools
