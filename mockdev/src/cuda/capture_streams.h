#pragma once
// The seam between the stream code (stream objects, the submit path) and the capture
// engine: how a CUstream handle becomes a capture::StreamRef.
//
// Thread safety: engine lock.

#include "accel_abi/cuda_driver.h"
#include "core/engine_lock.h"
#include "cuda/capture.h"

namespace mockdev::cuda::capture {

// Resolves `stream` (NULL and CU_STREAM_LEGACY: the current context's legacy stream;
// CU_STREAM_PER_THREAD: the calling thread's) as every stream entry point does: the
// stream code's own answer for a bad handle (400) or a missing context (201).
CUresult resolve(CUstream stream, StreamRef* out) MOCKDEV_REQUIRES(core::g_engine_mutex);

}  // namespace mockdev::cuda::capture
