#pragma once
// What the stream, event and graph tests share: the macros the toolkit's driver_types.h
// defines (restated from the project's ABI where the toolkit is absent) and the driver entry
// points the tests compare the runtime with, from the libcuda.so.1 the runtime opens.

#include <dlfcn.h>

#include <type_traits>

#include "accel_abi/cuda_driver.h"
#include "cudart_api.h"

#if !ACCEL_CUDART_TEST_TOOLKIT
#define cudaStreamDefault (accel::cudart_abi::kStreamDefault)
#define cudaStreamNonBlocking (accel::cudart_abi::kStreamNonBlocking)
#define cudaEventDefault (accel::cudart_abi::kEventDefault)
#define cudaEventBlockingSync (accel::cudart_abi::kEventBlockingSync)
#define cudaEventDisableTiming (accel::cudart_abi::kEventDisableTiming)
#define cudaEventInterprocess (accel::cudart_abi::kEventInterprocess)
#define cudaStreamLegacy (reinterpret_cast<cudaStream_t>(accel::cudart_abi::kStreamLegacy))
#define cudaStreamPerThread (reinterpret_cast<cudaStream_t>(accel::cudart_abi::kStreamPerThread))
#endif

namespace accel::cudart_test {

struct StreamDriver {
  cuda_abi::PFN_cuEventElapsedTime_v12080 cuEventElapsedTime = nullptr;
  cuda_abi::PFN_cuStreamGetId_v12000 cuStreamGetId = nullptr;
};

inline const StreamDriver& stream_driver() {
  static const StreamDriver d = [] {
    StreamDriver out;
    void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (lib == nullptr) return out;
    auto get = [&](auto* slot, const char* symbol) {
      *slot = reinterpret_cast<std::remove_pointer_t<decltype(slot)>>(dlsym(lib, symbol));
    };
    get(&out.cuEventElapsedTime, "cuEventElapsedTime_v2");
    get(&out.cuStreamGetId, "cuStreamGetId");
    return out;
  }();
  return d;
}

}  // namespace accel::cudart_test
