// render_text (declared in render.h).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "accel_common/printable.h"
#include "accel_common/units.h"
#include "render.h"

namespace accel::tools {
namespace {

constexpr std::size_t kLabelWidth = 16;  // "driver version: " is the longest label

// "label:" padded to the value column; an empty label continues the previous field. Every
// value and table cell is printed through accel::common::printable: a name or message from
// a driver or the environment may hold control characters, which must not break a line or
// reach the terminal.
void field(std::ostream& out, std::string_view label, std::string_view value) {
  out << fmt::format("{:<{}}{}\n", label.empty() ? "" : fmt::format("{}:", label), kLabelWidth,
                     common::printable(value));
}

std::string or_dash(const std::optional<std::string>& value) { return value ? *value : "-"; }

template <class T>
std::string or_dash(const std::optional<T>& value) {
  return value ? fmt::format("{}", *value) : "-";
}

// Left-aligned columns, two spaces apart; a row of one cell (an error line) does not
// widen the columns.
void print_table(std::ostream& out, const std::vector<std::vector<std::string>>& rows) {
  std::vector<std::size_t> widths;
  for (const auto& row : rows) {
    if (row.size() < 2) continue;
    widths.resize(std::max(widths.size(), row.size()), 0);
    for (std::size_t c = 0; c < row.size(); ++c) widths[c] = std::max(widths[c], row[c].size());
  }
  for (const auto& row : rows) {
    std::string line = "  ";
    for (std::size_t c = 0; c < row.size(); ++c) {
      if (c + 1 < row.size()) {
        line += fmt::format("{:<{}}  ", row[c], widths[c]);
      } else {
        line += row[c];
      }
    }
    out << line << '\n';
  }
}

// The rows with every cell printable (see field()), before widths are measured.
std::vector<std::vector<std::string>> printable_rows(std::vector<std::vector<std::string>> rows) {
  for (auto& row : rows) {
    for (std::string& cell : row) cell = common::printable(cell);
  }
  return rows;
}

std::string build_line(const BuildInfo& build) {
  return fmt::format(
      "{}{}, backends: {}, CUDA ABI checked against cuda.h: {}", build.compiler,
      build.build_type.empty() ? "" : ", " + build.build_type,
      build.backends.empty() ? "none" : fmt::format("{}", fmt::join(build.backends, ", ")),
      build.cuda_abi_checked ? "yes" : "no");
}

// `not_loaded` is what an unloaded file is called: "not loaded", or "not loaded by this
// process" for another backend that is available (Note [Other backends' devices] in
// info.cpp: only a child that selects it loads its files).
std::string component_text(const BackendComponent& c, std::string_view not_loaded = "not loaded") {
  const std::string state = !c.loaded           ? std::string(not_loaded)
                            : c.version.empty() ? "loaded"
                                                : fmt::format("loaded, version {}", c.version);
  return fmt::format("{} ({})", c.path.empty() ? "(none)" : c.path, state);
}

// The API a backend's devices are reached through, as people name it: "no Level Zero
// device" says more than the backend's name. The only place that knows backend names;
// another backend is called by its own name.
std::string api_name(const std::string& backend) {
  if (backend == "cuda") return "CUDA";
  if (backend == "xpu") return "Level Zero";
  return backend;
}

// The reason a backend is unavailable, in the report's words, unless it counted and found
// no device (counted_no_device): then that, not the driver call behind it (the Level Zero
// loader's zeInit answers ZE_RESULT_ERROR_UNINITIALIZED when no driver has a device).
std::string unavailable_text(const BackendReport& b) {
  if (counted_no_device(b)) return fmt::format("no {} device", api_name(b.backend));
  return b.unavailable_reason;
}

std::string count_text(const BackendReport& b) {
  return b.count_source.empty() || b.count_source == "none"
             ? fmt::format("{}", b.device_count)
             : fmt::format("{} (from {})", b.device_count, b.count_source);
}

void print_devices(std::ostream& out, const std::vector<DeviceRow>& devices) {
  std::vector<std::vector<std::string>> rows;
  rows.push_back({"index", "name", "uuid", "pci bus id", "capability", "SMs", "MIG", "total memory",
                  "free memory"});
  for (const DeviceRow& row : devices) {
    const std::string capability =
        row.cc_major && row.cc_minor ? fmt::format("{}.{}", *row.cc_major, *row.cc_minor) : "-";
    rows.push_back({std::to_string(row.index), or_dash(row.name),
                    row.uuid ? short_uuid(*row.uuid) : "-", or_dash(row.pci_bus_id), capability,
                    or_dash(row.multiprocessors), or_dash(row.mig_mode),
                    row.total_bytes ? common::binary_size(*row.total_bytes) : "-",
                    row.free_bytes ? common::binary_size(*row.free_bytes) : "-"});
    // The error on its own line, under the name.
    if (row.error) rows.push_back({fmt::format("{:<{}}error: {}", "", 7, *row.error)});
  }
  print_table(out, printable_rows(std::move(rows)));
}

// A compiled backend that does not serve this process (Note [Which accelerator]): its
// own report, and its devices as a child `accel` that selected it listed them.
// A backend that counted no device is one line: there is nothing more to say of it.
void print_other_backend(std::ostream& out, const BackendSection& section) {
  const BackendReport& b = section.report;
  if (counted_no_device(b)) {
    out << common::printable(fmt::format("backend {} (not selected): {} (device count 0, from {})",
                                         b.backend, unavailable_text(b), b.count_source))
        << '\n';
    return;
  }
  out << fmt::format("backend {} (not selected; --backend {} selects it):\n", b.backend, b.backend);
  field(out, "  available", b.available ? "yes" : fmt::format("no ({})", unavailable_text(b)));
  if (!b.config_error.empty()) field(out, "  config error", b.config_error);
  // The files as the child that listed the devices saw them (it loaded them), else as
  // this process did.
  if (section.child_components) {
    for (const BackendComponent& c : *section.child_components) {
      field(out, "  " + c.role, component_text(c));
    }
  } else {
    // An available backend's files are loaded by the process that selects it, not this one.
    const std::string_view not_loaded = b.available ? "not loaded by this process" : "not loaded";
    for (const BackendComponent& c : b.components) {
      field(out, "  " + c.role, component_text(c, not_loaded));
    }
  }
  field(out, "  device count", count_text(b));
  if (section.devices_error) {
    field(out, "  devices", fmt::format("not listed: {}", *section.devices_error));
  } else if (section.devices) {
    out << "  devices:\n";
    std::ostringstream table;
    print_devices(table, *section.devices);
    std::istringstream lines(table.str());
    for (std::string line; std::getline(lines, line);) out << "  " << line << '\n';
  }
}

// The simulated hardware's settings (Note [Simulation settings] in info.cpp), when the
// simulation is in use (MOCKDEV_MACHINE set, as --machine sets it) or one of them is set:
// the value of each set variable, the rule that applies for each unset one.
void print_simulation(std::ostream& out, const InfoReport& report) {
  const bool machine =
      std::any_of(report.environment.begin(), report.environment.end(),
                  [](const EnvironmentValue& v) { return v.name == "MOCKDEV_MACHINE" && v.value; });
  const bool any_set = std::any_of(report.simulation.begin(), report.simulation.end(),
                                   [](const SimulationSetting& s) { return s.value.has_value(); });
  if (!machine && !any_set) return;
  bool first = true;
  for (const SimulationSetting& setting : report.simulation) {
    field(out, first ? "simulation" : "",
          setting.value ? fmt::format("{}={}", setting.name, *setting.value)
                        : fmt::format("{} unset: {}", setting.name, setting.default_text));
    first = false;
  }
}

}  // namespace

void render_text(const InfoReport& report, std::ostream& out) {
  const BackendReport& b = report.backend;
  out << fmt::format("accel {}\n", report.version);
  field(out, "build", build_line(report.build));
  // The variables in effect (after --machine set its own); unset ones only in --json.
  bool any_set = false;
  for (const EnvironmentValue& variable : report.environment) {
    if (!variable.value) continue;
    field(out, any_set ? "" : "environment", fmt::format("{}={}", variable.name, *variable.value));
    any_set = true;
  }
  if (!any_set)
    field(out, "environment", "(none set of CUDA_VISIBLE_DEVICES, ACCEL_*, MOCKDEV_MACHINE)");
  print_simulation(out, report);
  field(out, "backend",
        fmt::format("{} (compiled: {})", b.backend,
                    b.compiled_backends.empty()
                        ? "none"
                        : fmt::format("{}", fmt::join(b.compiled_backends, ", "))));
  if (report.machine)
    field(out, "machine", fmt::format("{} (simulated by mockdev)", *report.machine));
  field(out, "available", b.available ? "yes" : fmt::format("no ({})", unavailable_text(b)));
  // One line per component the backend loads, labelled with its role: any backend
  // renders without this program knowing which one it is.
  for (const BackendComponent& c : b.components) field(out, c.role, component_text(c));
  if (report.driver_version) field(out, "driver version", *report.driver_version);
  field(out, "device count", count_text(b));

  if (!b.available) {
    // The contract of `accel info` without a usable accelerator: say so, and that
    // programs following the device-selection pattern will run on the CPU.
    out << "fallback: cpu\n";
  } else {
    out << "devices:\n";
    print_devices(out, report.devices);
  }
  for (const BackendSection& section : report.backends) {
    if (!section.report.selected) print_other_backend(out, section);
  }
}

}  // namespace accel::tools
