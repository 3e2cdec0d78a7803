// Device queries of the simulated driver (declared in driver_api.h): count, ordinal, name,
// attributes, total memory, UUID. They read the core's machine through the CUDA adapter's
// visible-device map; none touches the device (sticky errors do not apply).

#include <algorithm>
#include <cstring>

#include "core/device_ids.h"
#include "core/engine.h"
#include "cuda/cuda_state.h"
#include "cuda/driver_api.h"
#include "cuda/driver_call.h"

namespace mockdev::cuda::impl {
namespace {

const DeviceSpec& spec(int physical) MOCKDEV_REQUIRES(core::g_engine_mutex) {
  return core::engine().machine.devices[static_cast<std::size_t>(physical)];
}

}  // namespace

CUresult cuDeviceGetCount(int* count) {
  if (count == nullptr) return CUDA_ERROR_INVALID_VALUE;
  *count = static_cast<int>(cuda_state().visible.size());
  return CUDA_SUCCESS;
}

CUresult cuDeviceGet(CUdevice* device, int ordinal) {
  if (device == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (!physical_device(ordinal)) return CUDA_ERROR_INVALID_DEVICE;
  *device = ordinal;
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetName(char* name, int len, CUdevice dev) {
  if (name == nullptr || len <= 0) return CUDA_ERROR_INVALID_VALUE;
  std::optional<int> p = physical_device(dev);
  if (!p) return CUDA_ERROR_INVALID_DEVICE;
  // Like the driver, a short buffer gets a truncated, terminated name.
  const std::string& text = spec(*p).name;
  std::size_t n = std::min(text.size(), static_cast<std::size_t>(len) - 1);
  std::memcpy(name, text.data(), n);
  name[n] = '\0';
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetAttribute(int* value, CUdevice_attribute attrib, CUdevice dev) {
  if (value == nullptr) return CUDA_ERROR_INVALID_VALUE;
  std::optional<int> p = physical_device(dev);
  if (!p) return CUDA_ERROR_INVALID_DEVICE;
  const DeviceSpec& d = spec(*p);
  switch (attrib) {
    case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT:
      *value = d.multiprocessor_count;
      return CUDA_SUCCESS;
    case CU_DEVICE_ATTRIBUTE_INTEGRATED:
      *value = 0;
      return CUDA_SUCCESS;
    case CU_DEVICE_ATTRIBUTE_PCI_BUS_ID:
      *value = core::pci_bus_number(d.pci_bus_id);
      return CUDA_SUCCESS;
    case CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID:
      *value = core::pci_device_number(d.pci_bus_id);
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

CUresult cuDeviceTotalMem(std::size_t* bytes, CUdevice dev) {
  if (bytes == nullptr) return CUDA_ERROR_INVALID_VALUE;
  std::optional<int> p = physical_device(dev);
  if (!p) return CUDA_ERROR_INVALID_DEVICE;
  *bytes = spec(*p).memory_bytes;
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetUuid(CUuuid* uuid, CUdevice dev) {
  if (uuid == nullptr) return CUDA_ERROR_INVALID_VALUE;
  std::optional<int> p = physical_device(dev);
  if (!p) return CUDA_ERROR_INVALID_DEVICE;
  auto bytes = core::uuid_bytes(spec(*p).uuid);
  if (!bytes) return CUDA_ERROR_UNKNOWN;  // the parser guarantees a valid UUID
  std::memcpy(uuid->bytes, bytes->data(), bytes->size());
  return CUDA_SUCCESS;
}

}  // namespace mockdev::cuda::impl
