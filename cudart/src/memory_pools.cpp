// The stream-ordered allocator and memory pools (spec cuda_runtime.md §4.6): each entry
// point is its driver twin (cuMemAllocAsync, cuMemPool*, cuDevice{Get,Set}MemPool), so pool
// statistics are exactly the driver's. The runtime's pool types are the driver's in layout
// and values (checked below), so they pass through by cast. Stream arguments go through
// driver_stream() (stream_handle.h).

#include <cstddef>

#include "memory_common.h"
#include "stream_handle.h"

namespace accel::cudart {
namespace {

static_assert(sizeof(cudaMemLocation) == sizeof(drv::CUmemLocation));
static_assert(offsetof(cudaMemLocation, id) == offsetof(drv::CUmemLocation, id));
static_assert(sizeof(cudaMemAccessDesc) == sizeof(drv::CUmemAccessDesc));
static_assert(offsetof(cudaMemAccessDesc, flags) == offsetof(drv::CUmemAccessDesc, flags));
static_assert(sizeof(cudaMemPoolProps) == sizeof(drv::CUmemPoolProps));
static_assert(offsetof(cudaMemPoolProps, location) == offsetof(drv::CUmemPoolProps, location));
static_assert(offsetof(cudaMemPoolProps, maxSize) == offsetof(drv::CUmemPoolProps, maxSize));
static_assert(offsetof(cudaMemPoolProps, usage) == offsetof(drv::CUmemPoolProps, usage));
static_assert(static_cast<int>(cudaMemPoolAttrUsedMemHigh) ==
              static_cast<int>(drv::CU_MEMPOOL_ATTR_USED_MEM_HIGH));
static_assert(static_cast<int>(cudaMemAccessFlagsProtReadWrite) ==
              static_cast<int>(drv::CU_MEM_ACCESS_FLAGS_PROT_READWRITE));

}  // namespace

namespace impl {

cudaError_t cudaMallocAsync(void** dev_ptr, std::size_t size, cudaStream_t stream) {
  if (dev_ptr == nullptr) return cudaErrorInvalidValue;
  const DriverTable* d = nullptr;
  if (const cudaError_t e = memory_context(&d); e != cudaSuccess) return e;
  drv::CUdeviceptr p = 0;
  const cudaError_t e = call(d->cuMemAllocAsync, &p, size, driver_stream(stream));
  if (e == cudaSuccess) *dev_ptr = host_address(p);
  return e;
}

cudaError_t cudaMallocFromPoolAsync(void** ptr, std::size_t size, cudaMemPool_t pool,
                                    cudaStream_t stream) {
  if (ptr == nullptr) return cudaErrorInvalidValue;
  const DriverTable* d = nullptr;
  if (const cudaError_t e = memory_context(&d); e != cudaSuccess) return e;
  drv::CUdeviceptr p = 0;
  const cudaError_t e = call(d->cuMemAllocFromPoolAsync, &p, size, pool, driver_stream(stream));
  if (e == cudaSuccess) *ptr = host_address(p);
  return e;
}

cudaError_t cudaFreeAsync(void* dev_ptr, cudaStream_t stream) {
  const DriverTable* d = nullptr;
  if (const cudaError_t e = memory_context(&d); e != cudaSuccess) return e;
  return call(d->cuMemFreeAsync, device_address(dev_ptr), driver_stream(stream));
}

cudaError_t cudaMemPoolCreate(cudaMemPool_t* pool, const cudaMemPoolProps* props) {
  if (pool == nullptr || props == nullptr) return cudaErrorInvalidValue;
  const DriverTable* d = nullptr;
  if (const cudaError_t e = memory_context(&d); e != cudaSuccess) return e;
  return call(d->cuMemPoolCreate, pool, reinterpret_cast<const drv::CUmemPoolProps*>(props));
}

cudaError_t cudaMemPoolDestroy(cudaMemPool_t pool) {
  const DriverTable* d = nullptr;
  if (const cudaError_t e = memory_context(&d); e != cudaSuccess) return e;
  return call(d->cuMemPoolDestroy, pool);
}

cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t pool, cudaMemPoolAttr attr, void* value) {
  const DriverTable* d = nullptr;
  if (const cudaError_t e = memory_context(&d); e != cudaSuccess) return e;
  return call(d->cuMemPoolSetAttribute, pool, static_cast<drv::CUmemPool_attribute>(attr), value);
}

cudaError_t cudaMemPoolGetAttribute(cudaMemPool_t pool, cudaMemPoolAttr attr, void* value) {
  const DriverTable* d = nullptr;
  if (const cudaError_t e = memory_context(&d); e != cudaSuccess) return e;
  return call(d->cuMemPoolGetAttribute, pool, static_cast<drv::CUmemPool_attribute>(attr), value);
}

cudaError_t cudaMemPoolTrimTo(cudaMemPool_t pool, std::size_t min_bytes_to_keep) {
  const DriverTable* d = nullptr;
  if (const cudaError_t e = memory_context(&d); e != cudaSuccess) return e;
  return call(d->cuMemPoolTrimTo, pool, min_bytes_to_keep);
}

cudaError_t cudaMemPoolSetAccess(cudaMemPool_t pool, const cudaMemAccessDesc* desc_list,
                                 std::size_t count) {
  const DriverTable* d = nullptr;
  if (const cudaError_t e = memory_context(&d); e != cudaSuccess) return e;
  return call(d->cuMemPoolSetAccess, pool, reinterpret_cast<const drv::CUmemAccessDesc*>(desc_list),
              count);
}

cudaError_t cudaMemPoolGetAccess(cudaMemAccessFlags* flags, cudaMemPool_t pool,
                                 cudaMemLocation* location) {
  const DriverTable* d = nullptr;
  if (const cudaError_t e = memory_context(&d); e != cudaSuccess) return e;
  return call(d->cuMemPoolGetAccess, reinterpret_cast<drv::CUmemAccess_flags*>(flags), pool,
              reinterpret_cast<drv::CUmemLocation*>(location));
}

cudaError_t cudaDeviceSetMemPool(int device, cudaMemPool_t pool) {
  const DriverTable* d = nullptr;
  if (const cudaError_t e = load_driver(&d); e != cudaSuccess) return e;
  drv::CUdevice dev = 0;
  if (const cudaError_t e = device_handle(*d, device, &dev); e != cudaSuccess) return e;
  return call(d->cuDeviceSetMemPool, dev, pool);
}

cudaError_t cudaDeviceGetMemPool(cudaMemPool_t* pool, int device) {
  if (pool == nullptr) return cudaErrorInvalidValue;
  const DriverTable* d = nullptr;
  if (const cudaError_t e = load_driver(&d); e != cudaSuccess) return e;
  drv::CUdevice dev = 0;
  if (const cudaError_t e = device_handle(*d, device, &dev); e != cudaSuccess) return e;
  return call(d->cuDeviceGetMemPool, pool, dev);
}

}  // namespace impl
}  // namespace accel::cudart
