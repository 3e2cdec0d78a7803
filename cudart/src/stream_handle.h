#pragma once
// The driver stream a runtime stream argument names (spec cuda_runtime.md §5.1).
//
// The runtime's special handles are the driver's: cudaStreamLegacy is CU_STREAM_LEGACY
// (0x1), cudaStreamPerThread is CU_STREAM_PER_THREAD (0x2), and both pass through. The NULL
// stream (0) is the default stream of the call's flavour (Note [Per-thread default stream]
// in api.h): the legacy default stream in a plain call, the calling thread's per-thread
// stream in a _ptsz / _ptds variant. Every stream-taking implementation (memory, streams,
// events, kernels) converts its argument here, and only here.

#include "api.h"
#include "driver.h"

namespace accel::cudart {

[[nodiscard]] inline drv::CUstream driver_stream(cudaStream_t stream) noexcept {
  if (stream == nullptr && per_thread_default_stream()) {
    return reinterpret_cast<drv::CUstream>(drv::kStreamPerThread);
  }
  return stream;
}

}  // namespace accel::cudart
