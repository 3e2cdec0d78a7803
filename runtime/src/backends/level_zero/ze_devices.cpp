// The Level Zero backend's devices (ze_backend_impl.h): what initialize() learns of each
// chosen device (describe_device), the per-thread device, properties and capability.
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "backends/level_zero/ze_backend_impl.h"
#include "backends/level_zero/ze_device_facts.h"
#include "backends/level_zero/ze_status.h"

namespace accel::detail::level_zero {

namespace {

// This thread's device, valid for the backend with that id (ze_backend.h).
struct ThreadDevice {
  std::uint64_t backend_id = 0;
  int index = 0;
};
thread_local ThreadDevice t_device;

}  // namespace

Status LevelZeroBackend::describe_device(int index, ze_device_handle_t handle, ZeDevice* out) {
  const ZeApi& api = *loaded_api();
  out->handle = handle;
  // Ask with the _1_2 stype, so timerResolution is in ticks per second.
  out->core = ze_device_properties_t{};
  out->core.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES_1_2;
  ze_result_t rc = api.zeDeviceGetProperties(handle, &out->core);
  if (rc != ZE_RESULT_SUCCESS) return ze_status(rc, "initialize: zeDeviceGetProperties", index);
  out->timer_hz = out->core.timerResolution;
  out->kernel_timestamp_bits = out->core.kernelTimestampValidBits;
  out->integrated = (out->core.flags & ZE_DEVICE_PROPERTY_FLAG_INTEGRATED) != 0;

  std::uint32_t memory_count = 0;
  rc = api.zeDeviceGetMemoryProperties(handle, &memory_count, nullptr);
  if (rc != ZE_RESULT_SUCCESS) {
    return ze_status(rc, "initialize: zeDeviceGetMemoryProperties", index);
  }
  std::vector<ze_device_memory_properties_t> memory(memory_count);
  for (auto& entry : memory) entry.stype = ZE_STRUCTURE_TYPE_DEVICE_MEMORY_PROPERTIES;
  rc = api.zeDeviceGetMemoryProperties(handle, &memory_count, memory.data());
  if (rc != ZE_RESULT_SUCCESS) {
    return ze_status(rc, "initialize: zeDeviceGetMemoryProperties", index);
  }
  std::size_t total = 0;
  for (std::uint32_t i = 0; i < memory_count && i < memory.size(); ++i) {
    total += memory[i].totalSize;  // one entry on Intel's driver
  }

  std::uint32_t group_count = 0;
  rc = api.zeDeviceGetCommandQueueGroupProperties(handle, &group_count, nullptr);
  if (rc != ZE_RESULT_SUCCESS) {
    return ze_status(rc, "initialize: zeDeviceGetCommandQueueGroupProperties", index);
  }
  std::vector<ze_command_queue_group_properties_t> groups(group_count);
  for (auto& group : groups) group.stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_GROUP_PROPERTIES;
  rc = api.zeDeviceGetCommandQueueGroupProperties(handle, &group_count, groups.data());
  if (rc != ZE_RESULT_SUCCESS) {
    return ze_status(rc, "initialize: zeDeviceGetCommandQueueGroupProperties", index);
  }
  bool have_compute = false;
  for (std::uint32_t ordinal = 0; ordinal < group_count && ordinal < groups.size(); ++ordinal) {
    const auto flags = groups[ordinal].flags;
    if (!have_compute && (flags & ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COMPUTE)) {
      out->compute_ordinal = ordinal;  // the first compute group serves streams
      have_compute = true;
    }
    if (out->copy_ordinal == UINT32_MAX && (flags & ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COPY) &&
        !(flags & ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COMPUTE)) {
      out->copy_ordinal = ordinal;
    }
  }
  if (!have_compute) {
    return Status(ErrorKind::kDriver,
                  "initialize: device " + std::to_string(index) + " ('" + out->core.name +
                      "') has no compute queue group (" + std::to_string(group_count) +
                      " groups)");
  }

  ze_device_module_properties_t module{};
  module.stype = ZE_STRUCTURE_TYPE_DEVICE_MODULE_PROPERTIES;
  rc = api.zeDeviceGetModuleProperties(handle, &module);
  if (rc != ZE_RESULT_SUCCESS) {
    return ze_status(rc, "initialize: zeDeviceGetModuleProperties", index);
  }
  out->fp64 = (module.flags & ZE_DEVICE_MODULE_FLAG_FP64) != 0;

  DeviceProperties& properties = out->properties;
  properties.name = std::string(out->core.name, strnlen(out->core.name, ZE_MAX_DEVICE_NAME));
  // Level Zero has no compute capability; major/minor stay 0 (PyTorch's XPU reports none).
  properties.total_memory_bytes = total;
  // The streaming-multiprocessor analogue is the Xe core (sub-slice).
  properties.multi_processor_count =
      static_cast<int>(out->core.numSlices * out->core.numSubslicesPerSlice);
  properties.uuid = format_uuid(out->core.uuid.id);
  return Status();
}

Status LevelZeroBackend::set_device(int index) noexcept {
  t_device = ThreadDevice{id_, index};  // nothing to create: Level Zero has no current device
  return Status();
}

Status LevelZeroBackend::maybe_set_device(int index) noexcept { return set_device(index); }

Result<int> LevelZeroBackend::current_device() noexcept {
  return t_device.backend_id == id_ ? t_device.index : 0;
}

Result<DeviceProperties> LevelZeroBackend::device_properties(int index) noexcept {
  try {
    return device(index).properties;
  } catch (...) {
    return host_out_of_memory();
  }
}

Result<DeviceCapability> LevelZeroBackend::device_capability(int index) noexcept {
  try {
    DeviceCapability capability;
    capability.supported_dtypes = supported_dtypes(device(index).fp64);
    return capability;
  } catch (...) {
    return host_out_of_memory();
  }
}

}  // namespace accel::detail::level_zero
