// The CUDA backend's memory, virtual-memory and pinned-host groups (cuda_memory.h).
#include "backends/cuda/cuda_memory.h"

namespace accel::detail::cuda {

namespace {

using cuda_abi::CUDA_SUCCESS;
using cuda_abi::CUdevice;
using cuda_abi::CUdeviceptr;
using cuda_abi::CUmemGenericAllocationHandle;
using cuda_abi::CUresult;
using cuda_abi::CUstreamCaptureMode;

// Note [Allocation during capture]: `call` with the thread in relaxed capture mode; the
// previous mode is put back whatever `call` answered.
template <class F>
CUresult relaxed(const DriverApi& api, F call) noexcept {
  CUstreamCaptureMode mode = cuda_abi::CU_STREAM_CAPTURE_MODE_RELAXED;
  CUresult rc = api.cuThreadExchangeStreamCaptureMode(&mode);
  if (rc != CUDA_SUCCESS) return rc;
  const CUresult result = call();
  rc = api.cuThreadExchangeStreamCaptureMode(&mode);
  return result != CUDA_SUCCESS ? result : rc;
}

// Pinned device memory on the current context's device, as PyTorch's expandable segments
// ask for it.
CUresult device_prop(const DriverApi& api, cuda_abi::CUmemAllocationProp& prop) noexcept {
  CUdevice device = 0;
  const CUresult rc = api.cuCtxGetDevice(&device);
  if (rc != CUDA_SUCCESS) return rc;
  prop = {};
  prop.type = cuda_abi::CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.requestedHandleTypes = cuda_abi::CU_MEM_HANDLE_TYPE_NONE;
  prop.location.type = cuda_abi::CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = device;
  return CUDA_SUCCESS;
}

}  // namespace

Result<DevicePointer> allocate(DeviceCalls& calls, int index, std::size_t bytes) noexcept {
  CUdeviceptr pointer = 0;
  Status status = calls.run(index, "allocate", "cuMemAlloc", CallOf([&](const DriverApi& api) {
                              return relaxed(api, [&] { return api.cuMemAlloc(&pointer, bytes); });
                            }));
  if (!status.ok()) return status;
  return DevicePointer{static_cast<std::uintptr_t>(pointer)};
}

Status deallocate(DeviceCalls& calls, int index, DevicePointer pointer) noexcept {
  return calls.run(index, "deallocate", "cuMemFree", CallOf([&](const DriverApi& api) {
                     return relaxed(api, [&] {
                       return api.cuMemFree(static_cast<CUdeviceptr>(pointer.value));
                     });
                   }));
}

Result<std::size_t> memory_granularity(DeviceCalls& calls, int index) noexcept {
  std::size_t granularity = 0;
  Status status = calls.run(index, "memory_granularity", "cuMemGetAllocationGranularity",
                            CallOf([&](const DriverApi& api) {
                              cuda_abi::CUmemAllocationProp prop;
                              const CUresult rc = device_prop(api, prop);
                              if (rc != CUDA_SUCCESS) return rc;
                              return api.cuMemGetAllocationGranularity(
                                  &granularity, &prop, cuda_abi::CU_MEM_ALLOC_GRANULARITY_MINIMUM);
                            }));
  if (!status.ok()) return status;
  return granularity;
}

Result<DevicePointer> reserve_address_range(DeviceCalls& calls, int index,
                                            std::size_t bytes) noexcept {
  CUdeviceptr base = 0;
  Status status = calls.run(index, "reserve_address_range", "cuMemAddressReserve",
                            CallOf([&](const DriverApi& api) {
                              return api.cuMemAddressReserve(&base, bytes, 0, 0, 0);
                            }));
  if (!status.ok()) return status;
  return DevicePointer{static_cast<std::uintptr_t>(base)};
}

Status free_address_range(DeviceCalls& calls, int index, DevicePointer base,
                          std::size_t bytes) noexcept {
  return calls.run(index, "free_address_range", "cuMemAddressFree",
                   CallOf([&](const DriverApi& api) {
                     return api.cuMemAddressFree(static_cast<CUdeviceptr>(base.value), bytes);
                   }));
}

Result<PhysicalMemoryHandle> create_physical_memory(DeviceCalls& calls, int index,
                                                    std::size_t bytes) noexcept {
  CUmemGenericAllocationHandle handle = 0;
  Status status = calls.run(index, "create_physical_memory", "cuMemCreate",
                            CallOf([&](const DriverApi& api) {
                              cuda_abi::CUmemAllocationProp prop;
                              const CUresult rc = device_prop(api, prop);
                              if (rc != CUDA_SUCCESS) return rc;
                              return relaxed(
                                  api, [&] { return api.cuMemCreate(&handle, bytes, &prop, 0); });
                            }));
  if (!status.ok()) return status;
  return PhysicalMemoryHandle{static_cast<std::uintptr_t>(handle)};
}

Status release_physical_memory(DeviceCalls& calls, int index,
                               PhysicalMemoryHandle memory) noexcept {
  return calls.run(index, "release_physical_memory", "cuMemRelease",
                   CallOf([&](const DriverApi& api) {
                     return api.cuMemRelease(static_cast<CUmemGenericAllocationHandle>(memory.value));
                   }));
}

// cuMemMap, then read-write access for this device (a mapping nobody may access is of no
// use; PyTorch grants access right after mapping too).
Status map_memory(DeviceCalls& calls, int index, DevicePointer address, std::size_t bytes,
                  PhysicalMemoryHandle memory) noexcept {
  return calls.run(index, "map_memory", "cuMemMap/cuMemSetAccess",
                   CallOf([&](const DriverApi& api) {
                     const auto pointer = static_cast<CUdeviceptr>(address.value);
                     CUresult rc = relaxed(api, [&] {
                       return api.cuMemMap(pointer, bytes, 0,
                                           static_cast<CUmemGenericAllocationHandle>(memory.value),
                                           0);
                     });
                     if (rc != CUDA_SUCCESS) return rc;
                     cuda_abi::CUmemAllocationProp prop;
                     rc = device_prop(api, prop);
                     if (rc != CUDA_SUCCESS) return rc;
                     cuda_abi::CUmemAccessDesc access{};
                     access.location = prop.location;
                     access.flags = cuda_abi::CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
                     return api.cuMemSetAccess(pointer, bytes, &access, 1);
                   }));
}

Status unmap_memory(DeviceCalls& calls, int index, DevicePointer address,
                    std::size_t bytes) noexcept {
  return calls.run(index, "unmap_memory", "cuMemUnmap", CallOf([&](const DriverApi& api) {
                     return api.cuMemUnmap(static_cast<CUdeviceptr>(address.value), bytes);
                   }));
}

Result<void*> allocate_host(DeviceCalls& calls, std::size_t bytes) noexcept {
  void* pointer = nullptr;
  Status status =
      calls.run(0, "allocate_host", "cuMemHostAlloc", CallOf([&](const DriverApi& api) {
                  return relaxed(api, [&] {
                    return api.cuMemHostAlloc(&pointer, bytes, cuda_abi::kMemHostAllocPortable);
                  });
                }));
  if (!status.ok()) return status;
  return pointer;
}

Status free_host(DeviceCalls& calls, void* pointer) noexcept {
  return calls.run(0, "free_host", "cuMemFreeHost", CallOf([&](const DriverApi& api) {
                     return relaxed(api, [&] { return api.cuMemFreeHost(pointer); });
                   }));
}

}  // namespace accel::detail::cuda
