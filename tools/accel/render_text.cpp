// render_text and format_bytes (declared in render.h).
#include <algorithm>
#include <array>
#include <cstdio>
#include <string_view>
#include <vector>

#include "render.h"

namespace accel::tools {
namespace {

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
  // One line per component the backend loads, labelled with its role: any backend
  // renders without this program knowing which one it is.
  for (const BackendComponent& c : b.components) {
    std::string line = c.path.empty() ? "(none)" : c.path;
    if (!c.loaded) {
      line += " (not loaded)";
    } else {
      line += c.version.empty() ? " (loaded)" : " (loaded, version " + c.version + ")";
    }
    field(out, c.role, line);
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
