#pragma once
// A fragment of the CUDA runtime ABI table (accel_abi/cuda_runtime.h includes it; include
// that header, never this one). Memory: device, host, managed and pitched allocation, copies and
// memsets of every cudaMemcpyKind, pointer attributes, stream-ordered allocation and memory pools.
//
// ACCEL_CUDART_MEMORY_ROWS_(R, P, X, E): rows in the format of accel_abi/cuda_runtime.h;
// cudart/src/memory.cpp (allocation, pointers), memory_copies.cpp (copies, memsets) and
// memory_pools.cpp (stream-ordered allocation, pools) implement them.
// ACCEL_CUDART_MEMORY_TYPES(T): every type declared here, by its cuda_runtime_api.h name;
// ACCEL_CUDART_MEMORY_CONSTANTS(C): every enumerator declared here (abi/check proves both);
// ACCEL_CUDART_MEMORY_MACRO_CONSTANTS(M): the flags the toolkit spells as macros, M(ours,
// the toolkit's macro) (abi/check proves each value).
// cudaMemcpyKind, which the symbol copies share, is declared in kernels.h.

#ifndef ACCEL_CUDART_FRAGMENT_
#error "include accel_abi/cuda_runtime.h, not its fragments"
#endif

namespace accel::cudart_abi {

enum cudaMemoryType : int {
  cudaMemoryTypeUnregistered = 0,
  cudaMemoryTypeHost = 1,
  cudaMemoryTypeDevice = 2,
  cudaMemoryTypeManaged = 3,
};

// cudaPointerGetAttributes' answer (CUDA 13.0 layout; reserved is zero).
struct cudaPointerAttributes {
  cudaMemoryType type;
  int device;
  void* devicePointer;
  void* hostPointer;
  long reserved[8];
};

// The pool types: the same numbers and layouts as the driver's CUmem* (castable).
enum cudaMemPoolAttr : int {
  cudaMemPoolReuseFollowEventDependencies = 1,
  cudaMemPoolReuseAllowOpportunistic = 2,
  cudaMemPoolReuseAllowInternalDependencies = 3,
  cudaMemPoolAttrReleaseThreshold = 4,
  cudaMemPoolAttrReservedMemCurrent = 5,
  cudaMemPoolAttrReservedMemHigh = 6,
  cudaMemPoolAttrUsedMemCurrent = 7,
  cudaMemPoolAttrUsedMemHigh = 8,
};
enum cudaMemLocationType : int {
  cudaMemLocationTypeInvalid = 0,
  cudaMemLocationTypeNone = 0,
  cudaMemLocationTypeDevice = 1,
  cudaMemLocationTypeHost = 2,
  cudaMemLocationTypeHostNuma = 3,
  cudaMemLocationTypeHostNumaCurrent = 4,
};
enum cudaMemAccessFlags : int {
  cudaMemAccessFlagsProtNone = 0,
  cudaMemAccessFlagsProtRead = 1,
  cudaMemAccessFlagsProtReadWrite = 3,
};
enum cudaMemAllocationType : int {
  cudaMemAllocationTypeInvalid = 0,
  cudaMemAllocationTypePinned = 1,
  cudaMemAllocationTypeManaged = 2,
  cudaMemAllocationTypeMax = 0x7FFFFFFF,
};
enum cudaMemAllocationHandleType : int {
  cudaMemHandleTypeNone = 0,
  cudaMemHandleTypePosixFileDescriptor = 1,
  cudaMemHandleTypeWin32 = 2,
  cudaMemHandleTypeWin32Kmt = 4,
  cudaMemHandleTypeFabric = 8,
};
struct cudaMemLocation {
  cudaMemLocationType type;
  int id;
};
struct cudaMemAccessDesc {
  cudaMemLocation location;
  cudaMemAccessFlags flags;
};
struct cudaMemPoolProps {
  cudaMemAllocationType allocType;
  cudaMemAllocationHandleType handleTypes;
  cudaMemLocation location;
  void* win32SecurityAttributes;
  std::size_t maxSize;
  unsigned short usage;
  unsigned char reserved[54];
};

// driver_types.h spells the allocation flags as macros; each constant names its macro. The
// values equal the driver's CU_MEMHOSTALLOC_*, CU_MEMHOSTREGISTER_* and CU_MEM_ATTACH_*.
inline constexpr unsigned kHostAllocDefault = 0x00;        // cudaHostAllocDefault
inline constexpr unsigned kHostAllocPortable = 0x01;       // cudaHostAllocPortable
inline constexpr unsigned kHostAllocMapped = 0x02;         // cudaHostAllocMapped
inline constexpr unsigned kHostAllocWriteCombined = 0x04;  // cudaHostAllocWriteCombined
inline constexpr unsigned kHostRegisterDefault = 0x00;     // cudaHostRegisterDefault
inline constexpr unsigned kHostRegisterPortable = 0x01;    // cudaHostRegisterPortable
inline constexpr unsigned kHostRegisterMapped = 0x02;      // cudaHostRegisterMapped
inline constexpr unsigned kHostRegisterIoMemory = 0x04;    // cudaHostRegisterIoMemory
inline constexpr unsigned kHostRegisterReadOnly = 0x08;    // cudaHostRegisterReadOnly
inline constexpr unsigned kMemAttachGlobal = 0x01;         // cudaMemAttachGlobal
inline constexpr unsigned kMemAttachHost = 0x02;           // cudaMemAttachHost
inline constexpr unsigned kMemAttachSingle = 0x04;         // cudaMemAttachSingle

}  // namespace accel::cudart_abi

#define ACCEL_CUDART_MEMORY_TYPES(T) \
  T(cudaMemoryType)                  \
  T(cudaPointerAttributes)           \
  T(cudaMemPoolAttr)                 \
  T(cudaMemLocationType)             \
  T(cudaMemAccessFlags)              \
  T(cudaMemAllocationType)           \
  T(cudaMemAllocationHandleType)     \
  T(cudaMemLocation)                 \
  T(cudaMemAccessDesc)               \
  T(cudaMemPoolProps)
#define ACCEL_CUDART_MEMORY_CONSTANTS(C)       \
  C(cudaMemoryTypeUnregistered)                \
  C(cudaMemoryTypeHost)                        \
  C(cudaMemoryTypeDevice)                      \
  C(cudaMemoryTypeManaged)                     \
  C(cudaMemPoolReuseFollowEventDependencies)   \
  C(cudaMemPoolReuseAllowOpportunistic)        \
  C(cudaMemPoolReuseAllowInternalDependencies) \
  C(cudaMemPoolAttrReleaseThreshold)           \
  C(cudaMemPoolAttrReservedMemCurrent)         \
  C(cudaMemPoolAttrReservedMemHigh)            \
  C(cudaMemPoolAttrUsedMemCurrent)             \
  C(cudaMemPoolAttrUsedMemHigh)                \
  C(cudaMemLocationTypeInvalid)                \
  C(cudaMemLocationTypeNone)                   \
  C(cudaMemLocationTypeDevice)                 \
  C(cudaMemLocationTypeHost)                   \
  C(cudaMemLocationTypeHostNuma)               \
  C(cudaMemLocationTypeHostNumaCurrent)        \
  C(cudaMemAccessFlagsProtNone)                \
  C(cudaMemAccessFlagsProtRead)                \
  C(cudaMemAccessFlagsProtReadWrite)           \
  C(cudaMemAllocationTypeInvalid)              \
  C(cudaMemAllocationTypePinned)               \
  C(cudaMemAllocationTypeManaged)              \
  C(cudaMemAllocationTypeMax)                  \
  C(cudaMemHandleTypeNone)                     \
  C(cudaMemHandleTypePosixFileDescriptor)      \
  C(cudaMemHandleTypeWin32)                    \
  C(cudaMemHandleTypeWin32Kmt)                 \
  C(cudaMemHandleTypeFabric)
#define ACCEL_CUDART_MEMORY_MACRO_CONSTANTS(M)           \
  M(kHostAllocDefault, cudaHostAllocDefault)             \
  M(kHostAllocPortable, cudaHostAllocPortable)           \
  M(kHostAllocMapped, cudaHostAllocMapped)               \
  M(kHostAllocWriteCombined, cudaHostAllocWriteCombined) \
  M(kHostRegisterDefault, cudaHostRegisterDefault)       \
  M(kHostRegisterPortable, cudaHostRegisterPortable)     \
  M(kHostRegisterMapped, cudaHostRegisterMapped)         \
  M(kHostRegisterIoMemory, cudaHostRegisterIoMemory)     \
  M(kHostRegisterReadOnly, cudaHostRegisterReadOnly)     \
  M(kMemAttachGlobal, cudaMemAttachGlobal)               \
  M(kMemAttachHost, cudaMemAttachHost)                   \
  M(kMemAttachSingle, cudaMemAttachSingle)

// clang-format off
#define ACCEL_CUDART_MEMORY_ROWS_(R, P, X, E) \
  R(X, E, cudaError_t, cudaMalloc, (void** dev_ptr, std::size_t size), (dev_ptr, size), kNoTraits) \
  R(X, E, cudaError_t, cudaFree, (void* dev_ptr), (dev_ptr), kNoTraits) \
  R(X, E, cudaError_t, cudaMallocHost, (void** ptr, std::size_t size), (ptr, size), kNoTraits) \
  R(X, E, cudaError_t, cudaHostAlloc, (void** host_ptr, std::size_t size, unsigned int flags), (host_ptr, size, flags), kNoTraits) \
  R(X, E, cudaError_t, cudaFreeHost, (void* ptr), (ptr), kNoTraits) \
  R(X, E, cudaError_t, cudaHostRegister, (void* ptr, std::size_t size, unsigned int flags), (ptr, size, flags), kNoTraits) \
  R(X, E, cudaError_t, cudaHostUnregister, (void* ptr), (ptr), kNoTraits) \
  R(X, E, cudaError_t, cudaHostGetDevicePointer, (void** dev_ptr, void* host_ptr, unsigned int flags), (dev_ptr, host_ptr, flags), kNoTraits) \
  R(X, E, cudaError_t, cudaHostGetFlags, (unsigned int* flags, void* host_ptr), (flags, host_ptr), kNoTraits) \
  R(X, E, cudaError_t, cudaMallocManaged, (void** dev_ptr, std::size_t size, unsigned int flags), (dev_ptr, size, flags), kNoTraits) \
  R(X, E, cudaError_t, cudaMallocPitch, (void** dev_ptr, std::size_t* pitch, std::size_t width, std::size_t height), (dev_ptr, pitch, width, height), kNoTraits) \
  R(X, E, cudaError_t, cudaMemGetInfo, (std::size_t* free_bytes, std::size_t* total_bytes), (free_bytes, total_bytes), kNoTraits) \
  R(X, E, cudaError_t, cudaPointerGetAttributes, (cudaPointerAttributes* attributes, const void* ptr), (attributes, ptr), kNoTraits) \
  P(X, E, cudaError_t, cudaMemcpy, (void* dst, const void* src, std::size_t count, cudaMemcpyKind kind), (dst, src, count, kind), kNoTraits, _ptds) \
  P(X, E, cudaError_t, cudaMemcpyAsync, (void* dst, const void* src, std::size_t count, cudaMemcpyKind kind, cudaStream_t stream), (dst, src, count, kind, stream), kNoTraits, _ptsz) \
  P(X, E, cudaError_t, cudaMemcpy2D, (void* dst, std::size_t dpitch, const void* src, std::size_t spitch, std::size_t width, std::size_t height, cudaMemcpyKind kind), (dst, dpitch, src, spitch, width, height, kind), kNoTraits, _ptds) \
  P(X, E, cudaError_t, cudaMemcpy2DAsync, (void* dst, std::size_t dpitch, const void* src, std::size_t spitch, std::size_t width, std::size_t height, cudaMemcpyKind kind, cudaStream_t stream), (dst, dpitch, src, spitch, width, height, kind, stream), kNoTraits, _ptsz) \
  R(X, E, cudaError_t, cudaMemcpyPeer, (void* dst, int dst_device, const void* src, int src_device, std::size_t count), (dst, dst_device, src, src_device, count), kNoTraits) \
  R(X, E, cudaError_t, cudaMemcpyPeerAsync, (void* dst, int dst_device, const void* src, int src_device, std::size_t count, cudaStream_t stream), (dst, dst_device, src, src_device, count, stream), kNoTraits) \
  P(X, E, cudaError_t, cudaMemset, (void* dev_ptr, int value, std::size_t count), (dev_ptr, value, count), kNoTraits, _ptds) \
  P(X, E, cudaError_t, cudaMemsetAsync, (void* dev_ptr, int value, std::size_t count, cudaStream_t stream), (dev_ptr, value, count, stream), kNoTraits, _ptsz) \
  P(X, E, cudaError_t, cudaMemset2D, (void* dev_ptr, std::size_t pitch, int value, std::size_t width, std::size_t height), (dev_ptr, pitch, value, width, height), kNoTraits, _ptds) \
  P(X, E, cudaError_t, cudaMemset2DAsync, (void* dev_ptr, std::size_t pitch, int value, std::size_t width, std::size_t height, cudaStream_t stream), (dev_ptr, pitch, value, width, height, stream), kNoTraits, _ptsz) \
  P(X, E, cudaError_t, cudaMallocAsync, (void** dev_ptr, std::size_t size, cudaStream_t stream), (dev_ptr, size, stream), kNoTraits, _ptsz) \
  P(X, E, cudaError_t, cudaFreeAsync, (void* dev_ptr, cudaStream_t stream), (dev_ptr, stream), kNoTraits, _ptsz) \
  P(X, E, cudaError_t, cudaMallocFromPoolAsync, (void** ptr, std::size_t size, cudaMemPool_t pool, cudaStream_t stream), (ptr, size, pool, stream), kNoTraits, _ptsz) \
  R(X, E, cudaError_t, cudaMemPoolCreate, (cudaMemPool_t* pool, const cudaMemPoolProps* props), (pool, props), kNoTraits) \
  R(X, E, cudaError_t, cudaMemPoolDestroy, (cudaMemPool_t pool), (pool), kNoTraits) \
  R(X, E, cudaError_t, cudaMemPoolSetAttribute, (cudaMemPool_t pool, cudaMemPoolAttr attr, void* value), (pool, attr, value), kNoTraits) \
  R(X, E, cudaError_t, cudaMemPoolGetAttribute, (cudaMemPool_t pool, cudaMemPoolAttr attr, void* value), (pool, attr, value), kNoTraits) \
  R(X, E, cudaError_t, cudaMemPoolTrimTo, (cudaMemPool_t pool, std::size_t min_bytes_to_keep), (pool, min_bytes_to_keep), kNoTraits) \
  R(X, E, cudaError_t, cudaMemPoolSetAccess, (cudaMemPool_t pool, const cudaMemAccessDesc* desc_list, std::size_t count), (pool, desc_list, count), kNoTraits) \
  R(X, E, cudaError_t, cudaMemPoolGetAccess, (cudaMemAccessFlags* flags, cudaMemPool_t pool, cudaMemLocation* location), (flags, pool, location), kNoTraits) \
  R(X, E, cudaError_t, cudaDeviceSetMemPool, (int device, cudaMemPool_t pool), (device, pool), kNoTraits) \
  R(X, E, cudaError_t, cudaDeviceGetMemPool, (cudaMemPool_t* pool, int device), (pool, device), kNoTraits)
// clang-format on
