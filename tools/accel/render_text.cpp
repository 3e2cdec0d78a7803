// render_text and format_bytes (declared in render.h).
#include <algorithm>
#include <array>
#include <cstdio>
#include <string_view>
#include <vector>

#include "render.h"

namespace accel::tools {
namespace {

// 13000 -> "13.0", 12040 -> "12.4" (the driver's encoding: 1000 * major + 10 * minor).
std::string driver_version_string(int version) {
  return std::to_string(version / 1000) + "." + std::to_string((version % 1000) / 10);
}

std::string join(const std::vector<std::string>& items, std::string_view separator) {
  std::string joined;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i != 0) joined += separator;
    joined += items[i];
  }
  return joined;
}

void field(std::ostream& out, std::string_view label, const std::string& value) {
  out << label << ':';
  for (std::size_t pad = label.size() + 1; pad < 15; ++pad) out << ' ';
  out << value << '\n';
}

// Left-aligned columns, two spaces apart.
void print_table(std::ostream& out, const std::vector<std::vector<std::string>>& rows) {
  std::vector<std::size_t> widths;
  for (const auto& row : rows) {
    widths.resize(std::max(widths.size(), row.size()), 0);
    for (std::size_t c = 0; c < row.size(); ++c) widths[c] = std::max(widths[c], row[c].size());
  }
  for (const auto& row : rows) {
    std::string line = "  ";
    for (std::size_t c = 0; c < row.size(); ++c) {
      line += row[c];
      if (c + 1 < row.size()) line += std::string(widths[c] - row[c].size() + 2, ' ');
    }
    out << line << '\n';
  }
}

}  // namespace

std::string format_bytes(std::uint64_t bytes) {
  static constexpr std::array<const char*, 5> kUnits = {"KiB", "MiB", "GiB", "TiB", "PiB"};
  if (bytes < 1024) return std::to_string(bytes) + " B";
  double value = static_cast<double>(bytes) / 1024.0;
  std::size_t unit = 0;
  while (value >= 1024.0 && unit + 1 < kUnits.size()) {
    value /= 1024.0;
    ++unit;
  }
  char text[32];
  std::snprintf(text, sizeof text, "%.2f %s", value, kUnits[unit]);
  return text;
}

void render_text(const InfoReport& report, std::ostream& out) {
  const BackendReport& b = report.backend;
  out << "accel " << report.version << '\n';
  field(out, "backend",
        b.backend + " (compiled: " +
            (b.compiled_backends.empty() ? "none" : join(b.compiled_backends, ", ")) + ")");
  if (report.machine) field(out, "machine", *report.machine + " (simulated by mockdev)");
  field(out, "available", b.available ? "yes" : "no (" + b.unavailable_reason + ")");
  if (b.backend != "none") {
    std::string driver = b.driver_path.empty() ? "(none)" : b.driver_path;
    driver += b.driver_loaded ? " (loaded" : " (not loaded)";
    if (b.driver_loaded) {
      if (b.driver_version != 0) driver += ", version " + driver_version_string(b.driver_version);
      driver += ")";
    }
    field(out, "driver", driver);
    std::string nvml = b.nvml_path.empty() ? "(none)" : b.nvml_path;
    nvml += b.nvml_loaded ? " (loaded)" : " (not loaded)";
    field(out, "nvml", nvml);
  }
  field(out, "device count",
        std::to_string(b.device_count) + (b.count_source.empty() || b.count_source == "none"
                                              ? ""
                                              : " (from " + b.count_source + ")"));

  if (!b.available) {
    // The contract of `accel info` without a usable accelerator: say so, and that
    // programs following the device-selection pattern will run on the CPU.
    out << "fallback: cpu\n";
    return;
  }

  out << "devices:\n";
  std::vector<std::vector<std::string>> rows;
  rows.push_back({"index", "name", "capability", "total memory", "free memory"});
  for (const DeviceRow& row : report.devices) {
    if (!row.error.empty()) {
      rows.push_back({std::to_string(row.index), "error: " + row.error});
      continue;
    }
    rows.push_back({std::to_string(row.index), row.name,
                    std::to_string(row.cc_major) + "." + std::to_string(row.cc_minor),
                    format_bytes(row.total_bytes), format_bytes(row.free_bytes)});
  }
  print_table(out, rows);
}

}  // namespace accel::tools
