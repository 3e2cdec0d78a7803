#pragma once
// The CUDA driver and NVML entry points the rule probe calls, resolved with dlsym from the
// files it is pointed at (a real driver or the simulated one).
//
// Why not abi/include/accel_abi/cuda_driver.h alone: the probe also records rules of parts
// the simulated driver does not implement yet (streams, events, capture), so it declares
// those signatures itself and reports "absent" where a library lacks a symbol. The types
// it shares with the ABI header come from there.

#include <cstddef>
#include <string>
#include <type_traits>

#include "accel_abi/cuda_driver.h"

namespace accel::hardware {

using cuda_abi::CUcontext;
using cuda_abi::CUdevice;
using cuda_abi::CUdeviceptr;
using cuda_abi::CUresult;
using cuda_abi::CUuuid;

struct CUstream_st;
using CUstream = CUstream_st*;
struct CUevent_st;
using CUevent = CUevent_st*;
struct CUgraph_st;
using CUgraph = CUgraph_st*;
struct nvmlDevice_st;
using nvmlDevice_t = nvmlDevice_st*;

using HostFn = void (*)(void*);
using StreamCallback = void (*)(CUstream, CUresult, void*);

// One row per symbol: member name, exported symbol, signature. The probe looks the symbol
// up once; a null pointer means the library does not export it.
#define ACCEL_PROBE_CUDA_SYMBOLS(X)                                                               \
  X(init, "cuInit", CUresult (*)(unsigned))                                                       \
  X(driver_get_version, "cuDriverGetVersion", CUresult (*)(int*))                                 \
  X(get_error_name, "cuGetErrorName", CUresult (*)(CUresult, const char**))                       \
  X(device_get_count, "cuDeviceGetCount", CUresult (*)(int*))                                     \
  X(device_get, "cuDeviceGet", CUresult (*)(CUdevice*, int))                                      \
  X(device_get_name, "cuDeviceGetName", CUresult (*)(char*, int, CUdevice))                       \
  X(device_get_attribute, "cuDeviceGetAttribute", CUresult (*)(int*, int, CUdevice))              \
  X(device_total_mem, "cuDeviceTotalMem_v2", CUresult (*)(std::size_t*, CUdevice))                \
  X(device_get_uuid, "cuDeviceGetUuid_v2", CUresult (*)(CUuuid*, CUdevice))                       \
  X(primary_ctx_retain, "cuDevicePrimaryCtxRetain", CUresult (*)(CUcontext*, CUdevice))           \
  X(primary_ctx_release, "cuDevicePrimaryCtxRelease_v2", CUresult (*)(CUdevice))                  \
  X(primary_ctx_get_state, "cuDevicePrimaryCtxGetState", CUresult (*)(CUdevice, unsigned*, int*)) \
  X(ctx_set_current, "cuCtxSetCurrent", CUresult (*)(CUcontext))                                  \
  X(ctx_get_current, "cuCtxGetCurrent", CUresult (*)(CUcontext*))                                 \
  X(ctx_get_device, "cuCtxGetDevice", CUresult (*)(CUdevice*))                                    \
  X(ctx_synchronize, "cuCtxSynchronize", CUresult (*)())                                          \
  X(mem_get_info, "cuMemGetInfo_v2", CUresult (*)(std::size_t*, std::size_t*))                    \
  X(mem_alloc, "cuMemAlloc_v2", CUresult (*)(CUdeviceptr*, std::size_t))                          \
  X(mem_free, "cuMemFree_v2", CUresult (*)(CUdeviceptr))                                          \
  X(ctx_get_stream_priority_range, "cuCtxGetStreamPriorityRange", CUresult (*)(int*, int*))       \
  X(stream_create, "cuStreamCreate", CUresult (*)(CUstream*, unsigned))                           \
  X(stream_create_with_priority, "cuStreamCreateWithPriority",                                    \
    CUresult (*)(CUstream*, unsigned, int))                                                       \
  X(stream_get_priority, "cuStreamGetPriority", CUresult (*)(CUstream, int*))                     \
  X(stream_destroy, "cuStreamDestroy_v2", CUresult (*)(CUstream))                                 \
  X(stream_query, "cuStreamQuery", CUresult (*)(CUstream))                                        \
  X(stream_synchronize, "cuStreamSynchronize", CUresult (*)(CUstream))                            \
  X(stream_wait_event, "cuStreamWaitEvent", CUresult (*)(CUstream, CUevent, unsigned))            \
  X(stream_add_callback, "cuStreamAddCallback",                                                   \
    CUresult (*)(CUstream, StreamCallback, void*, unsigned))                                      \
  X(launch_host_func, "cuLaunchHostFunc", CUresult (*)(CUstream, HostFn, void*))                  \
  X(event_create, "cuEventCreate", CUresult (*)(CUevent*, unsigned))                              \
  X(event_record, "cuEventRecord", CUresult (*)(CUevent, CUstream))                               \
  X(event_query, "cuEventQuery", CUresult (*)(CUevent))                                           \
  X(event_synchronize, "cuEventSynchronize", CUresult (*)(CUevent))                               \
  X(event_elapsed_time, "cuEventElapsedTime_v2", CUresult (*)(float*, CUevent, CUevent))          \
  X(event_destroy, "cuEventDestroy_v2", CUresult (*)(CUevent))                                    \
  X(stream_begin_capture, "cuStreamBeginCapture_v2", CUresult (*)(CUstream, int))                 \
  X(stream_end_capture, "cuStreamEndCapture", CUresult (*)(CUstream, CUgraph*))                   \
  X(stream_is_capturing, "cuStreamIsCapturing", CUresult (*)(CUstream, int*))                     \
  X(graph_destroy, "cuGraphDestroy", CUresult (*)(CUgraph))                                       \
  X(memcpy_htod, "cuMemcpyHtoD_v2", CUresult (*)(CUdeviceptr, const void*, std::size_t))          \
  X(memcpy_dtoh, "cuMemcpyDtoH_v2", CUresult (*)(void*, CUdeviceptr, std::size_t))                \
  X(memcpy_htod_async, "cuMemcpyHtoDAsync_v2",                                                    \
    CUresult (*)(CUdeviceptr, const void*, std::size_t, CUstream))                                \
  X(memcpy_dtoh_async, "cuMemcpyDtoHAsync_v2",                                                    \
    CUresult (*)(void*, CUdeviceptr, std::size_t, CUstream))                                      \
  X(mem_alloc_host, "cuMemAllocHost_v2", CUresult (*)(void**, std::size_t))                       \
  X(mem_free_host, "cuMemFreeHost", CUresult (*)(void*))

#define ACCEL_PROBE_NVML_SYMBOLS(X)                                                                \
  X(init, "nvmlInit_v2", int (*)())                                                                \
  X(shutdown, "nvmlShutdown", int (*)())                                                           \
  X(device_get_count, "nvmlDeviceGetCount_v2", int (*)(unsigned*))                                 \
  X(device_get_handle_by_index, "nvmlDeviceGetHandleByIndex_v2", int (*)(unsigned, nvmlDevice_t*)) \
  X(device_get_uuid, "nvmlDeviceGetUUID", int (*)(nvmlDevice_t, char*, unsigned))

struct CudaDriver {
#define ACCEL_PROBE_MEMBER(member, symbol, type) std::type_identity_t<type> member = nullptr;
  ACCEL_PROBE_CUDA_SYMBOLS(ACCEL_PROBE_MEMBER)
};

struct Nvml {
  ACCEL_PROBE_NVML_SYMBOLS(ACCEL_PROBE_MEMBER)
#undef ACCEL_PROBE_MEMBER
};

// Opens `file` (RTLD_NOW | RTLD_LOCAL) and resolves every symbol; on failure returns false
// and sets `error` to dlerror()'s text. The handle is never closed: a driver must not be
// unloaded while the process may still call it.
bool load_cuda_driver(const std::string& file, CudaDriver& driver, std::string& error);
bool load_nvml(const std::string& file, Nvml& nvml, std::string& error);

}  // namespace accel::hardware
