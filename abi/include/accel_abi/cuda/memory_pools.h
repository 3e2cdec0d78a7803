#pragma once
// A fragment of the CUDA driver ABI table (accel_abi/cuda_driver.h includes it; include
// that header, never this one). Stream-ordered allocation and memory pools.
//
// ACCEL_CUDA_POOL_ROWS_(R, P, X, E): rows in the format of accel_abi/cuda_driver.h. The
// runtime never resolves them; the simulated libcuda.so.1 implements and exports them.
// ACCEL_CUDA_POOL_TYPES(T): every type declared here, by its cuda.h name; abi/check proves
// each the same size and alignment as cuda.h's, and maps it for the PFN checks.
// ACCEL_CUDA_POOL_CONSTANTS(C): every enumerator declared here; abi/check proves each the
// same value as cuda.h's.

#ifndef ACCEL_CUDA_DRIVER_FRAGMENT_
#error "include accel_abi/cuda_driver.h, not its fragments"
#endif

namespace accel::cuda_abi {

struct CUmemPoolHandle_st;  // opaque; the driver (or the mock) defines it
using CUmemoryPool = CUmemPoolHandle_st*;

// The REUSE_* attributes are int, the rest cuuint64_t (cuda.h's comments). The *_HIGH
// watermarks can only be set to 0, which resets them to the current value.
enum CUmemPool_attribute : int {
  CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES = 1,
  CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC = 2,
  CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES = 3,
  CU_MEMPOOL_ATTR_RELEASE_THRESHOLD = 4,
  CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT = 5,
  CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH = 6,
  CU_MEMPOOL_ATTR_USED_MEM_CURRENT = 7,
  CU_MEMPOOL_ATTR_USED_MEM_HIGH = 8,
};

// Layout as cuda.h's CUmemPoolProps_v1.
struct CUmemPoolProps {
  CUmemAllocationType allocType;
  CUmemAllocationHandleType handleTypes;
  CUmemLocation location;
  void* win32SecurityAttributes;
  std::size_t maxSize;
  unsigned short usage;
  unsigned char reserved[54];
};

}  // namespace accel::cuda_abi

// CUmemLocation and CUmemAccess_flags are base types (accel_abi/cuda_driver.h) listed here
// so that the PFN checks map them (cuMemPoolGetAccess takes both).
#define ACCEL_CUDA_POOL_TYPES(T) \
  T(CUmemPool_attribute) \
  T(CUmemPoolProps) \
  T(CUmemLocation) \
  T(CUmemAccess_flags)

#define ACCEL_CUDA_POOL_CONSTANTS(C) \
  C(CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES) \
  C(CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC) \
  C(CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES) \
  C(CU_MEMPOOL_ATTR_RELEASE_THRESHOLD) \
  C(CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT) \
  C(CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH) \
  C(CU_MEMPOOL_ATTR_USED_MEM_CURRENT) \
  C(CU_MEMPOOL_ATTR_USED_MEM_HIGH)

#define ACCEL_CUDA_POOL_ROWS_(R, P, X, E) \
  P(X, E, cuMemAllocAsync, 11020, cuMemAllocAsync, (CUdeviceptr * dptr, std::size_t bytes, CUstream stream), (dptr, bytes, stream), kNeedsInit | kTouchesDevice | kLegalInCapture, 11020, _ptsz) \
  P(X, E, cuMemFreeAsync, 11020, cuMemFreeAsync, (CUdeviceptr dptr, CUstream stream), (dptr, stream), kNeedsInit | kTouchesDevice | kLegalInCapture, 11020, _ptsz) \
  P(X, E, cuMemAllocFromPoolAsync, 11020, cuMemAllocFromPoolAsync, (CUdeviceptr * dptr, std::size_t bytes, CUmemoryPool pool, CUstream stream), (dptr, bytes, pool, stream), kNeedsInit | kTouchesDevice | kLegalInCapture, 11020, _ptsz) \
  R(X, E, cuMemPoolCreate, 11020, cuMemPoolCreate, (CUmemoryPool * pool, const CUmemPoolProps* props), (pool, props), kNeedsInit) \
  R(X, E, cuMemPoolDestroy, 11020, cuMemPoolDestroy, (CUmemoryPool pool), (pool), kNeedsInit) \
  R(X, E, cuMemPoolSetAttribute, 11020, cuMemPoolSetAttribute, (CUmemoryPool pool, CUmemPool_attribute attr, void* value), (pool, attr, value), kNeedsInit | kLegalInCapture) \
  R(X, E, cuMemPoolGetAttribute, 11020, cuMemPoolGetAttribute, (CUmemoryPool pool, CUmemPool_attribute attr, void* value), (pool, attr, value), kNeedsInit | kLegalInCapture) \
  R(X, E, cuMemPoolTrimTo, 11020, cuMemPoolTrimTo, (CUmemoryPool pool, std::size_t min_bytes_to_keep), (pool, min_bytes_to_keep), kNeedsInit) \
  R(X, E, cuMemPoolSetAccess, 11020, cuMemPoolSetAccess, (CUmemoryPool pool, const CUmemAccessDesc* map, std::size_t count), (pool, map, count), kNeedsInit) \
  R(X, E, cuMemPoolGetAccess, 11020, cuMemPoolGetAccess, (CUmemAccess_flags * flags, CUmemoryPool pool, CUmemLocation* location), (flags, pool, location), kNeedsInit | kLegalInCapture) \
  R(X, E, cuDeviceGetDefaultMemPool, 11020, cuDeviceGetDefaultMemPool, (CUmemoryPool * pool, CUdevice dev), (pool, dev), kNeedsInit | kLegalInCapture) \
  R(X, E, cuDeviceGetMemPool, 11020, cuDeviceGetMemPool, (CUmemoryPool * pool, CUdevice dev), (pool, dev), kNeedsInit | kLegalInCapture) \
  R(X, E, cuDeviceSetMemPool, 11020, cuDeviceSetMemPool, (CUdevice dev, CUmemoryPool pool), (dev, pool), kNeedsInit | kLegalInCapture)
