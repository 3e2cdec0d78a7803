// The CUDA backend's memory groups (cuda_backend_impl.h): memory_info, raw device memory,
// virtual memory for expandable segments, and pinned host memory. Each call runs under the
// device's primary context (with_device_context); pinned host memory under device 0's (a
// context must be current for cuMemHostAlloc; PORTABLE makes the memory pinned for every
// context).
//
// Note [Allocation during capture]
// The caching allocator takes new segments while a stream is being captured into a graph
// (PyTorch's graph private pools). cuMemAlloc and cuMemFree are "potentially unsafe"
// calls: in global capture mode the driver refuses them (and invalidates the capture). As
// PyTorch does, the thread's capture mode is exchanged to relaxed around them and put back
// afterwards, so they are legal during capture and the capture stays valid; the new
// address is baked into the graph. cuMemCreate/cuMemMap (expandable segments) get the
// same treatment.

#include <cstddef>
#include <cstdint>

#include "backends/cuda/cuda_backend_impl.h"

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

Result<MemoryInfo> CudaBackend::memory_info(int index) noexcept {
  MemoryInfo info;  // no allocation before with_device_context, which never throws
  Status result = with_device_context(
      index, "memory_info", "cuMemGetInfo",
      [&](const DriverApi& api) { return api.cuMemGetInfo(&info.free_bytes, &info.total_bytes); });
  if (!result.ok()) return result;
  return info;
}

Result<DevicePointer> CudaBackend::allocate(int index, std::size_t bytes) noexcept {
  CUdeviceptr pointer = 0;
  Status status = with_device_context(index, "allocate", "cuMemAlloc", [&](const DriverApi& api) {
    return relaxed(api, [&] { return api.cuMemAlloc(&pointer, bytes); });
  });
  if (!status.ok()) return status;
  return DevicePointer{static_cast<std::uintptr_t>(pointer)};
}

Status CudaBackend::deallocate(int index, DevicePointer pointer) noexcept {
  return with_device_context(index, "deallocate", "cuMemFree", [&](const DriverApi& api) {
    return relaxed(api, [&] { return api.cuMemFree(static_cast<CUdeviceptr>(pointer.value)); });
  });
}

Result<std::size_t> CudaBackend::memory_granularity(int index) noexcept {
  std::size_t granularity = 0;
  Status status = with_device_context(
      index, "memory_granularity", "cuMemGetAllocationGranularity", [&](const DriverApi& api) {
        cuda_abi::CUmemAllocationProp prop;
        const CUresult rc = device_prop(api, prop);
        if (rc != CUDA_SUCCESS) return rc;
        return api.cuMemGetAllocationGranularity(&granularity, &prop,
                                                 cuda_abi::CU_MEM_ALLOC_GRANULARITY_MINIMUM);
      });
  if (!status.ok()) return status;
  return granularity;
}

Result<DevicePointer> CudaBackend::reserve_address_range(int index, std::size_t bytes) noexcept {
  CUdeviceptr base = 0;
  Status status = with_device_context(
      index, "reserve_address_range", "cuMemAddressReserve",
      [&](const DriverApi& api) { return api.cuMemAddressReserve(&base, bytes, 0, 0, 0); });
  if (!status.ok()) return status;
  return DevicePointer{static_cast<std::uintptr_t>(base)};
}

Status CudaBackend::free_address_range(int index, DevicePointer base, std::size_t bytes) noexcept {
  return with_device_context(
      index, "free_address_range", "cuMemAddressFree", [&](const DriverApi& api) {
        return api.cuMemAddressFree(static_cast<CUdeviceptr>(base.value), bytes);
      });
}

Result<PhysicalMemoryHandle> CudaBackend::create_physical_memory(int index,
                                                                 std::size_t bytes) noexcept {
  CUmemGenericAllocationHandle handle = 0;
  Status status = with_device_context(
      index, "create_physical_memory", "cuMemCreate", [&](const DriverApi& api) {
        cuda_abi::CUmemAllocationProp prop;
        const CUresult rc = device_prop(api, prop);
        if (rc != CUDA_SUCCESS) return rc;
        return relaxed(api, [&] { return api.cuMemCreate(&handle, bytes, &prop, 0); });
      });
  if (!status.ok()) return status;
  return PhysicalMemoryHandle{static_cast<std::uintptr_t>(handle)};
}

Status CudaBackend::release_physical_memory(int index, PhysicalMemoryHandle memory) noexcept {
  return with_device_context(
      index, "release_physical_memory", "cuMemRelease", [&](const DriverApi& api) {
        return api.cuMemRelease(static_cast<CUmemGenericAllocationHandle>(memory.value));
      });
}

// cuMemMap, then read-write access for this device (a mapping nobody may access is of no
// use; PyTorch grants access right after mapping too).
Status CudaBackend::map_memory(int index, DevicePointer address, std::size_t bytes,
                               PhysicalMemoryHandle memory) noexcept {
  return with_device_context(
      index, "map_memory", "cuMemMap/cuMemSetAccess", [&](const DriverApi& api) {
        const auto pointer = static_cast<CUdeviceptr>(address.value);
        CUresult rc = relaxed(api, [&] {
          return api.cuMemMap(pointer, bytes, 0,
                              static_cast<CUmemGenericAllocationHandle>(memory.value), 0);
        });
        if (rc != CUDA_SUCCESS) return rc;
        cuda_abi::CUmemAllocationProp prop;
        rc = device_prop(api, prop);
        if (rc != CUDA_SUCCESS) return rc;
        cuda_abi::CUmemAccessDesc access{};
        access.location = prop.location;
        access.flags = cuda_abi::CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
        return api.cuMemSetAccess(pointer, bytes, &access, 1);
      });
}

Status CudaBackend::unmap_memory(int index, DevicePointer address, std::size_t bytes) noexcept {
  return with_device_context(index, "unmap_memory", "cuMemUnmap", [&](const DriverApi& api) {
    return api.cuMemUnmap(static_cast<CUdeviceptr>(address.value), bytes);
  });
}

Result<void*> CudaBackend::allocate_host(std::size_t bytes) noexcept {
  void* pointer = nullptr;
  Status status =
      with_device_context(0, "allocate_host", "cuMemHostAlloc", [&](const DriverApi& api) {
        return relaxed(api, [&] {
          return api.cuMemHostAlloc(&pointer, bytes, cuda_abi::kMemHostAllocPortable);
        });
      });
  if (!status.ok()) return status;
  return pointer;
}

Status CudaBackend::free_host(void* pointer) noexcept {
  return with_device_context(0, "free_host", "cuMemFreeHost", [&](const DriverApi& api) {
    return relaxed(api, [&] { return api.cuMemFreeHost(pointer); });
  });
}

}  // namespace accel::detail::cuda
