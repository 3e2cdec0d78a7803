#pragma once
// The seam between the stream code (stream_objects.h: stream objects, the submit path) and
// the capture engine (capture.h): how a stream object becomes a capture::StreamRef.
//
// Thread safety: engine lock.

#include "accel_abi/cuda_driver.h"
#include "core/engine_lock.h"
#include "cuda/capture.h"
#include "cuda/stream_objects.h"

namespace mockdev::cuda::capture {

// The capture engine's view of a live stream object.
StreamRef ref_of(const CUstream_st* stream);

// Resolves `stream` as every stream entry point does (resolve_stream: 201 without a
// current context for the special handles, 400 for a handle that is not a live stream).
CUresult resolve(CUstream stream, StreamRef* out) MOCKDEV_REQUIRES(core::g_engine_mutex);

}  // namespace mockdev::cuda::capture
