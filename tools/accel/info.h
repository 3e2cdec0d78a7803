#pragma once
// What `accel info` reports, collected through the public runtime API only.
//
// collect_info() asks backend_report() first (which never initialises the runtime), then,
// whenever a backend serves the process, one call that needs the device (it initialises
// the runtime, which this tool may do), and only when that works walks the devices with
// get_device_properties() and get_memory_info(). A failure on one device is recorded in its
// row (the row keeps what was learned before the failure, its name included) rather than
// aborting the report. A configuration or driver error (Note [Configuration errors] in
// info.cpp) is never a row: it is the report's `error`, and the tool exits 2. Values only;
// call from one thread.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "accel/accelerator.h"

namespace accel::tools {

// Unknowns are nullopt (rendered "-" in text, null in JSON), never empty strings.
struct DeviceRow {
  int index = 0;
  std::optional<std::string> name;
  std::optional<std::string> uuid;  // "GPU-1c9b5fc9-5afc-10bc-fbe1-e7d2b016d148"
  // PCI bus id ("00000000:00:06.0", DeviceProperties::pci_bus_id) and MIG mode
  // ("Enabled"/"Disabled" as nvidia-smi prints it, from DeviceProperties::mig_enabled).
  std::optional<std::string> pci_bus_id;
  std::optional<std::string> mig_mode;
  std::optional<int> cc_major;
  std::optional<int> cc_minor;
  std::optional<int> multiprocessors;
  std::optional<std::uint64_t> total_bytes;
  std::optional<std::uint64_t> free_bytes;
  std::optional<std::string> error;  // set when this device could not be fully queried
};

// How this `accel` was built (compile-time facts from CMake).
struct BuildInfo {
  std::string compiler;    // "GNU 12.2.0"
  std::string build_type;  // "RelWithDebInfo"; "" when the generator sets none
  // The compiled backends by the names ACCEL_BACKEND and `--backend` take ("cuda", "xpu"):
  // collect_info() takes them from the runtime, so the build line and the backend line
  // name them alike (build_info() alone has CMake's folder names, "level_zero").
  std::vector<std::string> backends;
  bool cuda_abi_checked = false;  // the CUDA ABI header was checked against cuda.h
};

// One environment variable that decides what the runtime does, and its value in effect
// (after --machine set its variables); nullopt when unset.
struct EnvironmentValue {
  std::string name;
  std::optional<std::string> value;
};

// One compiled backend (accel::backend_reports()). The selected one's devices are the
// report's `devices`; another backend's devices are listed by a child `accel` process
// that selects it (Note [Other backends' devices] in info.cpp), nullopt when not asked.
struct BackendSection {
  BackendReport report;
  std::optional<std::vector<DeviceRow>> devices;
  std::optional<std::string> devices_error;  // why the child could not list them
  // The backend's files as the child that listed `devices` saw them (it selected the
  // backend, so it loaded them); nullopt when no child ran. This process never loads a
  // backend it does not select, so its own report says "not loaded" for them.
  std::optional<std::vector<BackendComponent>> child_components;
};

// One setting of the simulated hardware (Note [Simulation settings] in info.cpp): the
// variable, its value when set, and what applies when it is not.
struct SimulationSetting {
  std::string name;                  // "MOCKDEV_SCHEDULE"
  std::optional<std::string> value;  // nullopt when unset
  std::string default_text;          // "the machine file's streams.schedule, else eager"
};

// What keeps the accelerator from working (Note [Configuration errors] in info.cpp).
struct InfoError {
  ErrorKind kind = ErrorKind::kConfig;
  std::string message;       // accel::Error's text
  std::string driver_error;  // the driver's error name, e.g. "CUDA_ERROR_INVALID_VALUE"; or ""
};

struct InfoReport {
  std::string version;  // accel::kVersionString
  BuildInfo build;
  std::vector<EnvironmentValue> environment;
  std::vector<SimulationSetting> simulation;  // always the four, set or not
  BackendReport backend;                      // accel::backend_report()
  std::vector<BackendSection> backends;       // every compiled backend, in ACCEL_BACKENDS order
  std::optional<std::string> machine;         // the --machine value, when given
  // The driver's own version as the vendor prints it ("580.159.04",
  // BackendReport::driver_release); the driver component's `version` is the CUDA API level.
  std::optional<std::string> driver_version;
  std::vector<DeviceRow> devices;  // empty when unavailable
  std::optional<int> current_device;
  // When nothing is installed: why a call that needs the device failed (accel::Error's
  // message, kUnavailable, and its driver error name); nullopt when none failed.
  std::optional<std::string> init_error;
  std::optional<std::string> init_error_name;
  // A configuration or driver error: the tool shows it first and exits 2. Then
  // backend.available is false and no device is listed.
  std::optional<InfoError> error;

  // True when any device row carries an error.
  bool has_errors() const;
};

// The build this program was compiled in.
BuildInfo build_info();

// The LISTED variables of accel_common/environment_variables.def (CUDA_VISIBLE_DEVICES,
// MOCKDEV_MACHINE, the ACCEL_* variables the runtime reads, ...: each listed, set or not, in
// the table's order), then any other ACCEL_* variable that is set, in name order.
std::vector<EnvironmentValue> environment_in_effect();

// MOCKDEV_SCHEDULE, MOCKDEV_SEED, MOCKDEV_RACES, MOCKDEV_LEAKS, MOCKDEV_TRACE, in that order, each with its
// value in this process's environment and its default.
std::vector<SimulationSetting> simulation_in_effect();

// Whether `report` is a backend that counted its devices and found none, with nothing
// wrong: not available, no configuration error, and a count that was made (count_source
// other than "none"). A count that could not be made (a driver that cannot be loaded, a
// probe that failed) is not "no device": its reason says what went wrong.
bool counted_no_device(const BackendReport& report);

// "GPU-1c9b5fc9" from "GPU-1c9b5fc9-5afc-...": the prefix and the first 8 hex digits, the
// way a person tells devices apart; a UUID without dashes is returned whole.
std::string short_uuid(const std::string& uuid);

// Collects the report. Per-device failures land in the rows; a configuration or driver
// error is the report's `error` (see the file comment); never throws accel::Error. With
// walk_devices=false (`accel info --count`) the device rows are not queried: backend.device_count
// is the answer. With walk_others, each other available backend's devices are listed through a
// child `accel` process.
InfoReport collect_info(std::optional<std::string> machine, bool walk_devices = true,
                        bool walk_others = false);

// The device rows of `accel info --json` output (its "devices" array); nullopt when the
// text is not such output.
std::optional<std::vector<DeviceRow>> parse_device_rows(const std::string& json_text);

}  // namespace accel::tools
