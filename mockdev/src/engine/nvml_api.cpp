#include "engine/nvml_api.h"


#include <cstring>
#include <optional>
#include <string>

#include "engine/engine_state.h"

namespace mockdev::nvml {

using engine::EngineLock;
using engine::State;
using engine::state;

namespace {

bool nvml_ready(const State& s) { return s.nvml_refs > 0 && s.nvml_pid == engine::current_pid(); }

// Counts the call, applies call faults and (unless `needs_init` is false) the init gate.
std::optional<nvmlReturn_t> enter(State& s, std::string_view entry_point, bool needs_init = true) {
  if (std::optional<int> fault = engine::count_call(s, entry_point))
    return static_cast<nvmlReturn_t>(*fault);
  if (needs_init && !nvml_ready(s)) return NVML_ERROR_UNINITIALIZED;
  return std::nullopt;
}

// The physical device behind a handle the engine handed out, or nullopt.
std::optional<int> device_of(const State& s, nvmlDevice_t device) {
  for (std::size_t i = 0; i < s.devices.size(); ++i) {
    if (device != nullptr && s.devices[i].nvml_handle == device) return static_cast<int>(i);
  }
  return std::nullopt;
}

nvmlReturn_t copy_text(const std::string& text, char* out, unsigned int length) {
  if (out == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  if (length < text.size() + 1) return NVML_ERROR_INSUFFICIENT_SIZE;
  std::memcpy(out, text.c_str(), text.size() + 1);
  return NVML_SUCCESS;
}

}  // namespace

nvmlReturn_t nvml_init(const char* entry_point) {
  EngineLock lock;
  State& s = state();
  if (auto early = enter(s, entry_point, false)) return *early;
  if (s.config_error) return NVML_ERROR_UNKNOWN;
  if (s.nvml_init_error) return static_cast<nvmlReturn_t>(*s.nvml_init_error);
  if (s.nvml_pid != engine::current_pid()) {  // first init in this process (or a forked child)
    s.nvml_pid = engine::current_pid();
    s.nvml_refs = 0;
  }
  ++s.nvml_refs;
  return NVML_SUCCESS;
}

nvmlReturn_t nvml_shutdown() {
  EngineLock lock;
  State& s = state();
  if (auto early = enter(s, "nvmlShutdown")) return *early;
  --s.nvml_refs;
  return NVML_SUCCESS;
}

const char* nvml_error_string(nvmlReturn_t result) {
  {
    EngineLock lock;
    (void)engine::count_call(state(), "nvmlErrorString");  // a string cannot carry a fault
  }
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

nvmlReturn_t nvml_device_get_count(unsigned int* count) {
  EngineLock lock;
  State& s = state();
  if (auto early = enter(s, "nvmlDeviceGetCount_v2")) return *early;
  if (count == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  *count = static_cast<unsigned int>(s.machine.devices.size());
  return NVML_SUCCESS;
}

nvmlReturn_t nvml_device_get_handle_by_index(unsigned int index, nvmlDevice_t* device) {
  EngineLock lock;
  State& s = state();
  if (auto early = enter(s, "nvmlDeviceGetHandleByIndex_v2")) return *early;
  if (device == nullptr || index >= s.devices.size()) return NVML_ERROR_INVALID_ARGUMENT;
  *device = s.devices[index].nvml_handle;
  return NVML_SUCCESS;
}

nvmlReturn_t nvml_device_get_uuid(nvmlDevice_t device, char* uuid, unsigned int length) {
  EngineLock lock;
  State& s = state();
  if (auto early = enter(s, "nvmlDeviceGetUUID")) return *early;
  std::optional<int> p = device_of(s, device);
  if (!p) return NVML_ERROR_INVALID_ARGUMENT;
  return copy_text(s.machine.devices[static_cast<std::size_t>(*p)].uuid, uuid, length);
}

nvmlReturn_t nvml_device_get_name(nvmlDevice_t device, char* name, unsigned int length) {
  EngineLock lock;
  State& s = state();
  if (auto early = enter(s, "nvmlDeviceGetName")) return *early;
  std::optional<int> p = device_of(s, device);
  if (!p) return NVML_ERROR_INVALID_ARGUMENT;
  return copy_text(s.machine.devices[static_cast<std::size_t>(*p)].name, name, length);
}

nvmlReturn_t nvml_device_get_memory_info(nvmlDevice_t device, nvmlMemory_t* memory) {
  EngineLock lock;
  State& s = state();
  if (auto early = enter(s, "nvmlDeviceGetMemoryInfo")) return *early;
  std::optional<int> p = device_of(s, device);
  if (!p || memory == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  const std::uint64_t total = s.machine.devices[static_cast<std::size_t>(*p)].memory_bytes;
  const std::uint64_t used = s.devices[static_cast<std::size_t>(*p)].used_bytes;
  memory->total = total;
  memory->used = used;
  memory->free = total - used;
  return NVML_SUCCESS;
}

}  // namespace mockdev::nvml
