#pragma once
// The simulated CUDA driver: one function per entry point of the mock libcuda.so.1, with
// the driver's rules applied (Note [Driver call order]). The facade
// (mockdev/src/cuda/cuda_facade.cpp) forwards each exported symbol here.
// Thread-safe (each call takes the engine lock); never throws except std::bad_alloc,
// which the facade turns into CUDA_ERROR_UNKNOWN.
//
// Note [Driver call order]
// Every call, in this order: (1) is counted under its exported symbol name, failing calls
// included; (2) in a child forked after the parent initialised the driver, returns
// CUDA_ERROR_NOT_INITIALIZED (the pid gate; this applies to every entry point); (3) returns
// the code of a scheduled call fault that fires on this call; (4) before a successful
// cuInit in this process, returns CUDA_ERROR_NOT_INITIALIZED, except cuDriverGetVersion,
// cuGetErrorName, cuGetErrorString and cuGetProcAddress(_v2); (5) checks its arguments;
// (6) for calls that work on a device (cuCtxSynchronize, cuMemGetInfo_v2, cuMemAlloc_v2,
// cuMemFree_v2), returns a sticky error in force on that device; (7) does the work.

#include "accel_abi/cuda_driver.h"

namespace mockdev::driver {

using namespace accel::cuda_abi;  // NOLINT: vendor names read best unqualified here

CUresult cu_init(unsigned int flags);
CUresult cu_driver_get_version(int* driver_version);
CUresult cu_get_error_name(CUresult error, const char** str);
CUresult cu_get_error_string(CUresult error, const char** str);
CUresult cu_device_get_count(int* count);
CUresult cu_device_get(CUdevice* device, int ordinal);
CUresult cu_device_get_name(char* name, int len, CUdevice dev);
CUresult cu_device_get_attribute(int* value, CUdevice_attribute attrib, CUdevice dev);
CUresult cu_device_total_mem(std::size_t* bytes, CUdevice dev);
CUresult cu_device_get_uuid(CUuuid* uuid, CUdevice dev);
CUresult cu_device_primary_ctx_retain(CUcontext* ctx, CUdevice dev);
CUresult cu_device_primary_ctx_release(CUdevice dev);
CUresult cu_device_primary_ctx_get_state(CUdevice dev, unsigned int* flags, int* active);
CUresult cu_ctx_set_current(CUcontext ctx);
CUresult cu_ctx_get_current(CUcontext* ctx);
CUresult cu_ctx_get_device(CUdevice* device);
CUresult cu_ctx_synchronize();
CUresult cu_mem_get_info(std::size_t* free_bytes, std::size_t* total_bytes);
CUresult cu_mem_alloc(CUdeviceptr* dptr, std::size_t bytes);
CUresult cu_mem_free(CUdeviceptr dptr);

// The checks of cuGetProcAddress(_v2) (counted under `entry_point`): CUDA_ERROR_INVALID_VALUE
// for a null symbol or pfn, unknown flags, or a cudaVersion above the machine's driver
// version. The facade, which owns the function addresses, does the lookup after SUCCESS.
CUresult cu_get_proc_address_check(const char* entry_point, const char* symbol, void** pfn,
                                   int cuda_version, cuuint64_t flags);

// Short descriptions and names of result codes (nullptr for an unknown code).
const char* result_description(int code);

}  // namespace mockdev::driver
