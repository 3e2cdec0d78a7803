#pragma once
// A fragment of the CUDA runtime ABI table (accel_abi/cuda_runtime.h includes it; include
// that header, never this one). Kernels: what nvcc's host stubs import (__cudaRegisterFatBinary ..
// __cudaLaunchKernel), launches, function attributes, occupancy and symbols.
//
// ACCEL_CUDART_KERNEL_ROWS_(R, P, X, E): rows of cuda_runtime_api.h in the format of
// accel_abi/cuda_runtime.h; ACCEL_CUDART_NVCC_ROWS_(R, P, X, E): the registration and launch
// interface nvcc's generated host code calls (declared by the toolkit only for nvcc's own
// compilation: crt/host_runtime.h and crt/device_functions.h under __CUDACC__, so
// abi/check/cudart_nvcc_abi_check.cu, compiled by nvcc, proves them). cudart/src/kernels.cpp
// and kernel_registry.cpp implement both.
// ACCEL_CUDART_KERNEL_TYPES(T): every type declared here, by its cuda_runtime_api.h name;
// ACCEL_CUDART_KERNEL_CONSTANTS(C): every enumerator declared here (abi/check proves both).

#ifndef ACCEL_CUDART_FRAGMENT_
#error "include accel_abi/cuda_runtime.h, not its fragments"
#endif

namespace accel::cudart_abi {

// vector_types.h's: passed by value to the launch entry points (three unsigned ints).
struct uint3 {
  unsigned int x, y, z;
};
struct dim3 {
  unsigned int x = 1, y = 1, z = 1;
};

// The runtime's kernel handle is the driver's (driver_types.h).
using cudaKernel_t = cuda_abi::CUkernel;

enum cudaMemcpyKind : int {
  cudaMemcpyHostToHost = 0,
  cudaMemcpyHostToDevice = 1,
  cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3,
  cudaMemcpyDefault = 4,
};

enum cudaFuncCache : int {
  cudaFuncCachePreferNone = 0,
  cudaFuncCachePreferShared = 1,
  cudaFuncCachePreferL1 = 2,
  cudaFuncCachePreferEqual = 3,
};

// The settable attributes: the same numbers as the driver's CUfunction_attribute.
enum cudaFuncAttribute : int {
  cudaFuncAttributeMaxDynamicSharedMemorySize = 8,
  cudaFuncAttributePreferredSharedMemoryCarveout = 9,
  cudaFuncAttributeClusterDimMustBeSet = 10,
  cudaFuncAttributeRequiredClusterWidth = 11,
  cudaFuncAttributeRequiredClusterHeight = 12,
  cudaFuncAttributeRequiredClusterDepth = 13,
  cudaFuncAttributeNonPortableClusterSizeAllowed = 14,
  cudaFuncAttributeClusterSchedulingPolicyPreference = 15,
  cudaFuncAttributeMax,
};

// cudaFuncGetAttributes' answer, CUDA 13.0 layout; each field is one CUfunction_attribute.
struct cudaFuncAttributes {
  std::size_t sharedSizeBytes;
  std::size_t constSizeBytes;
  std::size_t localSizeBytes;
  int maxThreadsPerBlock;
  int numRegs;
  int ptxVersion;
  int binaryVersion;
  int cacheModeCA;
  int maxDynamicSharedSizeBytes;
  int preferredShmemCarveout;
  int clusterDimMustBeSet;
  int requiredClusterWidth;
  int requiredClusterHeight;
  int requiredClusterDepth;
  int clusterSchedulingPolicyPreference;
  int nonPortableClusterSizeAllowed;
  int reserved[16];
};

// Launch attributes: the driver's numbers and layout (cudart passes them to cuLaunchKernelEx
// as CUlaunchAttribute; kernels.cpp asserts the layouts equal).
enum cudaLaunchAttributeID : int {
  cudaLaunchAttributeIgnore = 0,
  cudaLaunchAttributeAccessPolicyWindow = 1,
  cudaLaunchAttributeCooperative = 2,
  cudaLaunchAttributeSynchronizationPolicy = 3,
  cudaLaunchAttributeClusterDimension = 4,
  cudaLaunchAttributeClusterSchedulingPolicyPreference = 5,
  cudaLaunchAttributeProgrammaticStreamSerialization = 6,
  cudaLaunchAttributeProgrammaticEvent = 7,
  cudaLaunchAttributePriority = 8,
  cudaLaunchAttributeMemSyncDomainMap = 9,
  cudaLaunchAttributeMemSyncDomain = 10,
  cudaLaunchAttributePreferredClusterDimension = 11,
  cudaLaunchAttributeLaunchCompletionEvent = 12,
  cudaLaunchAttributeDeviceUpdatableKernelNode = 13,
  cudaLaunchAttributePreferredSharedMemoryCarveout = 14,
  cudaLaunchAttributeNvlinkUtilCentricScheduling = 16,
};

// 64 bytes (driver_types.h's first member is a 64-byte pad); the members tests use.
union cudaLaunchAttributeValue {
  char pad[64];
  int cooperative;
  struct {
    unsigned int x;
    unsigned int y;
    unsigned int z;
  } clusterDim;
  int priority;
  struct {
    cudaEvent_t event;
    int flags;
  } launchCompletionEvent;
};

struct cudaLaunchAttribute {
  cudaLaunchAttributeID id;
  char pad[8 - sizeof(cudaLaunchAttributeID)];
  cudaLaunchAttributeValue val;
};

struct cudaLaunchConfig_t {
  dim3 gridDim;
  dim3 blockDim;
  std::size_t dynamicSmemBytes;
  cudaStream_t stream;
  cudaLaunchAttribute* attrs;
  unsigned int numAttrs;
};

// cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags' flags (macros in the toolkit).
inline constexpr unsigned int kOccupancyDefault = 0x00;
inline constexpr unsigned int kOccupancyDisableCachingOverride = 0x01;

}  // namespace accel::cudart_abi

#define ACCEL_CUDART_KERNEL_TYPES(T) \
  T(uint3)                           \
  T(dim3)                            \
  T(cudaMemcpyKind)                  \
  T(cudaFuncCache)                   \
  T(cudaFuncAttribute)               \
  T(cudaFuncAttributes)              \
  T(cudaLaunchAttributeID)           \
  T(cudaLaunchAttributeValue)        \
  T(cudaLaunchAttribute)             \
  T(cudaLaunchConfig_t)
#define ACCEL_CUDART_KERNEL_CONSTANTS(C)                  \
  C(cudaMemcpyHostToHost)                                 \
  C(cudaMemcpyHostToDevice)                               \
  C(cudaMemcpyDeviceToHost)                               \
  C(cudaMemcpyDeviceToDevice)                             \
  C(cudaMemcpyDefault)                                    \
  C(cudaFuncCachePreferNone)                              \
  C(cudaFuncCachePreferShared)                            \
  C(cudaFuncCachePreferL1)                                \
  C(cudaFuncCachePreferEqual)                             \
  C(cudaFuncAttributeMaxDynamicSharedMemorySize)          \
  C(cudaFuncAttributePreferredSharedMemoryCarveout)       \
  C(cudaFuncAttributeClusterDimMustBeSet)                 \
  C(cudaFuncAttributeRequiredClusterWidth)                \
  C(cudaFuncAttributeRequiredClusterHeight)               \
  C(cudaFuncAttributeRequiredClusterDepth)                \
  C(cudaFuncAttributeNonPortableClusterSizeAllowed)       \
  C(cudaFuncAttributeClusterSchedulingPolicyPreference)   \
  C(cudaFuncAttributeMax)                                 \
  C(cudaLaunchAttributeIgnore)                            \
  C(cudaLaunchAttributeAccessPolicyWindow)                \
  C(cudaLaunchAttributeCooperative)                       \
  C(cudaLaunchAttributeSynchronizationPolicy)             \
  C(cudaLaunchAttributeClusterDimension)                  \
  C(cudaLaunchAttributeClusterSchedulingPolicyPreference) \
  C(cudaLaunchAttributeProgrammaticStreamSerialization)   \
  C(cudaLaunchAttributeProgrammaticEvent)                 \
  C(cudaLaunchAttributePriority)                          \
  C(cudaLaunchAttributeMemSyncDomainMap)                  \
  C(cudaLaunchAttributeMemSyncDomain)                     \
  C(cudaLaunchAttributePreferredClusterDimension)         \
  C(cudaLaunchAttributeLaunchCompletionEvent)             \
  C(cudaLaunchAttributeDeviceUpdatableKernelNode)         \
  C(cudaLaunchAttributePreferredSharedMemoryCarveout)     \
  C(cudaLaunchAttributeNvlinkUtilCentricScheduling)

// clang-format off
#define ACCEL_CUDART_KERNEL_ROWS_(R, P, X, E) \
  P(X, E, cudaError_t, cudaLaunchKernel, (const void* func, dim3 grid, dim3 block, void** args, std::size_t shared_bytes, cudaStream_t stream), (func, grid, block, args, shared_bytes, stream), kNoTraits, _ptsz) \
  P(X, E, cudaError_t, cudaLaunchKernelExC, (const cudaLaunchConfig_t* config, const void* func, void** args), (config, func, args), kNoTraits, _ptsz) \
  P(X, E, cudaError_t, cudaLaunchCooperativeKernel, (const void* func, dim3 grid, dim3 block, void** args, std::size_t shared_bytes, cudaStream_t stream), (func, grid, block, args, shared_bytes, stream), kNoTraits, _ptsz) \
  R(X, E, cudaError_t, cudaFuncGetAttributes, (cudaFuncAttributes* attr, const void* func), (attr, func), kNoTraits) \
  R(X, E, cudaError_t, cudaFuncSetAttribute, (const void* func, cudaFuncAttribute attr, int value), (func, attr, value), kNoTraits) \
  R(X, E, cudaError_t, cudaFuncSetCacheConfig, (const void* func, cudaFuncCache config), (func, config), kNoTraits) \
  R(X, E, cudaError_t, cudaOccupancyMaxActiveBlocksPerMultiprocessor, (int* num_blocks, const void* func, int block_size, std::size_t dynamic_shared_bytes), (num_blocks, func, block_size, dynamic_shared_bytes), kNoTraits) \
  R(X, E, cudaError_t, cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags, (int* num_blocks, const void* func, int block_size, std::size_t dynamic_shared_bytes, unsigned int flags), (num_blocks, func, block_size, dynamic_shared_bytes, flags), kNoTraits) \
  R(X, E, cudaError_t, cudaOccupancyAvailableDynamicSMemPerBlock, (std::size_t* dynamic_shared_bytes, const void* func, int num_blocks, int block_size), (dynamic_shared_bytes, func, num_blocks, block_size), kNoTraits) \
  R(X, E, cudaError_t, cudaGetSymbolAddress, (void** dev_ptr, const void* symbol), (dev_ptr, symbol), kNoTraits) \
  R(X, E, cudaError_t, cudaGetSymbolSize, (std::size_t* size, const void* symbol), (size, symbol), kNoTraits) \
  P(X, E, cudaError_t, cudaMemcpyToSymbol, (const void* symbol, const void* src, std::size_t count, std::size_t offset, cudaMemcpyKind kind), (symbol, src, count, offset, kind), kNoTraits, _ptds) \
  P(X, E, cudaError_t, cudaMemcpyFromSymbol, (void* dst, const void* symbol, std::size_t count, std::size_t offset, cudaMemcpyKind kind), (dst, symbol, count, offset, kind), kNoTraits, _ptds) \
  P(X, E, cudaError_t, cudaMemcpyToSymbolAsync, (const void* symbol, const void* src, std::size_t count, std::size_t offset, cudaMemcpyKind kind, cudaStream_t stream), (symbol, src, count, offset, kind, stream), kNoTraits, _ptsz) \
  P(X, E, cudaError_t, cudaMemcpyFromSymbolAsync, (void* dst, const void* symbol, std::size_t count, std::size_t offset, cudaMemcpyKind kind, cudaStream_t stream), (dst, symbol, count, offset, kind, stream), kNoTraits, _ptsz)

// Registration runs in the program's static constructors: driver-free (Note [Lazy loading] in
// cudart/src/kernel_registry.h). __cudaLaunchKernel_ptsz is its own row: nvcc's helper picks
// the symbol, no macro renames it.
#define ACCEL_CUDART_NVCC_ROWS_(R, P, X, E) \
  R(X, E, void**, __cudaRegisterFatBinary, (void* fat_cubin), (fat_cubin), kDriverFree) \
  R(X, E, void, __cudaRegisterFatBinaryEnd, (void** handle), (handle), kDriverFree) \
  R(X, E, void, __cudaUnregisterFatBinary, (void** handle), (handle), kDriverFree) \
  R(X, E, void, __cudaRegisterFunction, (void** handle, const char* host_fun, char* device_fun, const char* device_name, int thread_limit, uint3* tid, uint3* bid, dim3* block_dim, dim3* grid_dim, int* warp_size), (handle, host_fun, device_fun, device_name, thread_limit, tid, bid, block_dim, grid_dim, warp_size), kDriverFree) \
  R(X, E, void, __cudaRegisterVar, (void** handle, char* host_var, char* device_address, const char* device_name, int ext, std::size_t size, int constant, int global), (handle, host_var, device_address, device_name, ext, size, constant, global), kDriverFree) \
  R(X, E, void, __cudaRegisterManagedVar, (void** handle, void** host_var_ptr_address, char* device_address, const char* device_name, int ext, std::size_t size, int constant, int global), (handle, host_var_ptr_address, device_address, device_name, ext, size, constant, global), kDriverFree) \
  R(X, E, char, __cudaInitModule, (void** handle), (handle), kNoTraits) \
  R(X, E, unsigned, __cudaPushCallConfiguration, (dim3 grid, dim3 block, std::size_t shared_bytes, cudaStream_t stream), (grid, block, shared_bytes, stream), kDriverFree) \
  R(X, E, cudaError_t, __cudaPopCallConfiguration, (dim3* grid, dim3* block, std::size_t* shared_bytes, void* stream), (grid, block, shared_bytes, stream), kDriverFree) \
  R(X, E, cudaError_t, __cudaGetKernel, (cudaKernel_t* kernel, const void* func), (kernel, func), kNoTraits) \
  R(X, E, cudaError_t, __cudaLaunchKernel, (cudaKernel_t kernel, dim3 grid, dim3 block, void** args, std::size_t shared_bytes, cudaStream_t stream), (kernel, grid, block, args, shared_bytes, stream), kNoTraits) \
  R(X, E, cudaError_t, __cudaLaunchKernel_ptsz, (cudaKernel_t kernel, dim3 grid, dim3 block, void** args, std::size_t shared_bytes, cudaStream_t stream), (kernel, grid, block, args, shared_bytes, stream), kNoTraits)
// clang-format on
