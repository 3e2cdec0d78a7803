#pragma once
// What `accel info` reports, collected through the public runtime API only.
//
// collect_info() asks backend_report() first (which never initialises the runtime), and
// only when the accelerator is available walks the devices with get_device_properties()
// and get_memory_info(), which do initialise it. A failure on one device is recorded in
// its row rather than aborting the report. Values only; call from one thread.

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "accel/accelerator.h"

namespace accel::tools {

struct DeviceRow {
  int index = 0;
  std::string name;
  int cc_major = 0;
  int cc_minor = 0;
  std::size_t total_bytes = 0;
  std::size_t free_bytes = 0;
  std::string uuid;
  std::string error;  // non-empty when this device could not be queried
};

struct InfoReport {
  std::string version;                 // accel::kVersionString
  BackendReport backend;               // accel::backend_report()
  std::optional<std::string> machine;  // the simulated machine's source, with --machine
  std::vector<DeviceRow> devices;      // empty when unavailable
  int current_device = -1;             // after the walk; -1 when unavailable

  // True when any device row carries an error.
  bool has_errors() const;
};

// Collects the report. Never throws for runtime errors: they land in the rows.
InfoReport collect_info(std::optional<std::string> machine_source);

}  // namespace accel::tools
