// Compile-time proof that abi/include/accel_abi/cuda_runtime.h matches the toolkit's
// cuda_runtime_api.h.
//
// Built only where CMake finds the CUDA toolkit (abi/CMakeLists.txt). The toolkit's header is
// included as a program built with `--default-stream per-thread` sees it
// (CUDA_API_PER_THREAD_DEFAULT_STREAM), so that each row's name is the macro such a program
// calls: the checks prove that every row's function type is the toolkit's (after mapping the
// project's types to the toolkit's), that every row declares exactly the per-thread variant
// the toolkit has (and no row misses one), every type the same size and alignment,
// cudaDeviceProp's fields at the same offsets, and every constant the same value. A mismatch
// fails the build naming the row. The object file is empty: nothing here runs.

#define CUDA_API_PER_THREAD_DEFAULT_STREAM 1
#include <cuda_runtime_api.h>

#include <cstddef>
#include <string_view>
#include <type_traits>

#include "accel_abi/cuda_runtime.h"
#include "to_toolkit.h"

namespace abi = accel::cudart_abi;
namespace drv = accel::cuda_abi;
using accel::abi_check::to_toolkit_t;

// The handles shared with the driver: the driver's structs, which the toolkit's runtime
// types point to as well (cudaStream_t is CUstream_st*).
ACCEL_ABI_MAP_TYPE(drv::CUstream_st, ::CUstream_st)
ACCEL_ABI_MAP_TYPE(drv::CUevent_st, ::CUevent_st)
ACCEL_ABI_MAP_TYPE(drv::CUgraph_st, ::CUgraph_st)
ACCEL_ABI_MAP_TYPE(drv::CUgraphExec_st, ::CUgraphExec_st)
ACCEL_ABI_MAP_TYPE(drv::CUgraphNode_st, ::CUgraphNode_st)
ACCEL_ABI_MAP_TYPE(drv::CUmemPoolHandle_st, ::CUmemPoolHandle_st)
ACCEL_ABI_MAP_TYPE(drv::CUfunc_st, ::CUfunc_st)
ACCEL_ABI_MAP_TYPE(drv::CUkern_st, ::CUkern_st)
ACCEL_ABI_MAP_TYPE(drv::CUuuid, ::cudaUUID_t)

// The fragments' types keep their toolkit names: each maps to the toolkit's and has its size
// and alignment.
#define CHECK_TYPE(name)                                                                       \
  ACCEL_ABI_MAP_TYPE(abi::name, ::name)                                                        \
  static_assert(sizeof(abi::name) == sizeof(::name), "size differs from the toolkit: " #name); \
  static_assert(alignof(abi::name) == alignof(::name),                                         \
                "alignment differs from the toolkit: " #name);
ACCEL_CUDART_TYPES(CHECK_TYPE)
#undef CHECK_TYPE

namespace {

// Every row: the function type of the symbol a per-thread build calls (the same type as the
// legacy symbol's).
#define CHECK_ROW(ret, name, params, args, traits)                                       \
  static_assert(std::is_same_v<to_toolkit_t<abi::PFN_cudart_##name>, decltype(&::name)>, \
                "function type differs from cuda_runtime_api.h: " #name);
ACCEL_CUDART_API_TABLE(CHECK_ROW)
#undef CHECK_ROW
// The rows of nvcc's generated code (ACCEL_CUDART_NVCC_TABLE) are declared by the toolkit only
// under __CUDACC__: cudart_nvcc_abi_check.cu, compiled by nvcc, proves them.

// Every row's per-thread variant, both ways: a row without one must be a name the toolkit
// does not rename, a row with one must be renamed to exactly that symbol.
#define SPELLED_(x) #x
#define SPELLED(x) SPELLED_(x)
#define CHECK_VARIANT(name, called)                                           \
  static_assert(std::string_view(SPELLED(name)) == std::string_view(#called), \
                "per-thread variant differs from cuda_runtime_api.h: " #name);
ACCEL_CUDART_PER_THREAD_NAMES(CHECK_VARIANT)
#undef CHECK_VARIANT

#define CHECK_CONSTANT(name)                                                         \
  static_assert(static_cast<long long>(abi::name) == static_cast<long long>(::name), \
                "value differs from the toolkit: " #name);
ACCEL_CUDART_CONSTANTS(CHECK_CONSTANT)
#undef CHECK_CONSTANT

#define CHECK_ERROR(name, value)                                          \
  static_assert(static_cast<int>(abi::name) == static_cast<int>(::name),  \
                "cudaError_t value differs from driver_types.h: " #name); \
  static_assert(static_cast<int>(abi::name) == (value));
ACCEL_CUDART_ERRORS(CHECK_ERROR)
#undef CHECK_ERROR
// Every enumerator is listed: the last one is the toolkit's last.
static_assert(static_cast<int>(abi::cudaErrorApiFailureBase) == 10000);

#define CHECK_ATTRIBUTE(name, value)                                         \
  static_assert(static_cast<int>(abi::name) == static_cast<int>(::name),     \
                "cudaDeviceAttr value differs from driver_types.h: " #name); \
  static_assert(static_cast<int>(abi::name) == (value));
ACCEL_CUDART_DEVICE_ATTRIBUTES(CHECK_ATTRIBUTE)
#undef CHECK_ATTRIBUTE
static_assert(static_cast<int>(::cudaDevAttrMax) == 148);

#define CHECK_PROP_FIELD(field)                                                            \
  static_assert(offsetof(abi::cudaDeviceProp, field) == offsetof(::cudaDeviceProp, field), \
                "cudaDeviceProp field offset differs from driver_types.h: " #field);       \
  static_assert(sizeof(abi::cudaDeviceProp::field) == sizeof(::cudaDeviceProp::field),     \
                "cudaDeviceProp field size differs from driver_types.h: " #field);
ACCEL_CUDART_DEVICE_PROP_FIELDS(CHECK_PROP_FIELD)
#undef CHECK_PROP_FIELD

// The device flags, restated as constants because the toolkit spells them as macros.
static_assert(abi::kDeviceScheduleAuto == cudaDeviceScheduleAuto);
static_assert(abi::kDeviceScheduleSpin == cudaDeviceScheduleSpin);
static_assert(abi::kDeviceScheduleYield == cudaDeviceScheduleYield);
static_assert(abi::kDeviceScheduleBlockingSync == cudaDeviceScheduleBlockingSync);
static_assert(abi::kDeviceScheduleMask == cudaDeviceScheduleMask);
static_assert(abi::kDeviceMapHost == cudaDeviceMapHost);
static_assert(abi::kDeviceLmemResizeToMax == cudaDeviceLmemResizeToMax);
static_assert(abi::kDeviceSyncMemops == cudaDeviceSyncMemops);
static_assert(abi::kDeviceMask == cudaDeviceMask);
// The allocation flags, restated for the same reason (accel_abi/cudart/memory.h).
#define CHECK_MACRO_CONSTANT(ours, theirs) \
  static_assert(abi::ours == (theirs), "value differs from the toolkit: " #theirs);
ACCEL_CUDART_MEMORY_MACRO_CONSTANTS(CHECK_MACRO_CONSTANT)
// The stream and event flags and the special streams (accel_abi/cudart/streams.h).
ACCEL_CUDART_STREAM_MACRO_CONSTANTS(CHECK_MACRO_CONSTANT)
#undef CHECK_MACRO_CONSTANT
static_assert(abi::kOccupancyDefault == cudaOccupancyDefault);
static_assert(abi::kOccupancyDisableCachingOverride == cudaOccupancyDisableCachingOverride);
static_assert(std::is_same_v<to_toolkit_t<abi::cudaKernel_t>, ::cudaKernel_t>);
static_assert(abi::kInitDeviceFlagsAreValid == cudaInitDeviceFlagsAreValid);
static_assert(abi::kCpuDeviceId == cudaCpuDeviceId);
static_assert(abi::kInvalidDeviceId == cudaInvalidDeviceId);
static_assert(abi::kCudartVersion <= CUDART_VERSION);
static_assert(std::is_same_v<to_toolkit_t<abi::cudaStream_t>, ::cudaStream_t>);
static_assert(std::is_same_v<to_toolkit_t<abi::cudaEvent_t>, ::cudaEvent_t>);
static_assert(std::is_same_v<to_toolkit_t<abi::cudaGraph_t>, ::cudaGraph_t>);
static_assert(std::is_same_v<to_toolkit_t<abi::cudaGraphExec_t>, ::cudaGraphExec_t>);
static_assert(std::is_same_v<to_toolkit_t<abi::cudaGraphNode_t>, ::cudaGraphNode_t>);
static_assert(std::is_same_v<to_toolkit_t<abi::cudaMemPool_t>, ::cudaMemPool_t>);
static_assert(std::is_same_v<to_toolkit_t<abi::cudaFunction_t>, ::cudaFunction_t>);
static_assert(std::is_same_v<to_toolkit_t<abi::cudaUUID_t>, ::cudaUUID_t>);

}  // namespace
