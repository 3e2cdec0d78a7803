// Allocation and pointer queries (spec cuda_runtime.md §4.1-4.3, §4.5): device, pitched,
// pinned, registered and managed memory, cudaMemGetInfo and cudaPointerGetAttributes, each
// over the driver entry point the spec names, on the context of Note [Implicit primary
// contexts]. Size-zero and flag rules the documentation leaves open are decision 206's
// "Memory" section.

#include <cstring>

#include "memory_common.h"

namespace accel::cudart {
namespace {

constexpr unsigned kHostAllocFlags =
    kHostAllocPortable | kHostAllocMapped | kHostAllocWriteCombined;
constexpr unsigned kHostRegisterFlags =
    kHostRegisterPortable | kHostRegisterMapped | kHostRegisterIoMemory | kHostRegisterReadOnly;

// cuMemAllocPitch_v2's element size: the widest the driver accepts, so that the pitch suits
// any element type [inferred].
constexpr unsigned kPitchElementBytes = 16;

}  // namespace

namespace impl {

cudaError_t cudaMalloc(void** dev_ptr, std::size_t size) {
  if (dev_ptr == nullptr) return cudaErrorInvalidValue;
  const DriverTable* d = nullptr;
  if (const cudaError_t e = memory_context(&d); e != cudaSuccess) return e;
  if (size == 0) {  // spec §4.1: success and NULL [inferred]
    *dev_ptr = nullptr;
    return cudaSuccess;
  }
  drv::CUdeviceptr p = 0;
  const cudaError_t e = call(d->cuMemAlloc_v2, &p, size);
  if (e == cudaSuccess) *dev_ptr = host_address(p);
  return e;
}

// Memory of the stream-ordered allocator is freed in stream order on the legacy stream, which
// then completes: the caller guaranteed that nothing uses it any more (spec §4.1 [inferred]).
cudaError_t cudaFree(void* dev_ptr) {
  const DriverTable* d = nullptr;
  if (const cudaError_t e = memory_context(&d); e != cudaSuccess) return e;
  if (dev_ptr == nullptr) return cudaSuccess;  // cudaFree(0): initialisation only
  drv::CUmemoryPool pool = nullptr;
  if (call(d->cuPointerGetAttribute, &pool, drv::CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE,
           device_address(dev_ptr)) == cudaSuccess &&
      pool != nullptr) {
    const auto legacy = reinterpret_cast<drv::CUstream>(drv::kStreamLegacy);
    if (const cudaError_t e = call(d->cuMemFreeAsync, device_address(dev_ptr), legacy);
        e != cudaSuccess) {
      return e;
    }
    return call(d->cuStreamSynchronize, legacy);
  }
  return call(d->cuMemFree_v2, device_address(dev_ptr));
}

cudaError_t cudaMallocPitch(void** dev_ptr, std::size_t* pitch, std::size_t width,
                            std::size_t height) {
  if (dev_ptr == nullptr || pitch == nullptr) return cudaErrorInvalidValue;
  const DriverTable* d = nullptr;
  if (const cudaError_t e = memory_context(&d); e != cudaSuccess) return e;
  drv::CUdeviceptr p = 0;
  const cudaError_t e = call(d->cuMemAllocPitch_v2, &p, pitch, width, height, kPitchElementBytes);
  if (e == cudaSuccess) *dev_ptr = host_address(p);
  return e;
}

cudaError_t cudaHostAlloc(void** host_ptr, std::size_t size, unsigned int flags) {
  if (host_ptr == nullptr || (flags & ~kHostAllocFlags) != 0) return cudaErrorInvalidValue;
  const DriverTable* d = nullptr;
  if (const cudaError_t e = memory_context(&d); e != cudaSuccess) return e;
  if (size == 0) {  // as cudaMalloc [inferred]
    *host_ptr = nullptr;
    return cudaSuccess;
  }
  // The runtime's flag values are the driver's CU_MEMHOSTALLOC_*.
  return call(d->cuMemHostAlloc, host_ptr, size, flags);
}

cudaError_t cudaMallocHost(void** ptr, std::size_t size) {
  return cudaHostAlloc(ptr, size, kHostAllocDefault);
}

cudaError_t cudaFreeHost(void* ptr) {
  const DriverTable* d = nullptr;
  if (const cudaError_t e = memory_context(&d); e != cudaSuccess) return e;
  if (ptr == nullptr) return cudaSuccess;
  return call(d->cuMemFreeHost, ptr);
}

// Under unified addressing the default registration is mapped and portable (spec §4.2).
cudaError_t cudaHostRegister(void* ptr, std::size_t size, unsigned int flags) {
  if (ptr == nullptr || size == 0 || (flags & ~kHostRegisterFlags) != 0) {
    return cudaErrorInvalidValue;
  }
  const DriverTable* d = nullptr;
  if (const cudaError_t e = memory_context(&d); e != cudaSuccess) return e;
  const unsigned driver_flags =
      flags == kHostRegisterDefault ? (kHostRegisterPortable | kHostRegisterMapped) : flags;
  return call(d->cuMemHostRegister_v2, ptr, size, driver_flags);
}

cudaError_t cudaHostUnregister(void* ptr) {
  if (ptr == nullptr) return cudaErrorInvalidValue;
  const DriverTable* d = nullptr;
  if (const cudaError_t e = memory_context(&d); e != cudaSuccess) return e;
  return call(d->cuMemHostUnregister, ptr);
}

cudaError_t cudaHostGetDevicePointer(void** dev_ptr, void* host_ptr, unsigned int flags) {
  if (dev_ptr == nullptr || host_ptr == nullptr || flags != 0) return cudaErrorInvalidValue;
  const DriverTable* d = nullptr;
  if (const cudaError_t e = memory_context(&d); e != cudaSuccess) return e;
  drv::CUdeviceptr p = 0;
  const cudaError_t e = call(d->cuMemHostGetDevicePointer_v2, &p, host_ptr, 0u);
  if (e == cudaSuccess) *dev_ptr = host_address(p);
  return e;
}

cudaError_t cudaHostGetFlags(unsigned int* flags, void* host_ptr) {
  if (flags == nullptr || host_ptr == nullptr) return cudaErrorInvalidValue;
  const DriverTable* d = nullptr;
  if (const cudaError_t e = memory_context(&d); e != cudaSuccess) return e;
  return call(d->cuMemHostGetFlags, flags, host_ptr);
}

cudaError_t cudaMallocManaged(void** dev_ptr, std::size_t size, unsigned int flags) {
  if (dev_ptr == nullptr || size == 0 || (flags != kMemAttachGlobal && flags != kMemAttachHost)) {
    return cudaErrorInvalidValue;
  }
  const DriverTable* d = nullptr;
  if (const cudaError_t e = memory_context(&d); e != cudaSuccess) return e;
  drv::CUdeviceptr p = 0;
  const cudaError_t e = call(d->cuMemAllocManaged, &p, size, flags);
  if (e == cudaSuccess) *dev_ptr = host_address(p);
  return e;
}

cudaError_t cudaMemGetInfo(std::size_t* free_bytes, std::size_t* total_bytes) {
  if (free_bytes == nullptr || total_bytes == nullptr) return cudaErrorInvalidValue;
  const DriverTable* d = nullptr;
  if (const cudaError_t e = memory_context(&d); e != cudaSuccess) return e;
  return call(d->cuMemGetInfo_v2, free_bytes, total_bytes);
}

// One cuPointerGetAttributes call (spec §4.5): memory the driver does not know reads as its
// defaults (memory type 0), which is cudaMemoryTypeUnregistered with the pointer itself as
// hostPointer and cudaInvalidDeviceId as device.
cudaError_t cudaPointerGetAttributes(cudaPointerAttributes* attributes, const void* ptr) {
  if (attributes == nullptr) return cudaErrorInvalidValue;
  const DriverTable* d = nullptr;
  if (const cudaError_t e = memory_context(&d); e != cudaSuccess) return e;
  unsigned memory_type = 0;
  int is_managed = 0;
  int ordinal = kInvalidDeviceId;
  drv::CUdeviceptr device_pointer = 0;
  void* host_pointer = nullptr;
  drv::CUpointer_attribute which[] = {
      drv::CU_POINTER_ATTRIBUTE_MEMORY_TYPE, drv::CU_POINTER_ATTRIBUTE_IS_MANAGED,
      drv::CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, drv::CU_POINTER_ATTRIBUTE_DEVICE_POINTER,
      drv::CU_POINTER_ATTRIBUTE_HOST_POINTER};
  void* data[] = {&memory_type, &is_managed, &ordinal, &device_pointer, &host_pointer};
  if (const cudaError_t e = call(d->cuPointerGetAttributes, 5u, which, data, device_address(ptr));
      e != cudaSuccess) {
    return e;
  }
  std::memset(attributes, 0, sizeof(*attributes));
  attributes->devicePointer = host_address(device_pointer);
  attributes->hostPointer = host_pointer;
  attributes->device = ordinal;
  if (is_managed != 0) {
    attributes->type = cudaMemoryTypeManaged;
  } else if (memory_type == drv::CU_MEMORYTYPE_HOST) {
    attributes->type = cudaMemoryTypeHost;
  } else if (memory_type == drv::CU_MEMORYTYPE_DEVICE) {
    attributes->type = cudaMemoryTypeDevice;
  } else {
    attributes->type = cudaMemoryTypeUnregistered;
    attributes->device = kInvalidDeviceId;
    attributes->devicePointer = nullptr;
    attributes->hostPointer = const_cast<void*>(ptr);
  }
  return cudaSuccess;
}

}  // namespace impl
}  // namespace accel::cudart
