// The CUDA backend's per-thread device, device properties and capability, and the primary
// contexts every device call runs under (cuda_backend.h: per-thread device state).
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>

#include "backends/cuda/cuda_backend_impl.h"
#include "backends/cuda/cuda_device_facts.h"

namespace accel::detail::cuda {

namespace {

using cuda_abi::CUcontext;
using cuda_abi::CUDA_SUCCESS;
using cuda_abi::CUdevice;
using cuda_abi::CUresult;

// This thread's recorded maybe_set_device target, valid for the backend with that id.
struct ThreadTarget {
  std::uint64_t backend_id = 0;
  int index = -1;
};
thread_local ThreadTarget t_target;

}  // namespace

Status CudaBackend::set_device(int index) noexcept {
  try {
    Result<CUcontext> ctx = primary_context(index);
    if (!ctx.ok()) return ctx.status();
    const DriverApi& api = library().api();
    CUcontext current = nullptr;
    CUresult rc = api.cuCtxGetCurrent(&current);
    if (rc != CUDA_SUCCESS) return status(rc, "set_device: cuCtxGetCurrent", index);
    if (current != *ctx) {
      rc = api.cuCtxSetCurrent(*ctx);
      if (rc != CUDA_SUCCESS) return status(rc, "set_device: cuCtxSetCurrent", index);
    }
    if (t_target.backend_id == id_) t_target = ThreadTarget{};
    return Status();
  } catch (...) {
    return host_out_of_memory();
  }
}

Status CudaBackend::maybe_set_device(int index) noexcept {
  try {
    if (primary_[index].load(std::memory_order_acquire) != nullptr) return set_device(index);
    unsigned int flags = 0;
    int active = 0;
    CUresult rc = library().api().cuDevicePrimaryCtxGetState(devices_[index], &flags, &active);
    if (rc != CUDA_SUCCESS) {
      return status(rc, "maybe_set_device: cuDevicePrimaryCtxGetState", index);
    }
    if (active != 0) return set_device(index);
    t_target = ThreadTarget{id_, index};
    return Status();
  } catch (...) {
    return host_out_of_memory();
  }
}

Result<int> CudaBackend::current_device() noexcept {
  try {
    if (t_target.backend_id == id_ && t_target.index >= 0) return t_target.index;
    const DriverApi& api = library().api();
    CUcontext ctx = nullptr;
    CUresult rc = api.cuCtxGetCurrent(&ctx);
    if (rc != CUDA_SUCCESS) return status(rc, "current_device: cuCtxGetCurrent");
    if (ctx == nullptr) return 0;
    CUdevice device = 0;
    rc = api.cuCtxGetDevice(&device);
    if (rc != CUDA_SUCCESS) return status(rc, "current_device: cuCtxGetDevice");
    auto it = std::find(devices_.begin(), devices_.end(), device);
    if (it == devices_.end()) {
      // A context made behind the runtime's back on a device it does not list: the raw
      // CUdevice is not a visible index, so it must not be reported as one.
      return Status(ErrorKind::kDriver,
                    "current_device: the current context's device is not one of the visible "
                    "devices (CUdevice=" +
                        std::to_string(device) + ", device_count=" + std::to_string(count_) + ")");
    }
    return static_cast<int>(it - devices_.begin());
  } catch (...) {
    return host_out_of_memory();
  }
}

Result<DeviceProperties> CudaBackend::device_properties(int index) noexcept {
  try {
    const DriverApi& api = library().api();
    CUdevice device = devices_[index];
    DeviceProperties properties;
    char name[256] = {};
    CUresult rc = api.cuDeviceGetName(name, sizeof(name) - 1, device);
    if (rc != CUDA_SUCCESS) return status(rc, "device_properties: cuDeviceGetName", index);
    properties.name = name;
    struct Attribute {
      cuda_abi::CUdevice_attribute attribute;
      int* out;
    };
    for (Attribute attribute :
         {Attribute{cuda_abi::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, &properties.major},
          Attribute{cuda_abi::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, &properties.minor},
          Attribute{cuda_abi::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
                    &properties.multi_processor_count}}) {
      rc = api.cuDeviceGetAttribute(attribute.out, attribute.attribute, device);
      if (rc != CUDA_SUCCESS) {
        return status(rc, "device_properties: cuDeviceGetAttribute", index);
      }
    }
    std::size_t total = 0;
    rc = api.cuDeviceTotalMem(&total, device);
    if (rc != CUDA_SUCCESS) return status(rc, "device_properties: cuDeviceTotalMem", index);
    properties.total_memory_bytes = total;
    cuda_abi::CUuuid uuid{};
    rc = api.cuDeviceGetUuid(&uuid, device);
    if (rc != CUDA_SUCCESS) return status(rc, "device_properties: cuDeviceGetUuid", index);
    properties.uuid = format_uuid(uuid);
    char pci_bus_id[64] = {};  // the driver needs 13 bytes; room for a wider domain
    rc = api.cuDeviceGetPCIBusId(pci_bus_id, sizeof(pci_bus_id) - 1, device);
    if (rc != CUDA_SUCCESS) return status(rc, "device_properties: cuDeviceGetPCIBusId", index);
    properties.pci_bus_id = format_pci_bus_id(pci_bus_id);
    // NVML is optional here: without it (or when it cannot say) the mode is unknown.
    if (NvmlLibrary* nvml_library = nvml()) {
      properties.mig_enabled = nvml_library->mig_enabled(properties.uuid);
    }
    return properties;
  } catch (...) {
    return host_out_of_memory();
  }
}

Result<DeviceCapability> CudaBackend::device_capability(int index) noexcept {
  try {
    const DriverApi& api = library().api();
    DeviceCapability capability;
    CUresult rc = api.cuDeviceGetAttribute(
        &capability.major, cuda_abi::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, devices_[index]);
    if (rc == CUDA_SUCCESS) {
      rc = api.cuDeviceGetAttribute(&capability.minor,
                                    cuda_abi::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                                    devices_[index]);
    }
    if (rc != CUDA_SUCCESS) {
      return status(rc, "device_capability: cuDeviceGetAttribute", index);
    }
    capability.supported_dtypes = supported_dtypes(capability.major, capability.minor);
    return capability;
  } catch (...) {
    return host_out_of_memory();
  }
}

Result<CUcontext> CudaBackend::primary_context(int index) {
  CUcontext ctx = primary_[index].load(std::memory_order_acquire);
  if (ctx != nullptr) return ctx;
  std::lock_guard lock(context_mutex_);
  ctx = primary_[index].load();
  if (ctx != nullptr) return ctx;
  CUresult rc = library().api().cuDevicePrimaryCtxRetain(&ctx, devices_[index]);
  if (rc != CUDA_SUCCESS) return status(rc, "cuDevicePrimaryCtxRetain", index);
  primary_[index].store(ctx, std::memory_order_release);
  return ctx;
}

}  // namespace accel::detail::cuda
