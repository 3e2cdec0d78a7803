// Device queries of the simulated driver (declared in driver_api.h): count, ordinal, name,
// attributes (device_attributes.h), total memory, UUID, PCI bus id. They read the core's machine through the CUDA
// adapter's visible-device map; none touches the device (sticky errors do not apply).

#include <algorithm>
#include <cctype>
#include <cstring>
#include <string>

#include "core/device_ids.h"
#include "core/engine.h"
#include "cuda/cuda_state.h"
#include "cuda/device_attributes.h"
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

// Note [Device attribute answers] (device_attributes.h). [inferred] A bad device is
// reported before a bad attribute (CUDA_ERROR_INVALID_DEVICE when both are wrong).
CUresult cuDeviceGetAttribute(int* value, CUdevice_attribute attrib, CUdevice dev) {
  if (value == nullptr) return CUDA_ERROR_INVALID_VALUE;
  std::optional<int> p = physical_device(dev);
  if (!p) return CUDA_ERROR_INVALID_DEVICE;
  if (!is_device_attribute(attrib)) return CUDA_ERROR_INVALID_VALUE;
  *value = device_attribute_value(spec(*p), *p, attrib);
  return CUDA_SUCCESS;
}

CUresult cuDeviceTotalMem_v2(std::size_t* bytes, CUdevice dev) {
  if (bytes == nullptr) return CUDA_ERROR_INVALID_VALUE;
  std::optional<int> p = physical_device(dev);
  if (!p) return CUDA_ERROR_INVALID_DEVICE;
  *bytes = spec(*p).memory_bytes;
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetUuid_v2(CUuuid* uuid, CUdevice dev) {
  if (uuid == nullptr) return CUDA_ERROR_INVALID_VALUE;
  std::optional<int> p = physical_device(dev);
  if (!p) return CUDA_ERROR_INVALID_DEVICE;
  auto bytes = core::uuid_bytes(spec(*p).uuid);
  if (!bytes) return CUDA_ERROR_UNKNOWN;  // the parser guarantees a valid UUID
  std::memcpy(uuid->bytes, bytes->data(), bytes->size());
  return CUDA_SUCCESS;
}

// The driver's format, as cuda.h documents it ("[domain]:[bus]:[device].[function]", 13
// characters with the terminator): a four-digit domain, upper-case hex ("0000:1B:00.0").
// The machine file's id has nvidia-smi's eight-digit domain; its leading zeros beyond four
// are dropped (a domain above 0xFFFF keeps all its digits). A buffer too short for the
// whole id (terminator included) receives as much of it as fits, terminated, and the call
// answers CUDA_ERROR_INVALID_VALUE (Recording 2: a 12-byte buffer got "0000:00:06.").
CUresult cuDeviceGetPCIBusId(char* pci_bus_id, int len, CUdevice dev) {
  if (pci_bus_id == nullptr || len <= 0) return CUDA_ERROR_INVALID_VALUE;
  std::optional<int> p = physical_device(dev);
  if (!p) return CUDA_ERROR_INVALID_DEVICE;
  std::string text = spec(*p).pci_bus_id;  // "dddddddd:bb:dd.f" (the parser checked it)
  for (char& c : text) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  std::size_t zeros = text.find_first_not_of('0');
  text.erase(0, std::min<std::size_t>(zeros, 4));
  const std::size_t room = static_cast<std::size_t>(len) - 1;  // the terminator's byte kept
  const std::size_t copied = std::min(text.size(), room);
  std::memcpy(pci_bus_id, text.data(), copied);
  pci_bus_id[copied] = '\0';
  return copied == text.size() ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

}  // namespace mockdev::cuda::impl
