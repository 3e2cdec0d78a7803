#include "info.h"

#include <exception>
#include <utility>

#include "accel/error.h"
#include "accel/version.h"

namespace accel::tools {

bool InfoReport::has_errors() const {
  for (const DeviceRow& row : devices) {
    if (!row.error.empty()) return true;
  }
  return false;
}

InfoReport collect_info(std::optional<std::string> machine_source) {
  InfoReport report;
  report.version = kVersionString;
  report.machine = std::move(machine_source);
  report.backend = backend_report();
  if (!report.backend.available) return report;

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
      row.total_bytes = props.total_memory_bytes;
      row.uuid = props.uuid;
      const MemoryInfo memory = get_memory_info(i);
      row.free_bytes = memory.free_bytes;
      if (memory.total_bytes != 0) row.total_bytes = memory.total_bytes;
    } catch (const std::exception& e) {
      row.error = e.what();
    }
    report.devices.push_back(std::move(row));
  }
  try {
    report.current_device = current_device_index();
  } catch (const std::exception&) {
    report.current_device = -1;
  }
  return report;
}

}  // namespace accel::tools
