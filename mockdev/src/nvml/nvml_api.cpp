// The work of each simulated NVML entry point (impl:: in nvml_api.h); counting, call
// faults and the init gate happened before (nvml_entry.cpp).

#include "nvml/nvml_api.h"

#include <cstring>
#include <optional>
#include <string>

#include "core/engine.h"
#include "core/memory.h"
#include "nvml/nvml_state.h"

namespace mockdev::nvml::impl {
namespace {

nvmlReturn_t init() MOCKDEV_REQUIRES(core::g_engine_mutex) {
  if (core::engine().config_error) return NVML_ERROR_UNKNOWN;
  if (std::optional<int> code = core::init_error(Api::kNvml))
    return static_cast<nvmlReturn_t>(*code);
  NvmlState& s = nvml_state();
  if (s.pid != core::current_pid()) {  // first init in this process (or a forked child)
    s.pid = core::current_pid();
    s.refs = 0;
  }
  ++s.refs;
  return NVML_SUCCESS;
}

nvmlReturn_t copy_text(const std::string& text, char* out, unsigned int length) {
  if (out == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  if (length < text.size() + 1) return NVML_ERROR_INSUFFICIENT_SIZE;
  std::memcpy(out, text.c_str(), text.size() + 1);
  return NVML_SUCCESS;
}

const DeviceSpec& spec(int physical) MOCKDEV_REQUIRES(core::g_engine_mutex) {
  return core::engine().machine.devices[static_cast<std::size_t>(physical)];
}

}  // namespace

nvmlReturn_t nvmlInit() { return init(); }
nvmlReturn_t nvmlInit_v2() { return init(); }

nvmlReturn_t nvmlShutdown() {
  --nvml_state().refs;
  return NVML_SUCCESS;
}

const char* nvmlErrorString(nvmlReturn_t result) {
  switch (result) {
    case NVML_SUCCESS:
      return "Success";
    case NVML_ERROR_UNINITIALIZED:
      return "Uninitialized";
    case NVML_ERROR_INVALID_ARGUMENT:
      return "Invalid Argument";
    case NVML_ERROR_NOT_SUPPORTED:
      return "Not Supported";
    case NVML_ERROR_NOT_FOUND:
      return "Not Found";
    case NVML_ERROR_INSUFFICIENT_SIZE:
      return "Insufficient Size";
    case NVML_ERROR_DRIVER_NOT_LOADED:
      return "Driver Not Loaded";
    case NVML_ERROR_GPU_IS_LOST:
      return "GPU is lost";
    case NVML_ERROR_UNKNOWN:
      return "Unknown Error";
    default:
      break;
  }
  switch (result) {
#define MOCKDEV_NVML_TEXT(name, value) \
  case value:                          \
    return "simulated NVML error " #name;
    ACCEL_NVML_RETURNS(MOCKDEV_NVML_TEXT)
#undef MOCKDEV_NVML_TEXT
  }
  return "Unknown Error";
}

nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int* count) {
  if (count == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  // The NVIDIA devices only (nvml_state.cpp): Intel devices are Level Zero's.
  *count = static_cast<unsigned int>(nvml_state().handles.size());
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t* device) {
  const NvmlState& s = nvml_state();
  if (device == nullptr || index >= s.handles.size()) return NVML_ERROR_INVALID_ARGUMENT;
  *device = s.handles[index];
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t device, char* uuid, unsigned int length) {
  std::optional<int> p = device_of(device);
  if (!p) return NVML_ERROR_INVALID_ARGUMENT;
  return copy_text(spec(*p).uuid, uuid, length);
}

nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t device, char* name, unsigned int length) {
  std::optional<int> p = device_of(device);
  if (!p) return NVML_ERROR_INVALID_ARGUMENT;
  return copy_text(spec(*p).name, name, length);
}

nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t device, nvmlMemory_t* memory) {
  std::optional<int> p = device_of(device);
  if (!p || memory == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  const std::uint64_t total = spec(*p).memory_bytes;
  const std::uint64_t used = core::used_bytes(*p);
  memory->total = total;
  memory->used = used;
  memory->free = total - used;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetHandleByUUID(const char* uuid, nvmlDevice_t* device) {
  if (uuid == nullptr || device == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  const NvmlState& s = nvml_state();
  for (accel::nvml_abi::nvmlDevice_st* handle : s.handles) {
    if (spec(handle->physical_device).uuid == uuid) {
      *device = handle;
      return NVML_SUCCESS;
    }
  }
  return NVML_ERROR_NOT_FOUND;
}

// Every simulated device supports MIG; a device whose machine file gives a mig_uuid is in
// MIG mode, with nothing pending (current and pending modes are equal).
nvmlReturn_t nvmlDeviceGetMigMode(nvmlDevice_t device, unsigned int* current_mode,
                                  unsigned int* pending_mode) {
  std::optional<int> p = device_of(device);
  if (!p || current_mode == nullptr || pending_mode == nullptr) {
    return NVML_ERROR_INVALID_ARGUMENT;
  }
  unsigned int mode = spec(*p).mig_uuid.empty() ? kDeviceMigDisable : kDeviceMigEnable;
  *current_mode = mode;
  *pending_mode = mode;
  return NVML_SUCCESS;
}

// The simulated driver has no release number of its own: "mock-<major>.<minor>" of the
// machine's driver_version ("mock-13.0" for 13000), documented in docs/MACHINE_FILES.md.
nvmlReturn_t nvmlSystemGetDriverVersion(char* version, unsigned int length) {
  const int v = core::engine().machine.driver_version;
  return copy_text("mock-" + std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10),
                   version, length);
}

}  // namespace mockdev::nvml::impl
