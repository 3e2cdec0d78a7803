#include "engine/driver_api.h"


#include <cstdlib>
#include <cstring>

#include "engine/device_ids.h"
#include "engine/driver_call.h"
#include "engine/engine_state.h"
#include "engine/visible_devices.h"

namespace mockdev::driver {

using engine::EngineLock;
using engine::State;
using engine::state;

std::optional<CUresult> enter(State& s, std::string_view entry_point, NeedsInit needs_init) {
  std::optional<int> fault = engine::count_call(s, entry_point);
  if (engine::in_forked_child(s)) return CUDA_ERROR_NOT_INITIALIZED;
  if (fault) return static_cast<CUresult>(*fault);
  if (needs_init == NeedsInit::kYes && !engine::driver_ready(s)) return CUDA_ERROR_NOT_INITIALIZED;
  return std::nullopt;
}

std::optional<int> physical_device(const State& s, CUdevice dev) {
  if (dev < 0 || static_cast<std::size_t>(dev) >= s.visible.size()) return std::nullopt;
  return s.visible[static_cast<std::size_t>(dev)];
}

CUresult cu_init(unsigned int flags) {
  EngineLock lock;
  State& s = state();
  if (auto early = enter(s, "cuInit", NeedsInit::kNo)) return *early;
  if (flags != 0) return CUDA_ERROR_INVALID_VALUE;
  if (engine::driver_ready(s)) return CUDA_SUCCESS;
  // A machine that could not be loaded: Note [Configuration errors] in docs/MACHINE_FILES.md.
  if (s.config_error) return CUDA_ERROR_INVALID_VALUE;
  if (s.driver_init_error) return static_cast<CUresult>(*s.driver_init_error);
  const char* env = std::getenv("CUDA_VISIBLE_DEVICES");
  std::vector<int> visible = engine::resolve_visible_devices(
      env ? std::optional<std::string_view>(env) : std::nullopt, s.machine.devices);
  if (visible.empty()) return CUDA_ERROR_NO_DEVICE;
  s.visible = std::move(visible);
  s.initialized = true;
  s.init_pid = engine::current_pid();
  return CUDA_SUCCESS;
}

CUresult cu_driver_get_version(int* driver_version) {
  EngineLock lock;
  State& s = state();
  if (auto early = enter(s, "cuDriverGetVersion", NeedsInit::kNo)) return *early;
  if (driver_version == nullptr) return CUDA_ERROR_INVALID_VALUE;
  *driver_version = s.machine.driver_version;
  return CUDA_SUCCESS;
}

namespace {

CUresult error_text(const char* entry_point, CUresult error, const char** str, bool name) {
  EngineLock lock;
  State& s = state();
  if (auto early = enter(s, entry_point, NeedsInit::kNo)) return *early;
  if (str == nullptr) return CUDA_ERROR_INVALID_VALUE;
  *str = name ? result_name(error) : result_description(error);
  return *str == nullptr ? CUDA_ERROR_INVALID_VALUE : CUDA_SUCCESS;
}

}  // namespace

CUresult cu_get_error_name(CUresult error, const char** str) {
  return error_text("cuGetErrorName", error, str, true);
}

CUresult cu_get_error_string(CUresult error, const char** str) {
  return error_text("cuGetErrorString", error, str, false);
}

CUresult cu_device_get_count(int* count) {
  EngineLock lock;
  State& s = state();
  if (auto early = enter(s, "cuDeviceGetCount", NeedsInit::kYes)) return *early;
  if (count == nullptr) return CUDA_ERROR_INVALID_VALUE;
  *count = static_cast<int>(s.visible.size());
  return CUDA_SUCCESS;
}

CUresult cu_device_get(CUdevice* device, int ordinal) {
  EngineLock lock;
  State& s = state();
  if (auto early = enter(s, "cuDeviceGet", NeedsInit::kYes)) return *early;
  if (device == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (!physical_device(s, ordinal)) return CUDA_ERROR_INVALID_DEVICE;
  *device = ordinal;
  return CUDA_SUCCESS;
}

CUresult cu_device_get_name(char* name, int len, CUdevice dev) {
  EngineLock lock;
  State& s = state();
  if (auto early = enter(s, "cuDeviceGetName", NeedsInit::kYes)) return *early;
  if (name == nullptr || len <= 0) return CUDA_ERROR_INVALID_VALUE;
  std::optional<int> p = physical_device(s, dev);
  if (!p) return CUDA_ERROR_INVALID_DEVICE;
  // Like the driver, a short buffer gets a truncated, terminated name.
  const std::string& text = s.machine.devices[*p].name;
  std::size_t n = std::min(text.size(), static_cast<std::size_t>(len) - 1);
  std::memcpy(name, text.data(), n);
  name[n] = '\0';
  return CUDA_SUCCESS;
}

CUresult cu_device_get_attribute(int* value, CUdevice_attribute attrib, CUdevice dev) {
  EngineLock lock;
  State& s = state();
  if (auto early = enter(s, "cuDeviceGetAttribute", NeedsInit::kYes)) return *early;
  if (value == nullptr) return CUDA_ERROR_INVALID_VALUE;
  std::optional<int> p = physical_device(s, dev);
  if (!p) return CUDA_ERROR_INVALID_DEVICE;
  const DeviceSpec& d = s.machine.devices[*p];
  switch (attrib) {
    case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT:
      *value = d.multiprocessor_count;
      return CUDA_SUCCESS;
    case CU_DEVICE_ATTRIBUTE_INTEGRATED:
      *value = 0;
      return CUDA_SUCCESS;
    case CU_DEVICE_ATTRIBUTE_PCI_BUS_ID:
      *value = engine::pci_bus_number(d.pci_bus_id);
      return CUDA_SUCCESS;
    case CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID:
      *value = engine::pci_device_number(d.pci_bus_id);
      return CUDA_SUCCESS;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR:
      *value = d.cc_major;
      return CUDA_SUCCESS;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR:
      *value = d.cc_minor;
      return CUDA_SUCCESS;
  }
  return CUDA_ERROR_INVALID_VALUE;  // an attribute the simulated device does not model
}

CUresult cu_device_total_mem(std::size_t* bytes, CUdevice dev) {
  EngineLock lock;
  State& s = state();
  if (auto early = enter(s, "cuDeviceTotalMem_v2", NeedsInit::kYes)) return *early;
  if (bytes == nullptr) return CUDA_ERROR_INVALID_VALUE;
  std::optional<int> p = physical_device(s, dev);
  if (!p) return CUDA_ERROR_INVALID_DEVICE;
  *bytes = s.machine.devices[*p].memory_bytes;
  return CUDA_SUCCESS;
}

CUresult cu_device_get_uuid(CUuuid* uuid, CUdevice dev) {
  EngineLock lock;
  State& s = state();
  if (auto early = enter(s, "cuDeviceGetUuid_v2", NeedsInit::kYes)) return *early;
  if (uuid == nullptr) return CUDA_ERROR_INVALID_VALUE;
  std::optional<int> p = physical_device(s, dev);
  if (!p) return CUDA_ERROR_INVALID_DEVICE;
  auto bytes = engine::uuid_bytes(s.machine.devices[*p].uuid);
  if (!bytes) return CUDA_ERROR_UNKNOWN;  // the parser guarantees a valid UUID
  std::memcpy(uuid->bytes, bytes->data(), bytes->size());
  return CUDA_SUCCESS;
}

CUresult cu_get_proc_address_check(const char* entry_point, const char* symbol, void** pfn,
                                   int cuda_version, cuuint64_t flags) {
  EngineLock lock;
  State& s = state();
  if (auto early = enter(s, entry_point, NeedsInit::kNo)) return *early;
  if (symbol == nullptr || pfn == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (flags > CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) return CUDA_ERROR_INVALID_VALUE;
  if (cuda_version > s.machine.driver_version) return CUDA_ERROR_INVALID_VALUE;
  return CUDA_SUCCESS;
}

const char* result_description(int code) {
  switch (code) {
    case CUDA_SUCCESS:
      return "no error";
    case CUDA_ERROR_INVALID_VALUE:
      return "invalid argument";
    case CUDA_ERROR_OUT_OF_MEMORY:
      return "out of memory";
    case CUDA_ERROR_NOT_INITIALIZED:
      return "initialization error";
    case CUDA_ERROR_DEINITIALIZED:
      return "driver shutting down";
    case CUDA_ERROR_STUB_LIBRARY:
      return "stub driver library, no real driver";
    case CUDA_ERROR_NO_DEVICE:
      return "no CUDA-capable device is detected";
    case CUDA_ERROR_INVALID_DEVICE:
      return "invalid device ordinal";
    case CUDA_ERROR_INVALID_CONTEXT:
      return "invalid device context";
    case CUDA_ERROR_ECC_UNCORRECTABLE:
      return "uncorrectable ECC error encountered";
    case CUDA_ERROR_ILLEGAL_ADDRESS:
      return "an illegal memory access was encountered";
    case CUDA_ERROR_LAUNCH_FAILED:
      return "unspecified launch failure";
    case CUDA_ERROR_NOT_SUPPORTED:
      return "operation not supported";
    case CUDA_ERROR_UNKNOWN:
      return "unknown error";
  }
  // Every other known code: a generic text naming it.
  switch (code) {
#define MOCKDEV_GENERIC_TEXT(name, value) \
  case value:                             \
    return "simulated driver error " #name;
    ACCEL_CUDA_RESULTS(MOCKDEV_GENERIC_TEXT)
#undef MOCKDEV_GENERIC_TEXT
  }
  return nullptr;
}

}  // namespace mockdev::driver
