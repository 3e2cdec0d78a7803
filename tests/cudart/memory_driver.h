#pragma once
// The driver entry points the memory tests compare the runtime with (cuMemGetInfo, pool
// attributes, stream queries, captures, granularity), from the libcuda.so.1 the runtime opens.

#include <dlfcn.h>

#include <type_traits>

#include "accel_abi/cuda_driver.h"

namespace accel::cudart_test {

struct MemoryDriver {
  cuda_abi::PFN_cuMemGetInfo_v3020 cuMemGetInfo = nullptr;
  cuda_abi::PFN_cuMemPoolGetAttribute_v11020 cuMemPoolGetAttribute = nullptr;
  cuda_abi::PFN_cuStreamQuery_v2000 cuStreamQuery = nullptr;
  cuda_abi::PFN_cuMemGetAllocationGranularity_v10020 cuMemGetAllocationGranularity = nullptr;
  cuda_abi::PFN_cuCtxGetCurrent_v4000 cuCtxGetCurrent = nullptr;
  cuda_abi::PFN_cuStreamBeginCapture_v10010 cuStreamBeginCapture = nullptr;
  cuda_abi::PFN_cuStreamEndCapture_v10000 cuStreamEndCapture = nullptr;
  cuda_abi::PFN_cuGraphDestroy_v10000 cuGraphDestroy = nullptr;
};

inline const MemoryDriver& memory_driver() {
  static const MemoryDriver d = [] {
    MemoryDriver out;
    void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (lib == nullptr) return out;
    auto get = [&](auto* slot, const char* symbol) {
      *slot = reinterpret_cast<std::remove_pointer_t<decltype(slot)>>(dlsym(lib, symbol));
    };
    get(&out.cuMemGetInfo, "cuMemGetInfo_v2");
    get(&out.cuMemPoolGetAttribute, "cuMemPoolGetAttribute");
    get(&out.cuStreamQuery, "cuStreamQuery");
    get(&out.cuMemGetAllocationGranularity, "cuMemGetAllocationGranularity");
    get(&out.cuCtxGetCurrent, "cuCtxGetCurrent");
    get(&out.cuStreamBeginCapture, "cuStreamBeginCapture_v2");
    get(&out.cuStreamEndCapture, "cuStreamEndCapture");
    get(&out.cuGraphDestroy, "cuGraphDestroy");
    return out;
  }();
  return d;
}

}  // namespace accel::cudart_test
