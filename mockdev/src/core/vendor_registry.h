#pragma once
// The vendor APIs the simulated hardware serves, as data: one row per adapter, so the
// machine-file reader, the control API, the engine and the race detector walk the rows
// instead of naming CUDA, NVML or Level Zero. Pure data and lookups; thread-safe (the rows
// are constants; only the hooks need the engine lock).
//
// Note [Vendor registry]
// Each adapter folder (cuda/, nvml/, level_zero/) defines one ApiRow in its
// registration.cpp, `mockdev::<api>::kApiRow`. mockdev/CMakeLists.txt lists the
// adapters (MOCKDEV_APIS) and generates the table of them (core/api_table.cpp.in), as the
// runtime generates its backend table, so no source below the adapters names one. The rows
// and the table are constant-initialised (constinit: string views, spans over constexpr
// arrays, function pointers), so there is no static-initialisation order to get wrong and
// nothing runs at load time (tests check the driver files have no load-time constructors).
// The rows are looked up by Api and walked in Api order, so the order of MOCKDEV_APIS does
// not matter; the generated table checks it has kApiCount rows.
// A row must exist whether or not the adapter's driver is built (the Level Zero driver needs
// libze-dev): machine files name every API's entry points and codes either way, so a
// registration file uses no vendor header; a hook is nullptr when its driver is not built.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/live_object.h"
#include "mockdev/machine.h"

namespace mockdev::core {

// A result code as machine files spell it ("CUDA_ERROR_OUT_OF_MEMORY") and its value.
struct ResultCodeName {
  std::string_view name;
  int value = 0;
};

// An entry point as faults and call counts name it: `symbol` is the exported name, under
// which calls are counted; `base` the name error messages and cuGetProcAddress use (equal
// to `symbol` for APIs without versioned symbols).
struct EntryPointName {
  std::string_view symbol;
  std::string_view base;
};

// Who made a device, as machine files spell it.
struct VendorRow {
  Vendor vendor;
  std::string_view name;     // `vendor:` in a machine file: "nvidia"
  std::string_view display;  // in messages: "NVIDIA"
};

// The keys of a device's `attributes:` map, for an API whose devices have them (CUDA's
// CUdevice_attribute, cuda/device_attributes.h). Pure functions.
struct DeviceAttributeKeys {
  std::optional<int> (*from_key)(std::string_view key);             // the attribute, or nullopt
  std::vector<std::string> (*close_keys)(std::string_view key);     // nearest known keys
  std::optional<std::string_view> (*fixed_by)(int attribute);       // the key that sets it
};

struct ApiRow {
  Api api;
  std::string_view name;         // in machine files: "cuda", "nvml", "level_zero"
  std::string_view code_family;  // the prefix of its code names in messages: "CUDA"
  std::span<const ResultCodeName> codes;
  bool hex_codes = false;         // codes may also be written in hex (ze_result_t: 0x78000001)
  std::string_view init_fault;    // its key under `faults:`: "driver_init"
  std::optional<int> FaultSchedule::*init_error = nullptr;  // where that key is read into
  std::span<const EntryPointName> entry_points;
  // The vendor whose devices its calls touch, for sticky errors; nullopt for an API with no
  // device-touching calls (NVML).
  std::optional<Vendor> touches_devices_of;
  // The `attributes:` keys of its vendor's devices; nullptr when it has none.
  const DeviceAttributeKeys* device_attributes = nullptr;
  std::string_view facade;  // the driver file's name: "libcuda.so.1"
  // True when the API is initialised in this very process (engine lock held); nullptr when
  // the adapter's driver is not built (then never initialised).
  bool (*initialized)() = nullptr;
  // Appends what the program made through this API in this process and has not destroyed
  // (engine lock held; called only when `initialized` says so): Note [Leak report] in
  // core/leak_report.h. nullptr when the driver is not built or makes no objects (NVML).
  void (*live_objects)(LiveObjects& out) = nullptr;
  // The engine queue (core/timeline.h) of `native_queue`, a queue handle this API handed the
  // program in this process and has not destroyed (a CUstream, an immediate list's
  // ze_command_list_handle_t); nullopt for any other value, which it never dereferences
  // (engine lock held; called only when `initialized` says so). How the runtime's names for
  // its queues reach the engine: Note [Runtime names] in core/runtime_tool.h. nullptr when
  // the driver is not built or has no queues (NVML).
  std::optional<std::uint64_t> (*queue_of_handle)(const void* native_queue) = nullptr;
};

// The row of `api` (every Api has exactly one).
const ApiRow& api_row(Api api);

// Every row, in Api order.
struct ApiRows {
  struct Iterator {
    int index;
    const ApiRow& operator*() const { return api_row(static_cast<Api>(index)); }
    Iterator& operator++() {
      ++index;
      return *this;
    }
    bool operator!=(const Iterator& other) const { return index != other.index; }
  };
  Iterator begin() const { return {0}; }
  Iterator end() const { return {kApiCount}; }
};
inline constexpr ApiRows kApiRows{};

// Every vendor, in Vendor order, and the row of one.
std::span<const VendorRow> vendor_rows();
const VendorRow& vendor_row(Vendor vendor);

// The generated table (core/api_table.cpp.in): every registered row, in MOCKDEV_APIS order.
std::span<const ApiRow* const> registered_api_rows();

}  // namespace mockdev::core
