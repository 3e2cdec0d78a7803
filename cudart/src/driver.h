#pragma once
// The driver under the runtime: libcuda.so.1, opened at run time through the normal library
// search path (as NVIDIA's libcudart opens it), every entry point of accel_abi/cuda_driver.h
// resolved through cuGetProcAddress_v2 (only that resolver is found with dlsym), then
// cuInit(0). Once per process, on the first call that needs the driver; never unloaded.
//
// The table has one pointer per row of ACCEL_CUDA_DRIVER_TABLE, named by the row's exported
// symbol (cuDeviceTotalMem_v2, cuCtxGetDevice_v2: unique where base names are not), and one
// per per-thread default-stream variant (cuMemcpyAsync_ptsz), so a new runtime file calls any
// driver entry point the ABI declares without touching this file. A pointer the driver did
// not give is null: call it through call() below, which answers
// cudaErrorCallRequiresNewerDriver for it.
//
// Thread-safe. Never throws.

#include <utility>

#include "accel_abi/cuda_driver.h"
#include "accel_abi/cuda_runtime.h"

namespace accel::cudart {

using namespace accel::cudart_abi;  // NOLINT: the runtime speaks the vendor's names
namespace drv = accel::cuda_abi;

struct DriverTable {
#define ACCEL_CUDART_DRIVER_POINTER(name, version, symbol, params) \
  drv::PFN_##name##_v##version symbol = nullptr;
  ACCEL_CUDA_ENTRY_POINTS(ACCEL_CUDART_DRIVER_POINTER)
#undef ACCEL_CUDART_DRIVER_POINTER
#define ACCEL_CUDART_DRIVER_PT_POINTER(name, version, symbol, variant, pt_version, suffix, params, \
                                       args, traits)                                               \
  drv::PFN_##name##_v##version variant = nullptr;
  ACCEL_CUDA_PER_THREAD_TABLE(ACCEL_CUDART_DRIVER_PT_POINTER)
#undef ACCEL_CUDART_DRIVER_PT_POINTER
  int driver_version = 0;  // cuDriverGetVersion's answer
};

// The driver, loaded and initialised: cudaSuccess and `*table`, or the error every
// driver-needing call returns from then on (Note [Runtime initialisation] in driver.cpp):
// cudaErrorInsufficientDriver (35) without a usable libcuda.so.1 or with one older than the
// runtime, cudaErrorStubLibrary (34) for the toolkit's stub, cudaErrorNoDevice (100) when
// cuInit finds none, cudaErrorInitializationError (3) in a child forked after the parent
// initialised the runtime.
[[nodiscard]] cudaError_t load_driver(const DriverTable** table) noexcept;

// The driver's version without initialising the runtime: 0 when no libcuda.so.1 loads
// (cudaDriverGetVersion answers success and 0 then).
[[nodiscard]] int driver_version_if_present() noexcept;

// The error the runtime is stuck with before any call (a failed initialisation, a forked
// child), or cudaSuccess. Does not load the driver.
[[nodiscard]] cudaError_t initialisation_error() noexcept;

// A driver result as the runtime's code (spec: same number for 99 of 101 values; the two
// driver-only codes, 202 and 916, become cudaErrorUnknown).
[[nodiscard]] cudaError_t to_runtime(drv::CUresult result) noexcept;

// Calls a driver entry point of the table and maps its result; a null pointer (the driver
// did not give that entry point) answers cudaErrorCallRequiresNewerDriver.
template <class R, class... P, class... A>
cudaError_t call(R (*fn)(P...), A&&... args) noexcept {
  if (fn == nullptr) return cudaErrorCallRequiresNewerDriver;
  return to_runtime(fn(std::forward<A>(args)...));
}

}  // namespace accel::cudart
