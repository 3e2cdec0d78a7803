// Compile-time proof that abi/include/accel_abi/cuda_driver.h matches the toolkit.
//
// Built only where CMake finds the CUDA toolkit. It includes the toolkit's cuda.h and
// cudaTypedefs.h next to the project's own declarations and checks that every CUresult
// value is the same number and every PFN_* type is the same function type once the
// project's spellings are mapped to the toolkit's. A mismatch fails the build with the
// name of the entry point. The object file is empty: nothing here runs.

#include <cuda.h>
#include <cudaTypedefs.h>

#include <cstddef>
#include <type_traits>

#include "accel_abi/cuda_driver.h"

namespace {

namespace abi = accel::cuda_abi;

// Maps a type spelled with the project's declarations to the toolkit's spelling.
template <class T>
struct ToToolkit {
  using type = T;
};
template <class T>
using to_toolkit_t = typename ToToolkit<T>::type;

template <>
struct ToToolkit<abi::CUresult> {
  using type = ::CUresult;
};
template <>
struct ToToolkit<abi::CUctx_st> {
  using type = ::CUctx_st;
};
template <>
struct ToToolkit<abi::CUuuid> {
  using type = ::CUuuid;
};
template <>
struct ToToolkit<abi::CUdevice_attribute> {
  using type = ::CUdevice_attribute;
};
template <>
struct ToToolkit<abi::CUdriverProcAddressQueryResult> {
  using type = ::CUdriverProcAddressQueryResult;
};
template <>
struct ToToolkit<abi::CUstream_st> {
  using type = ::CUstream_st;
};
template <>
struct ToToolkit<abi::CUevent_st> {
  using type = ::CUevent_st;
};
template <>
struct ToToolkit<abi::CUmod_st> {
  using type = ::CUmod_st;
};
template <>
struct ToToolkit<abi::CUfunc_st> {
  using type = ::CUfunc_st;
};
template <>
struct ToToolkit<abi::CUgraph_st> {
  using type = ::CUgraph_st;
};
template <>
struct ToToolkit<abi::CUgraphExec_st> {
  using type = ::CUgraphExec_st;
};
template <>
struct ToToolkit<abi::CUgraphNode_st> {
  using type = ::CUgraphNode_st;
};
// Opaque handles of the copies-and-pools fragments (accel_abi/cuda/memory_copies.h,
// memory_pools.h): incomplete types, so not in their TYPES lists.
template <>
struct ToToolkit<abi::CUarray_st> {
  using type = ::CUarray_st;
};
template <>
struct ToToolkit<abi::CUmemPoolHandle_st> {
  using type = ::CUmemPoolHandle_st;
};
template <>
struct ToToolkit<abi::CUgraphEdgeData> {
  using type = ::CUgraphEdgeData;
};
template <>
struct ToToolkit<abi::CUstreamCaptureStatus> {
  using type = ::CUstreamCaptureStatus;
};
template <>
struct ToToolkit<abi::CUstreamCaptureMode> {
  using type = ::CUstreamCaptureMode;
};
template <>
struct ToToolkit<abi::CUdevice_P2PAttribute> {
  using type = ::CUdevice_P2PAttribute;
};
template <>
struct ToToolkit<abi::CUmemAllocationProp> {
  using type = ::CUmemAllocationProp;
};
template <>
struct ToToolkit<abi::CUmemAccessDesc> {
  using type = ::CUmemAccessDesc;
};
template <>
struct ToToolkit<abi::CUmemAllocationGranularity_flags> {
  using type = ::CUmemAllocationGranularity_flags;
};
// The fragments' types (accel_abi/cuda/*.h) keep their cuda.h names: each maps to the
// toolkit's and has its size and alignment.
#define CHECK_FRAGMENT_TYPE(name)                                               \
  template <>                                                                   \
  struct ToToolkit<abi::name> {                                                 \
    using type = ::name;                                                        \
  };                                                                            \
  static_assert(sizeof(abi::name) == sizeof(::name), "size differs from cuda.h: " #name); \
  static_assert(alignof(abi::name) == alignof(::name), "alignment differs from cuda.h: " #name);
ACCEL_CUDA_FRAGMENT_TYPES(CHECK_FRAGMENT_TYPE)
#undef CHECK_FRAGMENT_TYPE
// Flag parameters are plain unsigned int in cuda.h; the ABI's flag enums are for values.
template <class T>
struct ToToolkit<T*> {
  using type = to_toolkit_t<T>*;
};
template <class T>
struct ToToolkit<const T> {
  using type = const to_toolkit_t<T>;
};
template <class R, class... A>
struct ToToolkit<R (*)(A...)> {
  using type = to_toolkit_t<R> (*)(to_toolkit_t<A>...);
};

#define CHECK_RESULT(name, value)                                          \
  static_assert(static_cast<int>(abi::name) == static_cast<int>(::name), \
                "CUresult value differs from cuda.h: " #name);
ACCEL_CUDA_RESULTS(CHECK_RESULT)
#undef CHECK_RESULT

#define CHECK_ENTRY_POINT(name, version, symbol, params)                            \
  static_assert(std::is_same_v<to_toolkit_t<abi::PFN_##name##_v##version>,         \
                               ::PFN_##name##_v##version>,                          \
                "function type differs from cudaTypedefs.h: " #name " v" #version);
ACCEL_CUDA_ENTRY_POINTS(CHECK_ENTRY_POINT)
#undef CHECK_ENTRY_POINT

// The per-thread default-stream variants: cudaTypedefs.h's PFN_<name>_v<version>_pt<ds|sz>.
#define CHECK_PER_THREAD(name, version, symbol, variant, pt_version, suffix, params, args, traits) \
  static_assert(std::is_same_v<to_toolkit_t<abi::PFN_##name##_v##pt_version##suffix>,               \
                               ::PFN_##name##_v##pt_version##suffix>,                                \
                "function type differs from cudaTypedefs.h: " #name " v" #pt_version #suffix);
ACCEL_CUDA_PER_THREAD_TABLE(CHECK_PER_THREAD)
#undef CHECK_PER_THREAD

#define CHECK_FRAGMENT_CONSTANT(name)                                          \
  static_assert(static_cast<long long>(abi::name) == static_cast<long long>(::name), \
                "value differs from cuda.h: " #name);
ACCEL_CUDA_FRAGMENT_CONSTANTS(CHECK_FRAGMENT_CONSTANT)
#undef CHECK_FRAGMENT_CONSTANT

static_assert(std::is_same_v<to_toolkit_t<abi::PFN_cuGetProcAddress_v12000>,
                             ::PFN_cuGetProcAddress_v12000>);
static_assert(std::is_same_v<to_toolkit_t<abi::PFN_cuGetProcAddress_v11030>,
                             ::PFN_cuGetProcAddress_v11030>);
static_assert(std::is_same_v<abi::CUdevice, ::CUdevice>);
static_assert(std::is_same_v<abi::CUdeviceptr, ::CUdeviceptr>);
static_assert(std::is_same_v<abi::cuuint64_t, ::cuuint64_t>);
static_assert(sizeof(abi::CUuuid) == sizeof(::CUuuid));
// Every device attribute and deprecated alias, and the end marker: same name, same number.
#define CHECK_DEVICE_ATTRIBUTE(name, value)                                          \
  static_assert(static_cast<int>(abi::CU_DEVICE_ATTRIBUTE_##name) ==                 \
                    static_cast<int>(::CU_DEVICE_ATTRIBUTE_##name),                  \
                "CUdevice_attribute value differs from cuda.h: CU_DEVICE_ATTRIBUTE_" #name); \
  static_assert(static_cast<int>(abi::CU_DEVICE_ATTRIBUTE_##name) == (value));
ACCEL_CUDA_DEVICE_ATTRIBUTES(CHECK_DEVICE_ATTRIBUTE)
ACCEL_CUDA_DEVICE_ATTRIBUTE_ALIASES(CHECK_DEVICE_ATTRIBUTE)
CHECK_DEVICE_ATTRIBUTE(MAX, 148)
#undef CHECK_DEVICE_ATTRIBUTE
static_assert(static_cast<int>(abi::CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT) ==
              static_cast<int>(::CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT));
static_assert(static_cast<int>(abi::CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND) ==
              static_cast<int>(::CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND));
static_assert(abi::kCudaAbiVersion <= CUDA_VERSION);
// Values the ABI header restates from cuda.h.
#define CHECK_VALUE(name) \
  static_assert(static_cast<long long>(abi::name) == static_cast<long long>(::name), #name);
CHECK_VALUE(CU_MEM_LOCATION_TYPE_INVALID)
CHECK_VALUE(CU_MEM_LOCATION_TYPE_DEVICE)
CHECK_VALUE(CU_MEM_LOCATION_TYPE_HOST)
CHECK_VALUE(CU_MEM_LOCATION_TYPE_HOST_NUMA)
CHECK_VALUE(CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT)
CHECK_VALUE(CU_MEM_ALLOCATION_TYPE_INVALID)
CHECK_VALUE(CU_MEM_ALLOCATION_TYPE_PINNED)
CHECK_VALUE(CU_MEM_ALLOCATION_TYPE_MANAGED)
CHECK_VALUE(CU_MEM_HANDLE_TYPE_NONE)
CHECK_VALUE(CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR)
CHECK_VALUE(CU_MEM_HANDLE_TYPE_WIN32)
CHECK_VALUE(CU_MEM_HANDLE_TYPE_WIN32_KMT)
CHECK_VALUE(CU_MEM_HANDLE_TYPE_FABRIC)
CHECK_VALUE(CU_MEM_ACCESS_FLAGS_PROT_NONE)
CHECK_VALUE(CU_MEM_ACCESS_FLAGS_PROT_READ)
CHECK_VALUE(CU_MEM_ACCESS_FLAGS_PROT_READWRITE)
CHECK_VALUE(CU_MEM_ALLOC_GRANULARITY_MINIMUM)
CHECK_VALUE(CU_MEM_ALLOC_GRANULARITY_RECOMMENDED)
// The VMM structs: same size and field offsets as cuda.h's.
static_assert(std::is_same_v<abi::CUmemGenericAllocationHandle, ::CUmemGenericAllocationHandle>);
static_assert(sizeof(abi::CUmemLocation) == sizeof(::CUmemLocation));
static_assert(sizeof(abi::CUmemAllocationProp) == sizeof(::CUmemAllocationProp));
static_assert(offsetof(abi::CUmemAllocationProp, location) == offsetof(::CUmemAllocationProp, location));
static_assert(offsetof(abi::CUmemAllocationProp, win32HandleMetaData) ==
              offsetof(::CUmemAllocationProp, win32HandleMetaData));
static_assert(offsetof(abi::CUmemAllocationProp, allocFlags) == offsetof(::CUmemAllocationProp, allocFlags));
static_assert(sizeof(abi::CUmemAccessDesc) == sizeof(::CUmemAccessDesc));
static_assert(offsetof(abi::CUmemAccessDesc, flags) == offsetof(::CUmemAccessDesc, flags));
CHECK_VALUE(CU_STREAM_DEFAULT)
CHECK_VALUE(CU_STREAM_NON_BLOCKING)
CHECK_VALUE(CU_EVENT_DEFAULT)
CHECK_VALUE(CU_EVENT_BLOCKING_SYNC)
CHECK_VALUE(CU_EVENT_DISABLE_TIMING)
CHECK_VALUE(CU_EVENT_INTERPROCESS)
CHECK_VALUE(CU_EVENT_RECORD_DEFAULT)
CHECK_VALUE(CU_EVENT_RECORD_EXTERNAL)
CHECK_VALUE(CU_EVENT_WAIT_DEFAULT)
CHECK_VALUE(CU_EVENT_WAIT_EXTERNAL)
static_assert(abi::kMemHostAllocPortable == CU_MEMHOSTALLOC_PORTABLE);
static_assert(abi::kMemHostAllocDeviceMap == CU_MEMHOSTALLOC_DEVICEMAP);
static_assert(abi::kMemHostAllocWriteCombined == CU_MEMHOSTALLOC_WRITECOMBINED);
static_assert(abi::kMemHostRegisterPortable == CU_MEMHOSTREGISTER_PORTABLE);
static_assert(abi::kMemHostRegisterDeviceMap == CU_MEMHOSTREGISTER_DEVICEMAP);
static_assert(abi::kMemHostRegisterIoMemory == CU_MEMHOSTREGISTER_IOMEMORY);
static_assert(abi::kMemHostRegisterReadOnly == CU_MEMHOSTREGISTER_READ_ONLY);
CHECK_VALUE(CU_STREAM_CAPTURE_STATUS_NONE)
CHECK_VALUE(CU_STREAM_CAPTURE_STATUS_ACTIVE)
CHECK_VALUE(CU_STREAM_CAPTURE_STATUS_INVALIDATED)
CHECK_VALUE(CU_STREAM_CAPTURE_MODE_GLOBAL)
CHECK_VALUE(CU_STREAM_CAPTURE_MODE_THREAD_LOCAL)
CHECK_VALUE(CU_STREAM_CAPTURE_MODE_RELAXED)
CHECK_VALUE(CU_DEVICE_P2P_ATTRIBUTE_PERFORMANCE_RANK)
CHECK_VALUE(CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED)
CHECK_VALUE(CU_DEVICE_P2P_ATTRIBUTE_NATIVE_ATOMIC_SUPPORTED)
CHECK_VALUE(CU_DEVICE_P2P_ATTRIBUTE_CUDA_ARRAY_ACCESS_SUPPORTED)
CHECK_VALUE(CU_DEVICE_P2P_ATTRIBUTE_ONLY_PARTIAL_NATIVE_ATOMIC_SUPPORTED)
#undef CHECK_VALUE
static_assert(sizeof(abi::CUgraphEdgeData) == sizeof(::CUgraphEdgeData));


}  // namespace
