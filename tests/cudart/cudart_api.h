#pragma once
// What the runtime tests see of the CUDA runtime API: the toolkit's cuda_runtime_api.h where
// CMake found the toolkit (ACCEL_CUDART_TEST_TOOLKIT; the tests are then third-party-style
// programs), else the project's declarations of the same symbols (accel_abi/cuda_runtime.h)
// with the macros the tests use. Either way the tests link against libcudart.so.13 and call
// its exported symbols.
//
// The driver under it, for the tests' own checks (cuCtxGetCurrent, attributes): the same
// libcuda.so.1 the runtime opens, found through the library search path.

#include <dlfcn.h>

#include "accel_abi/cuda_driver.h"

#if ACCEL_CUDART_TEST_TOOLKIT
#include <cuda_runtime_api.h>
#else
#include "accel_abi/cuda_runtime.h"
using namespace accel::cudart_abi;  // NOLINT: the tests speak the vendor's names
extern "C" {
#define ACCEL_CUDART_TEST_DECLARE(ret, name, params, args, traits) ret name params;
ACCEL_CUDART_TABLE(ACCEL_CUDART_TEST_DECLARE)
#undef ACCEL_CUDART_TEST_DECLARE
}
#define cudaDeviceMapHost (accel::cudart_abi::kDeviceMapHost)
#define cudaDeviceScheduleSpin (accel::cudart_abi::kDeviceScheduleSpin)
#define cudaDeviceScheduleYield (accel::cudart_abi::kDeviceScheduleYield)
#define cudaDeviceScheduleBlockingSync (accel::cudart_abi::kDeviceScheduleBlockingSync)
#define CUDART_VERSION (accel::cudart_abi::kCudartVersion)
#endif

namespace accel::cudart_test {

namespace drv = accel::cuda_abi;

// The driver entry points the tests call directly, from the libcuda.so.1 the runtime uses.
struct Driver {
  drv::PFN_cuCtxGetCurrent_v4000 cuCtxGetCurrent = nullptr;
  drv::PFN_cuCtxGetDevice_v2000 cuCtxGetDevice = nullptr;
  drv::PFN_cuDeviceGetCount_v2000 cuDeviceGetCount = nullptr;
  drv::PFN_cuDeviceGetAttribute_v2000 cuDeviceGetAttribute = nullptr;
  drv::PFN_cuDeviceGetName_v2000 cuDeviceGetName = nullptr;
  drv::PFN_cuDeviceTotalMem_v3020 cuDeviceTotalMem = nullptr;
  drv::PFN_cuDeviceGetUuid_v11040 cuDeviceGetUuid = nullptr;
  drv::PFN_cuDevicePrimaryCtxGetState_v7000 cuDevicePrimaryCtxGetState = nullptr;
  drv::PFN_cuDriverGetVersion_v2020 cuDriverGetVersion = nullptr;
  drv::PFN_cuCtxCreate_v3020 cuCtxCreate = nullptr;
  drv::PFN_cuCtxDestroy_v4000 cuCtxDestroy = nullptr;
};

// Loads the driver once and initialises it (cuInit(0)), as any program that calls the
// driver API itself must: a test's first driver call may come before any runtime call has
// initialised the driver (a test run alone). Every pointer is non-null (the tests fail
// loudly otherwise).
inline const Driver& driver() {
  static const Driver d = [] {
    Driver out;
    void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (lib == nullptr) return out;
    auto get = [&](auto* slot, const char* symbol) {
      *slot = reinterpret_cast<std::remove_pointer_t<decltype(slot)>>(dlsym(lib, symbol));
    };
    get(&out.cuCtxGetCurrent, "cuCtxGetCurrent");
    get(&out.cuCtxGetDevice, "cuCtxGetDevice");
    get(&out.cuDeviceGetCount, "cuDeviceGetCount");
    get(&out.cuDeviceGetAttribute, "cuDeviceGetAttribute");
    get(&out.cuDeviceGetName, "cuDeviceGetName");
    get(&out.cuDeviceTotalMem, "cuDeviceTotalMem_v2");
    get(&out.cuDeviceGetUuid, "cuDeviceGetUuid_v2");
    get(&out.cuDevicePrimaryCtxGetState, "cuDevicePrimaryCtxGetState");
    get(&out.cuDriverGetVersion, "cuDriverGetVersion");
    get(&out.cuCtxCreate, "cuCtxCreate_v2");
    get(&out.cuCtxDestroy, "cuCtxDestroy_v2");
    if (auto* init = reinterpret_cast<drv::PFN_cuInit_v2000>(dlsym(lib, "cuInit"))) init(0);
    return out;
  }();
  return d;
}

}  // namespace accel::cudart_test
