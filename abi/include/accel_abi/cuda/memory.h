#pragma once
// A fragment of the CUDA driver ABI table (accel_abi/cuda_driver.h includes it; include
// that header, never this one). Memory queries and kinds: pointer attributes, address
// ranges, host mappings, managed memory.
//
// ACCEL_CUDA_MEMORY_ROWS_(R, P, X, E): rows in the format of accel_abi/cuda_driver.h. The
// runtime never resolves them; the simulated libcuda.so.1 implements and exports them.
// ACCEL_CUDA_MEMORY_TYPES(T): every type declared here, by its cuda.h name; abi/check proves
// each the same size and alignment as cuda.h's, and maps it for the PFN checks.
// ACCEL_CUDA_MEMORY_CONSTANTS(C): every enumerator declared here; abi/check proves each the
// same value as cuda.h's.

#ifndef ACCEL_CUDA_DRIVER_FRAGMENT_
#error "include accel_abi/cuda_driver.h, not its fragments"
#endif

namespace accel::cuda_abi {

enum CUpointer_attribute : int {
  CU_POINTER_ATTRIBUTE_CONTEXT = 1,
  CU_POINTER_ATTRIBUTE_MEMORY_TYPE = 2,
  CU_POINTER_ATTRIBUTE_DEVICE_POINTER = 3,
  CU_POINTER_ATTRIBUTE_HOST_POINTER = 4,
  CU_POINTER_ATTRIBUTE_P2P_TOKENS = 5,
  CU_POINTER_ATTRIBUTE_SYNC_MEMOPS = 6,
  CU_POINTER_ATTRIBUTE_BUFFER_ID = 7,
  CU_POINTER_ATTRIBUTE_IS_MANAGED = 8,
  CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL = 9,
  CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE = 10,
  CU_POINTER_ATTRIBUTE_RANGE_START_ADDR = 11,
  CU_POINTER_ATTRIBUTE_RANGE_SIZE = 12,
  CU_POINTER_ATTRIBUTE_MAPPED = 13,
  CU_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES = 14,
  CU_POINTER_ATTRIBUTE_IS_GPU_DIRECT_RDMA_CAPABLE = 15,
  CU_POINTER_ATTRIBUTE_ACCESS_FLAGS = 16,
  CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE = 17,
  CU_POINTER_ATTRIBUTE_MAPPING_SIZE = 18,
  CU_POINTER_ATTRIBUTE_MAPPING_BASE_ADDR = 19,
  CU_POINTER_ATTRIBUTE_MEMORY_BLOCK_ID = 20,
  CU_POINTER_ATTRIBUTE_IS_HW_DECOMPRESS_CAPABLE = 21,
};

// CU_POINTER_ATTRIBUTE_ACCESS_FLAGS' values.
enum CUDA_POINTER_ATTRIBUTE_ACCESS_FLAGS : int {
  CU_POINTER_ATTRIBUTE_ACCESS_FLAG_NONE = 0x0,
  CU_POINTER_ATTRIBUTE_ACCESS_FLAG_READ = 0x1,
  CU_POINTER_ATTRIBUTE_ACCESS_FLAG_READWRITE = 0x3,
};

struct CUDA_POINTER_ATTRIBUTE_P2P_TOKENS {
  unsigned long long p2pToken;
  unsigned int vaSpaceToken;
};

enum CUmemAttach_flags : int {
  CU_MEM_ATTACH_GLOBAL = 0x1,
  CU_MEM_ATTACH_HOST = 0x2,
  CU_MEM_ATTACH_SINGLE = 0x4,
};

enum CUmem_advise : int {
  CU_MEM_ADVISE_SET_READ_MOSTLY = 1,
  CU_MEM_ADVISE_UNSET_READ_MOSTLY = 2,
  CU_MEM_ADVISE_SET_PREFERRED_LOCATION = 3,
  CU_MEM_ADVISE_UNSET_PREFERRED_LOCATION = 4,
  CU_MEM_ADVISE_SET_ACCESSED_BY = 5,
  CU_MEM_ADVISE_UNSET_ACCESSED_BY = 6,
};

enum CUmem_range_attribute : int {
  CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY = 1,
  CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION = 2,
  CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY = 3,
  CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION = 4,
  CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_TYPE = 5,
  CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_ID = 6,
  CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_TYPE = 7,
  CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_ID = 8,
};

// cuda.h's CU_DEVICE_CPU and CU_DEVICE_INVALID (macros there, so spelled differently here).
inline constexpr CUdevice kDeviceCpu = -1;
inline constexpr CUdevice kDeviceInvalid = -2;

}  // namespace accel::cuda_abi

#define ACCEL_CUDA_MEMORY_TYPES(T)        \
  T(CUpointer_attribute)                  \
  T(CUDA_POINTER_ATTRIBUTE_ACCESS_FLAGS)  \
  T(CUDA_POINTER_ATTRIBUTE_P2P_TOKENS)    \
  T(CUmemAttach_flags)                    \
  T(CUmem_advise)                         \
  T(CUmem_range_attribute)

#define ACCEL_CUDA_MEMORY_CONSTANTS(C)                    \
  C(CU_POINTER_ATTRIBUTE_CONTEXT)                         \
  C(CU_POINTER_ATTRIBUTE_MEMORY_TYPE)                     \
  C(CU_POINTER_ATTRIBUTE_DEVICE_POINTER)                  \
  C(CU_POINTER_ATTRIBUTE_HOST_POINTER)                    \
  C(CU_POINTER_ATTRIBUTE_P2P_TOKENS)                      \
  C(CU_POINTER_ATTRIBUTE_SYNC_MEMOPS)                     \
  C(CU_POINTER_ATTRIBUTE_BUFFER_ID)                       \
  C(CU_POINTER_ATTRIBUTE_IS_MANAGED)                      \
  C(CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL)                  \
  C(CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE)      \
  C(CU_POINTER_ATTRIBUTE_RANGE_START_ADDR)                \
  C(CU_POINTER_ATTRIBUTE_RANGE_SIZE)                      \
  C(CU_POINTER_ATTRIBUTE_MAPPED)                          \
  C(CU_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES)            \
  C(CU_POINTER_ATTRIBUTE_IS_GPU_DIRECT_RDMA_CAPABLE)      \
  C(CU_POINTER_ATTRIBUTE_ACCESS_FLAGS)                    \
  C(CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE)                  \
  C(CU_POINTER_ATTRIBUTE_MAPPING_SIZE)                    \
  C(CU_POINTER_ATTRIBUTE_MAPPING_BASE_ADDR)               \
  C(CU_POINTER_ATTRIBUTE_MEMORY_BLOCK_ID)                 \
  C(CU_POINTER_ATTRIBUTE_IS_HW_DECOMPRESS_CAPABLE)        \
  C(CU_POINTER_ATTRIBUTE_ACCESS_FLAG_NONE)                \
  C(CU_POINTER_ATTRIBUTE_ACCESS_FLAG_READ)                \
  C(CU_POINTER_ATTRIBUTE_ACCESS_FLAG_READWRITE)           \
  C(CU_MEM_ATTACH_GLOBAL)                                 \
  C(CU_MEM_ATTACH_HOST)                                   \
  C(CU_MEM_ATTACH_SINGLE)                                 \
  C(CU_MEM_ADVISE_SET_READ_MOSTLY)                        \
  C(CU_MEM_ADVISE_UNSET_READ_MOSTLY)                      \
  C(CU_MEM_ADVISE_SET_PREFERRED_LOCATION)                 \
  C(CU_MEM_ADVISE_UNSET_PREFERRED_LOCATION)               \
  C(CU_MEM_ADVISE_SET_ACCESSED_BY)                        \
  C(CU_MEM_ADVISE_UNSET_ACCESSED_BY)                      \
  C(CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY)                   \
  C(CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION)            \
  C(CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY)                   \
  C(CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION)        \
  C(CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_TYPE)       \
  C(CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_ID)         \
  C(CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_TYPE)   \
  C(CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_ID)

// Pointer attributes, address ranges, host mappings and managed memory. cuMemPrefetchAsync
// and cuMemAdvise keep their CUDA 8 forms (a device ordinal) beside the CUDA 12.2 _v2 forms
// (a CUmemLocation), as cuda.h and cuGetProcAddress serve both.
#define ACCEL_CUDA_MEMORY_ROWS_(R, P, X, E) \
  R(X, E, cuPointerGetAttribute, 4000, cuPointerGetAttribute, (void* data, CUpointer_attribute attribute, CUdeviceptr ptr), (data, attribute, ptr), kNeedsInit | kLegalInCapture) \
  R(X, E, cuPointerGetAttributes, 7000, cuPointerGetAttributes, (unsigned int num_attributes, CUpointer_attribute* attributes, void** data, CUdeviceptr ptr), (num_attributes, attributes, data, ptr), kNeedsInit | kLegalInCapture) \
  R(X, E, cuPointerSetAttribute, 6000, cuPointerSetAttribute, (const void* value, CUpointer_attribute attribute, CUdeviceptr ptr), (value, attribute, ptr), kNeedsInit) \
  R(X, E, cuMemGetAddressRange, 3020, cuMemGetAddressRange_v2, (CUdeviceptr * pbase, std::size_t* psize, CUdeviceptr dptr), (pbase, psize, dptr), kNeedsInit | kLegalInCapture) \
  R(X, E, cuMemHostGetDevicePointer, 3020, cuMemHostGetDevicePointer_v2, (CUdeviceptr * pdptr, void* p, unsigned int flags), (pdptr, p, flags), kNeedsInit | kLegalInCapture) \
  R(X, E, cuMemHostGetFlags, 2030, cuMemHostGetFlags, (unsigned int* pflags, void* p), (pflags, p), kNeedsInit | kLegalInCapture) \
  R(X, E, cuMemAllocManaged, 6000, cuMemAllocManaged, (CUdeviceptr * dptr, std::size_t bytesize, unsigned int flags), (dptr, bytesize, flags), kNeedsInit | kTouchesDevice) \
  P(X, E, cuMemPrefetchAsync, 8000, cuMemPrefetchAsync, (CUdeviceptr dev_ptr, std::size_t count, CUdevice dst_device, CUstream stream), (dev_ptr, count, dst_device, stream), kNeedsInit | kLegalInCapture, 8000, _ptsz) \
  P(X, E, cuMemPrefetchAsync, 12020, cuMemPrefetchAsync_v2, (CUdeviceptr dev_ptr, std::size_t count, CUmemLocation location, unsigned int flags, CUstream stream), (dev_ptr, count, location, flags, stream), kNeedsInit | kLegalInCapture, 12020, _ptsz) \
  R(X, E, cuMemAdvise, 8000, cuMemAdvise, (CUdeviceptr dev_ptr, std::size_t count, CUmem_advise advice, CUdevice device), (dev_ptr, count, advice, device), kNeedsInit) \
  R(X, E, cuMemAdvise, 12020, cuMemAdvise_v2, (CUdeviceptr dev_ptr, std::size_t count, CUmem_advise advice, CUmemLocation location), (dev_ptr, count, advice, location), kNeedsInit) \
  R(X, E, cuMemRangeGetAttribute, 8000, cuMemRangeGetAttribute, (void* data, std::size_t data_size, CUmem_range_attribute attribute, CUdeviceptr dev_ptr, std::size_t count), (data, data_size, attribute, dev_ptr, count), kNeedsInit | kLegalInCapture) \
  R(X, E, cuMemRangeGetAttributes, 8000, cuMemRangeGetAttributes, (void** data, std::size_t* data_sizes, CUmem_range_attribute* attributes, std::size_t num_attributes, CUdeviceptr dev_ptr, std::size_t count), (data, data_sizes, attributes, num_attributes, dev_ptr, count), kNeedsInit | kLegalInCapture)
