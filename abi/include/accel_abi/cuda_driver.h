#pragma once
// The subset of the CUDA driver C ABI that accel speaks, declared once.
//
// Who uses it: the CUDA backend (runtime/src/backends/cuda) calls these entry points
// through pointers it resolves at run time; the mock driver facade (mockdev/src/cuda)
// implements them. Neither includes the toolkit's cuda.h, so the CUDA path builds on a
// machine with no toolkit.
//
// Everything lives in namespace accel::cuda_abi and keeps the vendor's spelling, so a
// reader can grep the CUDA documentation for any name here. Function-pointer types are
// named exactly like cudaTypedefs.h (PFN_<name>_v<version>): the version suffix is the
// `cudaVersion` argument the runtime passes to cuGetProcAddress for that entry point.
//
// Where CMake finds the toolkit, abi/check/cuda_abi_check.cpp proves at compile time that
// every enum value and every function-pointer type below is identical to cuda.h /
// cudaTypedefs.h. Adding an entry point: see ACCEL_CUDA_DRIVER_TABLE below.

#include <cstddef>
#include <cstdint>

namespace accel::cuda_abi {

// Every CUresult value of CUDA 13.0 (names and numbers are the vendor's).
#define ACCEL_CUDA_RESULTS(X) \
  X(CUDA_SUCCESS, 0) \
  X(CUDA_ERROR_INVALID_VALUE, 1) \
  X(CUDA_ERROR_OUT_OF_MEMORY, 2) \
  X(CUDA_ERROR_NOT_INITIALIZED, 3) \
  X(CUDA_ERROR_DEINITIALIZED, 4) \
  X(CUDA_ERROR_PROFILER_DISABLED, 5) \
  X(CUDA_ERROR_PROFILER_NOT_INITIALIZED, 6) \
  X(CUDA_ERROR_PROFILER_ALREADY_STARTED, 7) \
  X(CUDA_ERROR_PROFILER_ALREADY_STOPPED, 8) \
  X(CUDA_ERROR_STUB_LIBRARY, 34) \
  X(CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER, 36) \
  X(CUDA_ERROR_DEVICE_UNAVAILABLE, 46) \
  X(CUDA_ERROR_NO_DEVICE, 100) \
  X(CUDA_ERROR_INVALID_DEVICE, 101) \
  X(CUDA_ERROR_DEVICE_NOT_LICENSED, 102) \
  X(CUDA_ERROR_INVALID_IMAGE, 200) \
  X(CUDA_ERROR_INVALID_CONTEXT, 201) \
  X(CUDA_ERROR_CONTEXT_ALREADY_CURRENT, 202) \
  X(CUDA_ERROR_MAP_FAILED, 205) \
  X(CUDA_ERROR_UNMAP_FAILED, 206) \
  X(CUDA_ERROR_ARRAY_IS_MAPPED, 207) \
  X(CUDA_ERROR_ALREADY_MAPPED, 208) \
  X(CUDA_ERROR_NO_BINARY_FOR_GPU, 209) \
  X(CUDA_ERROR_ALREADY_ACQUIRED, 210) \
  X(CUDA_ERROR_NOT_MAPPED, 211) \
  X(CUDA_ERROR_NOT_MAPPED_AS_ARRAY, 212) \
  X(CUDA_ERROR_NOT_MAPPED_AS_POINTER, 213) \
  X(CUDA_ERROR_ECC_UNCORRECTABLE, 214) \
  X(CUDA_ERROR_UNSUPPORTED_LIMIT, 215) \
  X(CUDA_ERROR_CONTEXT_ALREADY_IN_USE, 216) \
  X(CUDA_ERROR_PEER_ACCESS_UNSUPPORTED, 217) \
  X(CUDA_ERROR_INVALID_PTX, 218) \
  X(CUDA_ERROR_INVALID_GRAPHICS_CONTEXT, 219) \
  X(CUDA_ERROR_NVLINK_UNCORRECTABLE, 220) \
  X(CUDA_ERROR_JIT_COMPILER_NOT_FOUND, 221) \
  X(CUDA_ERROR_UNSUPPORTED_PTX_VERSION, 222) \
  X(CUDA_ERROR_JIT_COMPILATION_DISABLED, 223) \
  X(CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY, 224) \
  X(CUDA_ERROR_UNSUPPORTED_DEVSIDE_SYNC, 225) \
  X(CUDA_ERROR_CONTAINED, 226) \
  X(CUDA_ERROR_INVALID_SOURCE, 300) \
  X(CUDA_ERROR_FILE_NOT_FOUND, 301) \
  X(CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND, 302) \
  X(CUDA_ERROR_SHARED_OBJECT_INIT_FAILED, 303) \
  X(CUDA_ERROR_OPERATING_SYSTEM, 304) \
  X(CUDA_ERROR_INVALID_HANDLE, 400) \
  X(CUDA_ERROR_ILLEGAL_STATE, 401) \
  X(CUDA_ERROR_LOSSY_QUERY, 402) \
  X(CUDA_ERROR_NOT_FOUND, 500) \
  X(CUDA_ERROR_NOT_READY, 600) \
  X(CUDA_ERROR_ILLEGAL_ADDRESS, 700) \
  X(CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, 701) \
  X(CUDA_ERROR_LAUNCH_TIMEOUT, 702) \
  X(CUDA_ERROR_LAUNCH_INCOMPATIBLE_TEXTURING, 703) \
  X(CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED, 704) \
  X(CUDA_ERROR_PEER_ACCESS_NOT_ENABLED, 705) \
  X(CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE, 708) \
  X(CUDA_ERROR_CONTEXT_IS_DESTROYED, 709) \
  X(CUDA_ERROR_ASSERT, 710) \
  X(CUDA_ERROR_TOO_MANY_PEERS, 711) \
  X(CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED, 712) \
  X(CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED, 713) \
  X(CUDA_ERROR_HARDWARE_STACK_ERROR, 714) \
  X(CUDA_ERROR_ILLEGAL_INSTRUCTION, 715) \
  X(CUDA_ERROR_MISALIGNED_ADDRESS, 716) \
  X(CUDA_ERROR_INVALID_ADDRESS_SPACE, 717) \
  X(CUDA_ERROR_INVALID_PC, 718) \
  X(CUDA_ERROR_LAUNCH_FAILED, 719) \
  X(CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE, 720) \
  X(CUDA_ERROR_TENSOR_MEMORY_LEAK, 721) \
  X(CUDA_ERROR_NOT_PERMITTED, 800) \
  X(CUDA_ERROR_NOT_SUPPORTED, 801) \
  X(CUDA_ERROR_SYSTEM_NOT_READY, 802) \
  X(CUDA_ERROR_SYSTEM_DRIVER_MISMATCH, 803) \
  X(CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE, 804) \
  X(CUDA_ERROR_MPS_CONNECTION_FAILED, 805) \
  X(CUDA_ERROR_MPS_RPC_FAILURE, 806) \
  X(CUDA_ERROR_MPS_SERVER_NOT_READY, 807) \
  X(CUDA_ERROR_MPS_MAX_CLIENTS_REACHED, 808) \
  X(CUDA_ERROR_MPS_MAX_CONNECTIONS_REACHED, 809) \
  X(CUDA_ERROR_MPS_CLIENT_TERMINATED, 810) \
  X(CUDA_ERROR_CDP_NOT_SUPPORTED, 811) \
  X(CUDA_ERROR_CDP_VERSION_MISMATCH, 812) \
  X(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, 900) \
  X(CUDA_ERROR_STREAM_CAPTURE_INVALIDATED, 901) \
  X(CUDA_ERROR_STREAM_CAPTURE_MERGE, 902) \
  X(CUDA_ERROR_STREAM_CAPTURE_UNMATCHED, 903) \
  X(CUDA_ERROR_STREAM_CAPTURE_UNJOINED, 904) \
  X(CUDA_ERROR_STREAM_CAPTURE_ISOLATION, 905) \
  X(CUDA_ERROR_STREAM_CAPTURE_IMPLICIT, 906) \
  X(CUDA_ERROR_CAPTURED_EVENT, 907) \
  X(CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD, 908) \
  X(CUDA_ERROR_TIMEOUT, 909) \
  X(CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE, 910) \
  X(CUDA_ERROR_EXTERNAL_DEVICE, 911) \
  X(CUDA_ERROR_INVALID_CLUSTER_SIZE, 912) \
  X(CUDA_ERROR_FUNCTION_NOT_LOADED, 913) \
  X(CUDA_ERROR_INVALID_RESOURCE_TYPE, 914) \
  X(CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION, 915) \
  X(CUDA_ERROR_KEY_ROTATION, 916) \
  X(CUDA_ERROR_UNKNOWN, 999) \

enum CUresult : int {
#define ACCEL_CUDA_RESULT_ENUMERATOR(name, value) name = value,
  ACCEL_CUDA_RESULTS(ACCEL_CUDA_RESULT_ENUMERATOR)
#undef ACCEL_CUDA_RESULT_ENUMERATOR
};

using CUdevice = int;
using CUdeviceptr = unsigned long long;
using cuuint64_t = std::uint64_t;

struct CUctx_st;  // opaque; the driver (or the mock) defines it
using CUcontext = CUctx_st*;
struct CUstream_st;  // opaque handles: the driver (or the mock) defines them
using CUstream = CUstream_st*;
struct CUevent_st;
using CUevent = CUevent_st*;
struct CUmod_st;
using CUmodule = CUmod_st*;
struct CUfunc_st;
using CUfunction = CUfunc_st*;
struct CUgraph_st;
using CUgraph = CUgraph_st*;
struct CUgraphExec_st;
using CUgraphExec = CUgraphExec_st*;
struct CUgraphNode_st;
using CUgraphNode = CUgraphNode_st*;

struct CUgraphEdgeData {
  unsigned char from_port;
  unsigned char to_port;
  unsigned char type;
  unsigned char reserved[5];
};

using CUhostFn = void (*)(void* user_data);
using CUstreamCallback = void (*)(CUstream stream, CUresult status, void* user_data);

// The special stream handles (cuda.h's CU_STREAM_LEGACY / CU_STREAM_PER_THREAD are casts
// of these values); 0 is "the default stream" of the entry point's flavour (legacy here).
inline constexpr std::uintptr_t kStreamLegacy = 0x1;
inline constexpr std::uintptr_t kStreamPerThread = 0x2;

// Flags, with the vendor's names and values.
enum CUstream_flags : unsigned {
  CU_STREAM_DEFAULT = 0x0,
  CU_STREAM_NON_BLOCKING = 0x1,
};
enum CUevent_flags : unsigned {
  CU_EVENT_DEFAULT = 0x0,
  CU_EVENT_BLOCKING_SYNC = 0x1,
  CU_EVENT_DISABLE_TIMING = 0x2,
  CU_EVENT_INTERPROCESS = 0x4,
};
enum CUevent_record_flags : unsigned {
  CU_EVENT_RECORD_DEFAULT = 0x0,
  CU_EVENT_RECORD_EXTERNAL = 0x1,
};
enum CUevent_wait_flags : unsigned {
  CU_EVENT_WAIT_DEFAULT = 0x0,
  CU_EVENT_WAIT_EXTERNAL = 0x1,
};
// cuda.h defines the host-memory flags as macros, so they cannot keep the vendor's
// spelling here (abi/check would not compile); each names its macro.
inline constexpr unsigned kMemHostAllocPortable = 0x01;        // CU_MEMHOSTALLOC_PORTABLE
inline constexpr unsigned kMemHostAllocDeviceMap = 0x02;       // CU_MEMHOSTALLOC_DEVICEMAP
inline constexpr unsigned kMemHostAllocWriteCombined = 0x04;   // CU_MEMHOSTALLOC_WRITECOMBINED
inline constexpr unsigned kMemHostRegisterPortable = 0x01;     // CU_MEMHOSTREGISTER_PORTABLE
inline constexpr unsigned kMemHostRegisterDeviceMap = 0x02;    // CU_MEMHOSTREGISTER_DEVICEMAP
inline constexpr unsigned kMemHostRegisterIoMemory = 0x04;     // CU_MEMHOSTREGISTER_IOMEMORY
inline constexpr unsigned kMemHostRegisterReadOnly = 0x08;     // CU_MEMHOSTREGISTER_READ_ONLY

// Virtual memory management (cuMemAddressReserve .. cuMemUnmap), what expandable segments
// use: reserve an address range, create physical memory, map it into the range, grant
// access. Types and values as cuda.h has them (abi/check proves the layouts equal).
using CUmemGenericAllocationHandle = unsigned long long;
enum CUmemLocationType : int {
  CU_MEM_LOCATION_TYPE_INVALID = 0x0,
  CU_MEM_LOCATION_TYPE_DEVICE = 0x1,
  CU_MEM_LOCATION_TYPE_HOST = 0x2,
  CU_MEM_LOCATION_TYPE_HOST_NUMA = 0x3,
  CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT = 0x4,
};
enum CUmemAllocationType : int {
  CU_MEM_ALLOCATION_TYPE_INVALID = 0x0,
  CU_MEM_ALLOCATION_TYPE_PINNED = 0x1,
  CU_MEM_ALLOCATION_TYPE_MANAGED = 0x2,
};
enum CUmemAllocationHandleType : int {
  CU_MEM_HANDLE_TYPE_NONE = 0x0,
  CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR = 0x1,
  CU_MEM_HANDLE_TYPE_WIN32 = 0x2,
  CU_MEM_HANDLE_TYPE_WIN32_KMT = 0x4,
  CU_MEM_HANDLE_TYPE_FABRIC = 0x8,
};
enum CUmemAccess_flags : int {
  CU_MEM_ACCESS_FLAGS_PROT_NONE = 0x0,
  CU_MEM_ACCESS_FLAGS_PROT_READ = 0x1,
  CU_MEM_ACCESS_FLAGS_PROT_READWRITE = 0x3,
};
enum CUmemAllocationGranularity_flags : int {
  CU_MEM_ALLOC_GRANULARITY_MINIMUM = 0x0,
  CU_MEM_ALLOC_GRANULARITY_RECOMMENDED = 0x1,
};
struct CUmemLocation {
  CUmemLocationType type;
  int id;
};
struct CUmemAllocationProp {
  CUmemAllocationType type;
  CUmemAllocationHandleType requestedHandleTypes;
  CUmemLocation location;
  void* win32HandleMetaData;
  struct {
    unsigned char compressionType;
    unsigned char gpuDirectRDMACapable;
    unsigned short usage;
    unsigned char reserved[4];
  } allocFlags;
};
struct CUmemAccessDesc {
  CUmemLocation location;
  CUmemAccess_flags flags;
};

enum CUstreamCaptureStatus : int {
  CU_STREAM_CAPTURE_STATUS_NONE = 0,
  CU_STREAM_CAPTURE_STATUS_ACTIVE = 1,
  CU_STREAM_CAPTURE_STATUS_INVALIDATED = 2,
};
enum CUstreamCaptureMode : int {
  CU_STREAM_CAPTURE_MODE_GLOBAL = 0,
  CU_STREAM_CAPTURE_MODE_THREAD_LOCAL = 1,
  CU_STREAM_CAPTURE_MODE_RELAXED = 2,
};
enum CUdevice_P2PAttribute : int {
  CU_DEVICE_P2P_ATTRIBUTE_PERFORMANCE_RANK = 0x01,
  CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED = 0x02,
  CU_DEVICE_P2P_ATTRIBUTE_NATIVE_ATOMIC_SUPPORTED = 0x03,
  CU_DEVICE_P2P_ATTRIBUTE_CUDA_ARRAY_ACCESS_SUPPORTED = 0x04,
  CU_DEVICE_P2P_ATTRIBUTE_ONLY_PARTIAL_NATIVE_ATOMIC_SUPPORTED = 0x05,
};

struct CUuuid {
  char bytes[16];
};

// Every CUdevice_attribute of CUDA 13.0's cuda.h, one row each: X(name without the
// CU_DEVICE_ATTRIBUTE_ prefix, value). The values run 1..147 without a gap; each value
// has exactly one row here, under its current name. The deprecated second names cuda.h
// gives some values (same number) are ACCEL_CUDA_DEVICE_ATTRIBUTE_ALIASES.
#define ACCEL_CUDA_DEVICE_ATTRIBUTES(X) \
  X(MAX_THREADS_PER_BLOCK, 1) \
  X(MAX_BLOCK_DIM_X, 2) \
  X(MAX_BLOCK_DIM_Y, 3) \
  X(MAX_BLOCK_DIM_Z, 4) \
  X(MAX_GRID_DIM_X, 5) \
  X(MAX_GRID_DIM_Y, 6) \
  X(MAX_GRID_DIM_Z, 7) \
  X(MAX_SHARED_MEMORY_PER_BLOCK, 8) \
  X(TOTAL_CONSTANT_MEMORY, 9) \
  X(WARP_SIZE, 10) \
  X(MAX_PITCH, 11) \
  X(MAX_REGISTERS_PER_BLOCK, 12) \
  X(CLOCK_RATE, 13) \
  X(TEXTURE_ALIGNMENT, 14) \
  X(GPU_OVERLAP, 15) \
  X(MULTIPROCESSOR_COUNT, 16) \
  X(KERNEL_EXEC_TIMEOUT, 17) \
  X(INTEGRATED, 18) \
  X(CAN_MAP_HOST_MEMORY, 19) \
  X(COMPUTE_MODE, 20) \
  X(MAXIMUM_TEXTURE1D_WIDTH, 21) \
  X(MAXIMUM_TEXTURE2D_WIDTH, 22) \
  X(MAXIMUM_TEXTURE2D_HEIGHT, 23) \
  X(MAXIMUM_TEXTURE3D_WIDTH, 24) \
  X(MAXIMUM_TEXTURE3D_HEIGHT, 25) \
  X(MAXIMUM_TEXTURE3D_DEPTH, 26) \
  X(MAXIMUM_TEXTURE2D_LAYERED_WIDTH, 27) \
  X(MAXIMUM_TEXTURE2D_LAYERED_HEIGHT, 28) \
  X(MAXIMUM_TEXTURE2D_LAYERED_LAYERS, 29) \
  X(SURFACE_ALIGNMENT, 30) \
  X(CONCURRENT_KERNELS, 31) \
  X(ECC_ENABLED, 32) \
  X(PCI_BUS_ID, 33) \
  X(PCI_DEVICE_ID, 34) \
  X(TCC_DRIVER, 35) \
  X(MEMORY_CLOCK_RATE, 36) \
  X(GLOBAL_MEMORY_BUS_WIDTH, 37) \
  X(L2_CACHE_SIZE, 38) \
  X(MAX_THREADS_PER_MULTIPROCESSOR, 39) \
  X(ASYNC_ENGINE_COUNT, 40) \
  X(UNIFIED_ADDRESSING, 41) \
  X(MAXIMUM_TEXTURE1D_LAYERED_WIDTH, 42) \
  X(MAXIMUM_TEXTURE1D_LAYERED_LAYERS, 43) \
  X(CAN_TEX2D_GATHER, 44) \
  X(MAXIMUM_TEXTURE2D_GATHER_WIDTH, 45) \
  X(MAXIMUM_TEXTURE2D_GATHER_HEIGHT, 46) \
  X(MAXIMUM_TEXTURE3D_WIDTH_ALTERNATE, 47) \
  X(MAXIMUM_TEXTURE3D_HEIGHT_ALTERNATE, 48) \
  X(MAXIMUM_TEXTURE3D_DEPTH_ALTERNATE, 49) \
  X(PCI_DOMAIN_ID, 50) \
  X(TEXTURE_PITCH_ALIGNMENT, 51) \
  X(MAXIMUM_TEXTURECUBEMAP_WIDTH, 52) \
  X(MAXIMUM_TEXTURECUBEMAP_LAYERED_WIDTH, 53) \
  X(MAXIMUM_TEXTURECUBEMAP_LAYERED_LAYERS, 54) \
  X(MAXIMUM_SURFACE1D_WIDTH, 55) \
  X(MAXIMUM_SURFACE2D_WIDTH, 56) \
  X(MAXIMUM_SURFACE2D_HEIGHT, 57) \
  X(MAXIMUM_SURFACE3D_WIDTH, 58) \
  X(MAXIMUM_SURFACE3D_HEIGHT, 59) \
  X(MAXIMUM_SURFACE3D_DEPTH, 60) \
  X(MAXIMUM_SURFACE1D_LAYERED_WIDTH, 61) \
  X(MAXIMUM_SURFACE1D_LAYERED_LAYERS, 62) \
  X(MAXIMUM_SURFACE2D_LAYERED_WIDTH, 63) \
  X(MAXIMUM_SURFACE2D_LAYERED_HEIGHT, 64) \
  X(MAXIMUM_SURFACE2D_LAYERED_LAYERS, 65) \
  X(MAXIMUM_SURFACECUBEMAP_WIDTH, 66) \
  X(MAXIMUM_SURFACECUBEMAP_LAYERED_WIDTH, 67) \
  X(MAXIMUM_SURFACECUBEMAP_LAYERED_LAYERS, 68) \
  X(MAXIMUM_TEXTURE1D_LINEAR_WIDTH, 69) \
  X(MAXIMUM_TEXTURE2D_LINEAR_WIDTH, 70) \
  X(MAXIMUM_TEXTURE2D_LINEAR_HEIGHT, 71) \
  X(MAXIMUM_TEXTURE2D_LINEAR_PITCH, 72) \
  X(MAXIMUM_TEXTURE2D_MIPMAPPED_WIDTH, 73) \
  X(MAXIMUM_TEXTURE2D_MIPMAPPED_HEIGHT, 74) \
  X(COMPUTE_CAPABILITY_MAJOR, 75) \
  X(COMPUTE_CAPABILITY_MINOR, 76) \
  X(MAXIMUM_TEXTURE1D_MIPMAPPED_WIDTH, 77) \
  X(STREAM_PRIORITIES_SUPPORTED, 78) \
  X(GLOBAL_L1_CACHE_SUPPORTED, 79) \
  X(LOCAL_L1_CACHE_SUPPORTED, 80) \
  X(MAX_SHARED_MEMORY_PER_MULTIPROCESSOR, 81) \
  X(MAX_REGISTERS_PER_MULTIPROCESSOR, 82) \
  X(MANAGED_MEMORY, 83) \
  X(MULTI_GPU_BOARD, 84) \
  X(MULTI_GPU_BOARD_GROUP_ID, 85) \
  X(HOST_NATIVE_ATOMIC_SUPPORTED, 86) \
  X(SINGLE_TO_DOUBLE_PRECISION_PERF_RATIO, 87) \
  X(PAGEABLE_MEMORY_ACCESS, 88) \
  X(CONCURRENT_MANAGED_ACCESS, 89) \
  X(COMPUTE_PREEMPTION_SUPPORTED, 90) \
  X(CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM, 91) \
  X(CAN_USE_STREAM_MEM_OPS_V1, 92) \
  X(CAN_USE_64_BIT_STREAM_MEM_OPS_V1, 93) \
  X(CAN_USE_STREAM_WAIT_VALUE_NOR_V1, 94) \
  X(COOPERATIVE_LAUNCH, 95) \
  X(COOPERATIVE_MULTI_DEVICE_LAUNCH, 96) \
  X(MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, 97) \
  X(CAN_FLUSH_REMOTE_WRITES, 98) \
  X(HOST_REGISTER_SUPPORTED, 99) \
  X(PAGEABLE_MEMORY_ACCESS_USES_HOST_PAGE_TABLES, 100) \
  X(DIRECT_MANAGED_MEM_ACCESS_FROM_HOST, 101) \
  X(VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, 102) \
  X(HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED, 103) \
  X(HANDLE_TYPE_WIN32_HANDLE_SUPPORTED, 104) \
  X(HANDLE_TYPE_WIN32_KMT_HANDLE_SUPPORTED, 105) \
  X(MAX_BLOCKS_PER_MULTIPROCESSOR, 106) \
  X(GENERIC_COMPRESSION_SUPPORTED, 107) \
  X(MAX_PERSISTING_L2_CACHE_SIZE, 108) \
  X(MAX_ACCESS_POLICY_WINDOW_SIZE, 109) \
  X(GPU_DIRECT_RDMA_WITH_CUDA_VMM_SUPPORTED, 110) \
  X(RESERVED_SHARED_MEMORY_PER_BLOCK, 111) \
  X(SPARSE_CUDA_ARRAY_SUPPORTED, 112) \
  X(READ_ONLY_HOST_REGISTER_SUPPORTED, 113) \
  X(TIMELINE_SEMAPHORE_INTEROP_SUPPORTED, 114) \
  X(MEMORY_POOLS_SUPPORTED, 115) \
  X(GPU_DIRECT_RDMA_SUPPORTED, 116) \
  X(GPU_DIRECT_RDMA_FLUSH_WRITES_OPTIONS, 117) \
  X(GPU_DIRECT_RDMA_WRITES_ORDERING, 118) \
  X(MEMPOOL_SUPPORTED_HANDLE_TYPES, 119) \
  X(CLUSTER_LAUNCH, 120) \
  X(DEFERRED_MAPPING_CUDA_ARRAY_SUPPORTED, 121) \
  X(CAN_USE_64_BIT_STREAM_MEM_OPS, 122) \
  X(CAN_USE_STREAM_WAIT_VALUE_NOR, 123) \
  X(DMA_BUF_SUPPORTED, 124) \
  X(IPC_EVENT_SUPPORTED, 125) \
  X(MEM_SYNC_DOMAIN_COUNT, 126) \
  X(TENSOR_MAP_ACCESS_SUPPORTED, 127) \
  X(HANDLE_TYPE_FABRIC_SUPPORTED, 128) \
  X(UNIFIED_FUNCTION_POINTERS, 129) \
  X(NUMA_CONFIG, 130) \
  X(NUMA_ID, 131) \
  X(MULTICAST_SUPPORTED, 132) \
  X(MPS_ENABLED, 133) \
  X(HOST_NUMA_ID, 134) \
  X(D3D12_CIG_SUPPORTED, 135) \
  X(MEM_DECOMPRESS_ALGORITHM_MASK, 136) \
  X(MEM_DECOMPRESS_MAXIMUM_LENGTH, 137) \
  X(VULKAN_CIG_SUPPORTED, 138) \
  X(GPU_PCI_DEVICE_ID, 139) \
  X(GPU_PCI_SUBSYSTEM_ID, 140) \
  X(HOST_NUMA_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, 141) \
  X(HOST_NUMA_MEMORY_POOLS_SUPPORTED, 142) \
  X(HOST_NUMA_MULTINODE_IPC_SUPPORTED, 143) \
  X(HOST_MEMORY_POOLS_SUPPORTED, 144) \
  X(HOST_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, 145) \
  X(HOST_ALLOC_DMA_BUF_SUPPORTED, 146) \
  X(ONLY_PARTIAL_HOST_NATIVE_ATOMIC_SUPPORTED, 147) \

// cuda.h's deprecated second names for values of ACCEL_CUDA_DEVICE_ATTRIBUTES.
#define ACCEL_CUDA_DEVICE_ATTRIBUTE_ALIASES(X) \
  X(SHARED_MEMORY_PER_BLOCK, 8) \
  X(REGISTERS_PER_BLOCK, 12) \
  X(MAXIMUM_TEXTURE2D_ARRAY_WIDTH, 27) \
  X(MAXIMUM_TEXTURE2D_ARRAY_HEIGHT, 28) \
  X(MAXIMUM_TEXTURE2D_ARRAY_NUMSLICES, 29) \
  X(VIRTUAL_ADDRESS_MANAGEMENT_SUPPORTED, 102) \

enum CUdevice_attribute : int {
#define ACCEL_CUDA_DEVICE_ATTRIBUTE_ENUMERATOR(name, value) CU_DEVICE_ATTRIBUTE_##name = value,
  ACCEL_CUDA_DEVICE_ATTRIBUTES(ACCEL_CUDA_DEVICE_ATTRIBUTE_ENUMERATOR)
  ACCEL_CUDA_DEVICE_ATTRIBUTE_ALIASES(ACCEL_CUDA_DEVICE_ATTRIBUTE_ENUMERATOR)
#undef ACCEL_CUDA_DEVICE_ATTRIBUTE_ENUMERATOR
  CU_DEVICE_ATTRIBUTE_MAX = 148,  // one past the last value (cuda.h's own end marker)
};

enum CUdriverProcAddressQueryResult : int {
  CU_GET_PROC_ADDRESS_SUCCESS = 0,
  CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND = 1,
  CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT = 2,
};

enum CUdriverProcAddress_flags : int {
  CU_GET_PROC_ADDRESS_DEFAULT = 0,
  CU_GET_PROC_ADDRESS_LEGACY_STREAM = 1,
  CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM = 2,
};

// Traits of an entry point: the last column of ACCEL_CUDA_DRIVER_TABLE (bit flags, or-ed).
enum EntryTraits : unsigned {
  kNoTraits = 0,
  kNeedsInit = 1u << 0,       // before a successful cuInit: CUDA_ERROR_NOT_INITIALIZED
  kTouchesDevice = 1u << 1,   // runs on the current context's device (sticky errors apply)
  kLegalInCapture = 1u << 2,  // not "potentially unsafe" during capture (CUDA Driver API,
                              // cuThreadExchangeStreamCaptureMode): without it, a call that the
                              // thread's capture mode prohibits fails with 900 and invalidates the
                              // captures that prohibit it. Stream- and event-specific capture rules
                              // (906 on the legacy stream, 900 on a captured event) apply on
                              // top, whatever the trait.
  kAnswersAfterFork = 1u << 3,  // answers in a child forked after cuInit (no pid gate);
                                // recorded on real hardware (docs/HARDWARE.md)
  kNotSupportedByDesign = 1u << 4,  // exported so that programs load and bind it, and answers
                                    // CUDA_ERROR_NOT_SUPPORTED for every argument once past
                                    // the gates: the simulation does not model what it needs
                                    // (CUDA arrays, graphics interop); listed as such in
                                    // docs/CUDA_DRIVER_COVERAGE.md
};

// The entry points, each once, one row each. A row is one of
//   R(X, E, base name, introducing version, exported symbol, (parameters), (arguments), traits)
//   P(X, E, ..the same.., per-thread version, per-thread suffix)
// The exported symbol is what cuda.h's macros turn the base name into (cuMemAlloc ->
// cuMemAlloc_v2); cuGetProcAddress takes the base name. Several rows may share a base name
// at different versions (cuCtxCreate_v2, _v3, _v4): cuGetProcAddress serves the newest at
// or below the version asked for, so the exported symbol is a row's identity. A P row also
// has a per-thread default-stream variant, exported as <symbol><suffix> (cuda.h's
// __CUDA_API_PTDS / __CUDA_API_PTSZ: _ptds for calls that use the default stream
// implicitly, _ptsz for calls that take a stream), introduced at the per-thread version
// (cudaTypedefs.h's PFN_<name>_v<version>_pt<ds|sz>) and served by cuGetProcAddress under
// CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM. The arguments repeat the parameter
// names so that a forwarder can be generated (the preprocessor cannot take a parameter
// list apart). Traits are EntryTraits names, written unqualified: expand the table where
// accel::cuda_abi's names are visible.
//
// The rows below are the ones the runtime's CUDA backend resolves at load
// (ACCEL_CUDA_RUNTIME_ENTRY_POINTS): a driver lacking one cannot back the runtime. The
// rest of the driver surface the simulated libcuda.so.1 serves to other programs is in
// the accel_abi/cuda/*.h fragments, one per group, which the runtime never resolves.
//
// Adding an entry point: one row (here if the runtime calls it, else in its group's
// fragment), plus its implementation in the mock (mockdev::cuda::impl::<exported symbol>,
// mockdev/src/cuda/); the mock's forwarders, cuGetProcAddress table, export list
// (libcuda.map), the runtime's resolver for rows here, and the type checks are all
// generated from the row. Where the toolkit is installed, abi/check proves the row's
// PFN type equal to cudaTypedefs.h.
#define ACCEL_CUDA_RUNTIME_ROWS_(R, P, X, E)                                                          \
  R(X, E, cuInit, 2000, cuInit, (unsigned int flags), (flags), kLegalInCapture)                    \
  R(X, E, cuDriverGetVersion, 2020, cuDriverGetVersion, (int* driver_version), (driver_version),   \
    kLegalInCapture | kAnswersAfterFork)                                                           \
  R(X, E, cuGetErrorName, 6000, cuGetErrorName, (CUresult error, const char** str), (error, str),  \
    kLegalInCapture)                                                                               \
  R(X, E, cuGetErrorString, 6000, cuGetErrorString, (CUresult error, const char** str),            \
    (error, str), kLegalInCapture)                                                                 \
  R(X, E, cuDeviceGetCount, 2000, cuDeviceGetCount, (int* count), (count),                         \
    kNeedsInit | kLegalInCapture)                                                                  \
  R(X, E, cuDeviceGet, 2000, cuDeviceGet, (CUdevice * device, int ordinal), (device, ordinal),     \
    kNeedsInit | kLegalInCapture)                                                                  \
  R(X, E, cuDeviceGetName, 2000, cuDeviceGetName, (char* name, int len, CUdevice dev),             \
    (name, len, dev), kNeedsInit | kLegalInCapture)                                                \
  R(X, E, cuDeviceGetAttribute, 2000, cuDeviceGetAttribute,                                        \
    (int* value, CUdevice_attribute attrib, CUdevice dev), (value, attrib, dev),                   \
    kNeedsInit | kLegalInCapture)                                                                  \
  R(X, E, cuDeviceTotalMem, 3020, cuDeviceTotalMem_v2, (std::size_t * bytes, CUdevice dev),        \
    (bytes, dev), kNeedsInit | kLegalInCapture)                                                    \
  R(X, E, cuDeviceGetUuid, 11040, cuDeviceGetUuid_v2, (CUuuid * uuid, CUdevice dev), (uuid, dev),  \
    kNeedsInit | kLegalInCapture)                                                                  \
  R(X, E, cuDeviceGetPCIBusId, 4010, cuDeviceGetPCIBusId,                                         \
    (char* pci_bus_id, int len, CUdevice dev), (pci_bus_id, len, dev),                             \
    kNeedsInit | kLegalInCapture)                                                                  \
  R(X, E, cuDevicePrimaryCtxRetain, 7000, cuDevicePrimaryCtxRetain,                                \
    (CUcontext * ctx, CUdevice dev), (ctx, dev), kNeedsInit | kLegalInCapture)                     \
  R(X, E, cuDevicePrimaryCtxRelease, 11000, cuDevicePrimaryCtxRelease_v2, (CUdevice dev), (dev),   \
    kNeedsInit)                                                                                    \
  R(X, E, cuDevicePrimaryCtxGetState, 7000, cuDevicePrimaryCtxGetState,                            \
    (CUdevice dev, unsigned int* flags, int* active), (dev, flags, active),                        \
    kNeedsInit | kLegalInCapture)                                                                  \
  R(X, E, cuCtxSetCurrent, 4000, cuCtxSetCurrent, (CUcontext ctx), (ctx),                          \
    kNeedsInit | kLegalInCapture)                                                                  \
  R(X, E, cuCtxGetCurrent, 4000, cuCtxGetCurrent, (CUcontext * ctx), (ctx),                        \
    kNeedsInit | kLegalInCapture)                                                                  \
  R(X, E, cuCtxGetDevice, 2000, cuCtxGetDevice, (CUdevice * device), (device),                     \
    kNeedsInit | kLegalInCapture)                                                                  \
  R(X, E, cuCtxSynchronize, 2000, cuCtxSynchronize, (), (), kNeedsInit | kTouchesDevice)           \
  R(X, E, cuMemGetInfo, 3020, cuMemGetInfo_v2,                                                     \
    (std::size_t * free_bytes, std::size_t * total_bytes), (free_bytes, total_bytes),              \
    kNeedsInit | kTouchesDevice | kLegalInCapture)                                                 \
  R(X, E, cuMemAlloc, 3020, cuMemAlloc_v2, (CUdeviceptr * dptr, std::size_t bytes), (dptr, bytes), \
    kNeedsInit | kTouchesDevice)                                                                   \
  R(X, E, cuMemFree, 3020, cuMemFree_v2, (CUdeviceptr dptr), (dptr), kNeedsInit | kTouchesDevice) \
  R(X, E, cuCtxGetStreamPriorityRange, 5050, cuCtxGetStreamPriorityRange, (int* least_priority, int* greatest_priority), (least_priority, greatest_priority), kNeedsInit | kLegalInCapture) \
  R(X, E, cuStreamCreate, 2000, cuStreamCreate, (CUstream * stream, unsigned int flags), (stream, flags), kNeedsInit | kTouchesDevice | kLegalInCapture) \
  R(X, E, cuStreamCreateWithPriority, 5050, cuStreamCreateWithPriority, (CUstream * stream, unsigned int flags, int priority), (stream, flags, priority), kNeedsInit | kTouchesDevice | kLegalInCapture) \
  P(X, E, cuStreamGetPriority, 5050, cuStreamGetPriority, (CUstream stream, int* priority), (stream, priority), kNeedsInit | kLegalInCapture, 7000, _ptsz) \
  P(X, E, cuStreamGetFlags, 5050, cuStreamGetFlags, (CUstream stream, unsigned int* flags), (stream, flags), kNeedsInit | kLegalInCapture, 7000, _ptsz) \
  P(X, E, cuStreamGetId, 12000, cuStreamGetId, (CUstream stream, unsigned long long* stream_id), (stream, stream_id), kNeedsInit | kLegalInCapture, 12000, _ptsz) \
  P(X, E, cuStreamGetCtx, 9020, cuStreamGetCtx, (CUstream stream, CUcontext * ctx), (stream, ctx), kNeedsInit | kLegalInCapture, 9020, _ptsz) \
  R(X, E, cuStreamDestroy, 4000, cuStreamDestroy_v2, (CUstream stream), (stream), kNeedsInit | kLegalInCapture) \
  P(X, E, cuStreamQuery, 2000, cuStreamQuery, (CUstream stream), (stream), kNeedsInit | kTouchesDevice, 7000, _ptsz) \
  P(X, E, cuStreamSynchronize, 2000, cuStreamSynchronize, (CUstream stream), (stream), kNeedsInit | kTouchesDevice, 7000, _ptsz) \
  P(X, E, cuStreamWaitEvent, 3020, cuStreamWaitEvent, (CUstream stream, CUevent event, unsigned int flags), (stream, event, flags), kNeedsInit | kTouchesDevice | kLegalInCapture, 7000, _ptsz) \
  P(X, E, cuStreamAddCallback, 5000, cuStreamAddCallback, (CUstream stream, CUstreamCallback callback, void* user_data, unsigned int flags), (stream, callback, user_data, flags), kNeedsInit | kTouchesDevice, 7000, _ptsz) \
  P(X, E, cuLaunchHostFunc, 10000, cuLaunchHostFunc, (CUstream stream, CUhostFn fn, void* user_data), (stream, fn, user_data), kNeedsInit | kTouchesDevice | kLegalInCapture, 10000, _ptsz) \
  R(X, E, cuEventCreate, 2000, cuEventCreate, (CUevent * event, unsigned int flags), (event, flags), kNeedsInit | kLegalInCapture) \
  P(X, E, cuEventRecord, 2000, cuEventRecord, (CUevent event, CUstream stream), (event, stream), kNeedsInit | kTouchesDevice | kLegalInCapture, 7000, _ptsz) \
  P(X, E, cuEventRecordWithFlags, 11010, cuEventRecordWithFlags, (CUevent event, CUstream stream, unsigned int flags), (event, stream, flags), kNeedsInit | kTouchesDevice | kLegalInCapture, 11010, _ptsz) \
  R(X, E, cuEventQuery, 2000, cuEventQuery, (CUevent event), (event), kNeedsInit | kTouchesDevice) \
  R(X, E, cuEventSynchronize, 2000, cuEventSynchronize, (CUevent event), (event), kNeedsInit | kTouchesDevice) \
  R(X, E, cuEventDestroy, 4000, cuEventDestroy_v2, (CUevent event), (event), kNeedsInit | kLegalInCapture) \
  R(X, E, cuEventElapsedTime, 12080, cuEventElapsedTime_v2, (float* milliseconds, CUevent start, CUevent end), (milliseconds, start, end), kNeedsInit | kLegalInCapture) \
  R(X, E, cuMemAllocHost, 3020, cuMemAllocHost_v2, (void** pointer, std::size_t bytes), (pointer, bytes), kNeedsInit | kTouchesDevice) \
  R(X, E, cuMemHostAlloc, 2020, cuMemHostAlloc, (void** pointer, std::size_t bytes, unsigned int flags), (pointer, bytes, flags), kNeedsInit | kTouchesDevice) \
  R(X, E, cuMemFreeHost, 2000, cuMemFreeHost, (void* pointer), (pointer), kNeedsInit) \
  R(X, E, cuMemHostRegister, 6050, cuMemHostRegister_v2, (void* pointer, std::size_t bytes, unsigned int flags), (pointer, bytes, flags), kNeedsInit | kTouchesDevice) \
  R(X, E, cuMemHostUnregister, 4000, cuMemHostUnregister, (void* pointer), (pointer), kNeedsInit) \
  P(X, E, cuMemcpyHtoD, 3020, cuMemcpyHtoD_v2, (CUdeviceptr dst, const void* src, std::size_t bytes), (dst, src, bytes), kNeedsInit | kTouchesDevice | kLegalInCapture, 7000, _ptds) \
  P(X, E, cuMemcpyDtoH, 3020, cuMemcpyDtoH_v2, (void* dst, CUdeviceptr src, std::size_t bytes), (dst, src, bytes), kNeedsInit | kTouchesDevice | kLegalInCapture, 7000, _ptds) \
  P(X, E, cuMemcpyDtoD, 3020, cuMemcpyDtoD_v2, (CUdeviceptr dst, CUdeviceptr src, std::size_t bytes), (dst, src, bytes), kNeedsInit | kTouchesDevice | kLegalInCapture, 7000, _ptds) \
  P(X, E, cuMemcpy, 4000, cuMemcpy, (CUdeviceptr dst, CUdeviceptr src, std::size_t bytes), (dst, src, bytes), kNeedsInit | kTouchesDevice | kLegalInCapture, 7000, _ptds) \
  P(X, E, cuMemcpyPeer, 4000, cuMemcpyPeer, (CUdeviceptr dst, CUcontext dst_ctx, CUdeviceptr src, CUcontext src_ctx, std::size_t bytes), (dst, dst_ctx, src, src_ctx, bytes), kNeedsInit | kTouchesDevice | kLegalInCapture, 7000, _ptds) \
  P(X, E, cuMemcpyHtoDAsync, 3020, cuMemcpyHtoDAsync_v2, (CUdeviceptr dst, const void* src, std::size_t bytes, CUstream stream), (dst, src, bytes, stream), kNeedsInit | kTouchesDevice | kLegalInCapture, 7000, _ptsz) \
  P(X, E, cuMemcpyDtoHAsync, 3020, cuMemcpyDtoHAsync_v2, (void* dst, CUdeviceptr src, std::size_t bytes, CUstream stream), (dst, src, bytes, stream), kNeedsInit | kTouchesDevice | kLegalInCapture, 7000, _ptsz) \
  P(X, E, cuMemcpyDtoDAsync, 3020, cuMemcpyDtoDAsync_v2, (CUdeviceptr dst, CUdeviceptr src, std::size_t bytes, CUstream stream), (dst, src, bytes, stream), kNeedsInit | kTouchesDevice | kLegalInCapture, 7000, _ptsz) \
  P(X, E, cuMemcpyAsync, 4000, cuMemcpyAsync, (CUdeviceptr dst, CUdeviceptr src, std::size_t bytes, CUstream stream), (dst, src, bytes, stream), kNeedsInit | kTouchesDevice | kLegalInCapture, 7000, _ptsz) \
  P(X, E, cuMemcpyPeerAsync, 4000, cuMemcpyPeerAsync, (CUdeviceptr dst, CUcontext dst_ctx, CUdeviceptr src, CUcontext src_ctx, std::size_t bytes, CUstream stream), (dst, dst_ctx, src, src_ctx, bytes, stream), kNeedsInit | kTouchesDevice | kLegalInCapture, 7000, _ptsz) \
  P(X, E, cuMemsetD8, 3020, cuMemsetD8_v2, (CUdeviceptr dst, unsigned char value, std::size_t count), (dst, value, count), kNeedsInit | kTouchesDevice | kLegalInCapture, 7000, _ptds) \
  P(X, E, cuMemsetD32, 3020, cuMemsetD32_v2, (CUdeviceptr dst, unsigned int value, std::size_t count), (dst, value, count), kNeedsInit | kTouchesDevice | kLegalInCapture, 7000, _ptds) \
  P(X, E, cuMemsetD8Async, 3020, cuMemsetD8Async, (CUdeviceptr dst, unsigned char value, std::size_t count, CUstream stream), (dst, value, count, stream), kNeedsInit | kTouchesDevice | kLegalInCapture, 7000, _ptsz) \
  P(X, E, cuMemsetD32Async, 3020, cuMemsetD32Async, (CUdeviceptr dst, unsigned int value, std::size_t count, CUstream stream), (dst, value, count, stream), kNeedsInit | kTouchesDevice | kLegalInCapture, 7000, _ptsz) \
  R(X, E, cuModuleLoadData, 2000, cuModuleLoadData, (CUmodule * module, const void* image), (module, image), kNeedsInit | kLegalInCapture) \
  R(X, E, cuModuleUnload, 2000, cuModuleUnload, (CUmodule module), (module), kNeedsInit | kLegalInCapture) \
  R(X, E, cuModuleGetFunction, 2000, cuModuleGetFunction, (CUfunction * function, CUmodule module, const char* name), (function, module, name), kNeedsInit | kLegalInCapture) \
  P(X, E, cuLaunchKernel, 4000, cuLaunchKernel, (CUfunction f, unsigned int grid_x, unsigned int grid_y, unsigned int grid_z, unsigned int block_x, unsigned int block_y, unsigned int block_z, unsigned int shared_bytes, CUstream stream, void** params, void** extra), (f, grid_x, grid_y, grid_z, block_x, block_y, block_z, shared_bytes, stream, params, extra), kNeedsInit | kTouchesDevice | kLegalInCapture, 7000, _ptsz) \
  P(X, E, cuStreamBeginCapture, 10010, cuStreamBeginCapture_v2, (CUstream stream, CUstreamCaptureMode mode), (stream, mode), kNeedsInit | kLegalInCapture, 10010, _ptsz) \
  P(X, E, cuStreamEndCapture, 10000, cuStreamEndCapture, (CUstream stream, CUgraph * graph), (stream, graph), kNeedsInit | kLegalInCapture, 10000, _ptsz) \
  P(X, E, cuStreamIsCapturing, 10000, cuStreamIsCapturing, (CUstream stream, CUstreamCaptureStatus * status), (stream, status), kNeedsInit | kLegalInCapture, 10000, _ptsz) \
  P(X, E, cuStreamGetCaptureInfo, 12030, cuStreamGetCaptureInfo_v3, (CUstream stream, CUstreamCaptureStatus * status, cuuint64_t * id, CUgraph * graph, const CUgraphNode** dependencies, const CUgraphEdgeData** edge_data, std::size_t * dependency_count), (stream, status, id, graph, dependencies, edge_data, dependency_count), kNeedsInit | kLegalInCapture, 12030, _ptsz) \
  R(X, E, cuThreadExchangeStreamCaptureMode, 10010, cuThreadExchangeStreamCaptureMode, (CUstreamCaptureMode * mode), (mode), kNeedsInit | kLegalInCapture) \
  R(X, E, cuGraphInstantiateWithFlags, 11040, cuGraphInstantiateWithFlags, (CUgraphExec * exec, CUgraph graph, unsigned long long flags), (exec, graph, flags), kNeedsInit | kLegalInCapture) \
  P(X, E, cuGraphLaunch, 10000, cuGraphLaunch, (CUgraphExec exec, CUstream stream), (exec, stream), kNeedsInit | kTouchesDevice | kLegalInCapture, 10000, _ptsz) \
  R(X, E, cuGraphDestroy, 10000, cuGraphDestroy, (CUgraph graph), (graph), kNeedsInit | kLegalInCapture) \
  R(X, E, cuGraphExecDestroy, 10000, cuGraphExecDestroy, (CUgraphExec exec), (exec), kNeedsInit | kLegalInCapture) \
  R(X, E, cuDeviceCanAccessPeer, 4000, cuDeviceCanAccessPeer, (int* can_access, CUdevice device, CUdevice peer), (can_access, device, peer), kNeedsInit | kLegalInCapture) \
  R(X, E, cuDeviceGetP2PAttribute, 8000, cuDeviceGetP2PAttribute, (int* value, CUdevice_P2PAttribute attrib, CUdevice src, CUdevice dst), (value, attrib, src, dst), kNeedsInit | kLegalInCapture) \
  R(X, E, cuCtxEnablePeerAccess, 4000, cuCtxEnablePeerAccess, (CUcontext peer, unsigned int flags), (peer, flags), kNeedsInit | kLegalInCapture) \
  R(X, E, cuCtxDisablePeerAccess, 4000, cuCtxDisablePeerAccess, (CUcontext peer), (peer), kNeedsInit | kLegalInCapture) \
  R(X, E, cuMemGetAllocationGranularity, 10020, cuMemGetAllocationGranularity, (std::size_t * granularity, const CUmemAllocationProp* prop, CUmemAllocationGranularity_flags option), (granularity, prop, option), kNeedsInit | kLegalInCapture) \
  R(X, E, cuMemAddressReserve, 10020, cuMemAddressReserve, (CUdeviceptr * ptr, std::size_t size, std::size_t alignment, CUdeviceptr addr, unsigned long long flags), (ptr, size, alignment, addr, flags), kNeedsInit) \
  R(X, E, cuMemAddressFree, 10020, cuMemAddressFree, (CUdeviceptr ptr, std::size_t size), (ptr, size), kNeedsInit) \
  R(X, E, cuMemCreate, 10020, cuMemCreate, (CUmemGenericAllocationHandle * handle, std::size_t size, const CUmemAllocationProp* prop, unsigned long long flags), (handle, size, prop, flags), kNeedsInit | kTouchesDevice) \
  R(X, E, cuMemRelease, 10020, cuMemRelease, (CUmemGenericAllocationHandle handle), (handle), kNeedsInit) \
  R(X, E, cuMemMap, 10020, cuMemMap, (CUdeviceptr ptr, std::size_t size, std::size_t offset, CUmemGenericAllocationHandle handle, unsigned long long flags), (ptr, size, offset, handle, flags), kNeedsInit) \
  R(X, E, cuMemUnmap, 10020, cuMemUnmap, (CUdeviceptr ptr, std::size_t size), (ptr, size), kNeedsInit) \
  R(X, E, cuMemSetAccess, 10020, cuMemSetAccess, (CUdeviceptr ptr, std::size_t size, const CUmemAccessDesc* desc, std::size_t count), (ptr, size, desc, count), kNeedsInit)

}  // namespace accel::cuda_abi

// The driver surface beyond the runtime's, one fragment per group (each defines
// ACCEL_CUDA_<GROUP>_ROWS_(R, P, X, E) and the types its rows use).
#define ACCEL_CUDA_DRIVER_FRAGMENT_
#include "accel_abi/cuda/contexts.h"
#include "accel_abi/cuda/graphs.h"
#include "accel_abi/cuda/interop.h"
#include "accel_abi/cuda/ipc.h"
#include "accel_abi/cuda/memory.h"
#include "accel_abi/cuda/memory_copies.h"
#include "accel_abi/cuda/memory_pools.h"
#include "accel_abi/cuda/modules.h"
#include "accel_abi/cuda/streams.h"
#include "accel_abi/cuda/versions.h"
#undef ACCEL_CUDA_DRIVER_FRAGMENT_

namespace accel::cuda_abi {

#define ACCEL_CUDA_ALL_ROWS_(R, P, X, E) \
  ACCEL_CUDA_RUNTIME_ROWS_(R, P, X, E)   \
  ACCEL_CUDA_CONTEXT_ROWS_(R, P, X, E)   \
  ACCEL_CUDA_GRAPH_ROWS_(R, P, X, E)     \
  ACCEL_CUDA_INTEROP_ROWS_(R, P, X, E)   \
  ACCEL_CUDA_STREAM_ROWS_(R, P, X, E)    \
  ACCEL_CUDA_IPC_ROWS_(R, P, X, E)       \
  ACCEL_CUDA_MEMORY_ROWS_(R, P, X, E)    \
  ACCEL_CUDA_COPY_ROWS_(R, P, X, E)      \
  ACCEL_CUDA_POOL_ROWS_(R, P, X, E)      \
  ACCEL_CUDA_MODULE_ROWS_(R, P, X, E)    \
  ACCEL_CUDA_VERSIONED_ROWS_(R, P, X, E)

// The fragments' types and enumerators, by their cuda.h names (abi/check proves them).
#define ACCEL_CUDA_FRAGMENT_TYPES(T) \
  ACCEL_CUDA_CONTEXT_TYPES(T)        \
  ACCEL_CUDA_GRAPH_TYPES(T)          \
  ACCEL_CUDA_INTEROP_TYPES(T)        \
  ACCEL_CUDA_STREAM_TYPES(T)         \
  ACCEL_CUDA_IPC_TYPES(T)            \
  ACCEL_CUDA_MEMORY_TYPES(T)         \
  ACCEL_CUDA_COPY_TYPES(T)           \
  ACCEL_CUDA_POOL_TYPES(T)           \
  ACCEL_CUDA_MODULE_TYPES(T)         \
  ACCEL_CUDA_VERSIONED_TYPES(T)
#define ACCEL_CUDA_FRAGMENT_CONSTANTS(C) \
  ACCEL_CUDA_CONTEXT_CONSTANTS(C)        \
  ACCEL_CUDA_GRAPH_CONSTANTS(C)          \
  ACCEL_CUDA_INTEROP_CONSTANTS(C)        \
  ACCEL_CUDA_STREAM_CONSTANTS(C)         \
  ACCEL_CUDA_IPC_CONSTANTS(C)            \
  ACCEL_CUDA_MEMORY_CONSTANTS(C)         \
  ACCEL_CUDA_COPY_CONSTANTS(C)           \
  ACCEL_CUDA_POOL_CONSTANTS(C)           \
  ACCEL_CUDA_MODULE_CONSTANTS(C)         \
  ACCEL_CUDA_VERSIONED_CONSTANTS(C)

// E is always empty: pasting it onto a name (E ## name) keeps the preprocessor from
// expanding the name on its way to X. Without it, where the toolkit's cuda.h is included
// (abi/check), its macros (#define cuDeviceTotalMem cuDeviceTotalMem_v2) would rename the
// base names before X sees them.
#define ACCEL_CUDA_APPLY_ROW_(X, E, name, version, symbol, params, args, traits) \
  X(E##name, version, E##symbol, params, args, traits)
#define ACCEL_CUDA_APPLY_P_ROW_(X, E, name, version, symbol, params, args, traits, pt_version, \
                                suffix)                                                       \
  X(E##name, version, E##symbol, params, args, traits)
#define ACCEL_CUDA_NARROW_ROW_(X, E, name, version, symbol, params, args, traits) \
  X(E##name, version, E##symbol, params)
#define ACCEL_CUDA_NARROW_P_ROW_(X, E, name, version, symbol, params, args, traits, pt_version, \
                                 suffix)                                                       \
  X(E##name, version, E##symbol, params)
#define ACCEL_CUDA_SKIP_ROW_(X, E, name, version, symbol, params, args, traits)
#define ACCEL_CUDA_SKIP_P_ROW_(X, E, name, version, symbol, params, args, traits, pt_version, \
                               suffix)
#define ACCEL_CUDA_PER_THREAD_ROW_(X, E, name, version, symbol, params, args, traits, pt_version, \
                                   suffix)                                                       \
  X(E##name, version, E##symbol, E##symbol##suffix, pt_version, suffix, params, args, traits)

// Every row: X(name, version, symbol, (parameters), (arguments), traits). The simulated
// driver implements and exports this.
#define ACCEL_CUDA_DRIVER_TABLE(X) \
  ACCEL_CUDA_ALL_ROWS_(ACCEL_CUDA_APPLY_ROW_, ACCEL_CUDA_APPLY_P_ROW_, X, )

// The per-thread default-stream variants of the P rows: X(name, version, symbol, variant
// symbol, variant version, suffix, (parameters), (arguments), traits).
#define ACCEL_CUDA_PER_THREAD_TABLE(X) \
  ACCEL_CUDA_ALL_ROWS_(ACCEL_CUDA_SKIP_ROW_, ACCEL_CUDA_PER_THREAD_ROW_, X, )

// Every row without the forwarding and trait columns: X(name, version, symbol,
// (parameters)) (type checks, the tests' loader).
#define ACCEL_CUDA_ENTRY_POINTS(X) \
  ACCEL_CUDA_ALL_ROWS_(ACCEL_CUDA_NARROW_ROW_, ACCEL_CUDA_NARROW_P_ROW_, X, )

// The runtime's rows only, narrow: the CUDA backend resolves exactly these.
#define ACCEL_CUDA_RUNTIME_ENTRY_POINTS(X) \
  ACCEL_CUDA_RUNTIME_ROWS_(ACCEL_CUDA_NARROW_ROW_, ACCEL_CUDA_NARROW_P_ROW_, X, )

// PFN_<name>_v<version>, as cudaTypedefs.h names them; a per-thread variant has the same
// function type as its row (cudaTypedefs.h's PFN_<name>_v<version>_pt<ds|sz>).
#define ACCEL_CUDA_DECLARE_PFN(name, version, symbol, params) \
  using PFN_##name##_v##version = CUresult(*) params;
ACCEL_CUDA_ENTRY_POINTS(ACCEL_CUDA_DECLARE_PFN)
#undef ACCEL_CUDA_DECLARE_PFN
#define ACCEL_CUDA_DECLARE_PT_PFN(name, version, symbol, variant, pt_version, suffix, params, \
                                  args, traits)                                              \
  using PFN_##name##_v##pt_version##suffix = PFN_##name##_v##version;
ACCEL_CUDA_PER_THREAD_TABLE(ACCEL_CUDA_DECLARE_PT_PFN)
#undef ACCEL_CUDA_DECLARE_PT_PFN

// The resolver itself is found with dlsym, never through itself.
using PFN_cuGetProcAddress_v12000 = CUresult (*)(const char* symbol, void** pfn, int cuda_version,
                                                 cuuint64_t flags,
                                                 CUdriverProcAddressQueryResult* status);
using PFN_cuGetProcAddress_v11030 = CUresult (*)(const char* symbol, void** pfn, int cuda_version,
                                                 cuuint64_t flags);

// The highest CUDA version this header describes; the runtime asks cuGetProcAddress for
// each entry point at its own introducing version, never above this.
inline constexpr int kCudaAbiVersion = 13000;

// Name of a CUresult value ("CUDA_ERROR_INVALID_DEVICE"), or nullptr for an unknown code.
// Used where the driver cannot be asked (the toolkit stub answers every call with 34).
constexpr const char* result_name(int code) {
  switch (code) {
#define ACCEL_CUDA_RESULT_CASE(name, value) \
  case value:                               \
    return #name;
    ACCEL_CUDA_RESULTS(ACCEL_CUDA_RESULT_CASE)
#undef ACCEL_CUDA_RESULT_CASE
  }
  return nullptr;
}

}  // namespace accel::cuda_abi
