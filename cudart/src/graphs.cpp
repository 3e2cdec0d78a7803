// Graphs from stream capture (spec cuda_runtime.md §5.4; rules: cuda_streams.md §4): every
// call over the driver entry point the spec names, which enforces the capture rules; its codes
// (900-908, 401, 402) keep their numbers in the runtime. The enums (capture mode and status,
// instantiation flags) and cudaGraphEdgeData are the driver's numbers and layout.

#include "stream_common.h"

namespace accel::cudart {
namespace {

static_assert(sizeof(cudaGraphEdgeData) == sizeof(drv::CUgraphEdgeData));
static_assert(static_cast<int>(cudaStreamCaptureModeRelaxed) ==
              static_cast<int>(drv::CU_STREAM_CAPTURE_MODE_RELAXED));
static_assert(static_cast<int>(cudaStreamCaptureStatusInvalidated) ==
              static_cast<int>(drv::CU_STREAM_CAPTURE_STATUS_INVALIDATED));

}  // namespace

namespace impl {

cudaError_t cudaStreamBeginCapture(cudaStream_t stream, cudaStreamCaptureMode mode) {
  const DriverTable* d = nullptr;
  if (const cudaError_t e = stream_context(&d); e != cudaSuccess) return e;
  return call(d->cuStreamBeginCapture_v2, driver_stream(stream),
              static_cast<drv::CUstreamCaptureMode>(mode));
}

// The calling thread's mode, swapped with *mode; needs no context.
cudaError_t cudaThreadExchangeStreamCaptureMode(cudaStreamCaptureMode* mode) {
  if (mode == nullptr) return cudaErrorInvalidValue;
  const DriverTable* d = nullptr;
  if (const cudaError_t e = load_driver(&d); e != cudaSuccess) return e;
  auto exchanged = static_cast<drv::CUstreamCaptureMode>(*mode);
  const cudaError_t e = call(d->cuThreadExchangeStreamCaptureMode, &exchanged);
  if (e == cudaSuccess) *mode = static_cast<cudaStreamCaptureMode>(exchanged);
  return e;
}

cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t* graph) {
  if (graph == nullptr) return cudaErrorInvalidValue;
  const DriverTable* d = nullptr;
  if (const cudaError_t e = stream_context(&d); e != cudaSuccess) return e;
  return call(d->cuStreamEndCapture, driver_stream(stream), graph);
}

cudaError_t cudaStreamIsCapturing(cudaStream_t stream, cudaStreamCaptureStatus* status) {
  if (status == nullptr) return cudaErrorInvalidValue;
  const DriverTable* d = nullptr;
  if (const cudaError_t e = stream_context(&d); e != cudaSuccess) return e;
  drv::CUstreamCaptureStatus out = drv::CU_STREAM_CAPTURE_STATUS_NONE;
  const cudaError_t e = call(d->cuStreamIsCapturing, driver_stream(stream), &out);
  if (e == cudaSuccess) *status = static_cast<cudaStreamCaptureStatus>(out);
  return e;
}

// CUDA 13's signature (edge data included): cuStreamGetCaptureInfo_v3.
cudaError_t cudaStreamGetCaptureInfo(cudaStream_t stream, cudaStreamCaptureStatus* status,
                                     unsigned long long* id, cudaGraph_t* graph,
                                     const cudaGraphNode_t** dependencies,
                                     const cudaGraphEdgeData** edge_data,
                                     std::size_t* dependency_count) {
  if (status == nullptr) return cudaErrorInvalidValue;
  const DriverTable* d = nullptr;
  if (const cudaError_t e = stream_context(&d); e != cudaSuccess) return e;
  drv::CUstreamCaptureStatus out = drv::CU_STREAM_CAPTURE_STATUS_NONE;
  drv::cuuint64_t capture_id = 0;
  const cudaError_t e =
      call(d->cuStreamGetCaptureInfo_v3, driver_stream(stream), &out,
           id != nullptr ? &capture_id : nullptr, graph, dependencies,
           reinterpret_cast<const drv::CUgraphEdgeData**>(edge_data), dependency_count);
  if (e == cudaSuccess) {
    *status = static_cast<cudaStreamCaptureStatus>(out);
    if (id != nullptr) *id = capture_id;
  }
  return e;
}

cudaError_t cudaGraphInstantiate(cudaGraphExec_t* exec, cudaGraph_t graph,
                                 unsigned long long flags) {
  return cudaGraphInstantiateWithFlags(exec, graph, flags);
}

cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t* exec, cudaGraph_t graph,
                                          unsigned long long flags) {
  if (exec == nullptr) return cudaErrorInvalidValue;
  const DriverTable* d = nullptr;
  if (const cudaError_t e = stream_context(&d); e != cudaSuccess) return e;
  return call(d->cuGraphInstantiateWithFlags, exec, graph, flags);
}

cudaError_t cudaGraphLaunch(cudaGraphExec_t exec, cudaStream_t stream) {
  const DriverTable* d = nullptr;
  if (const cudaError_t e = stream_context(&d); e != cudaSuccess) return e;
  return call(d->cuGraphLaunch, exec, driver_stream(stream));
}

cudaError_t cudaGraphExecDestroy(cudaGraphExec_t exec) {
  const DriverTable* d = nullptr;
  if (const cudaError_t e = stream_context(&d); e != cudaSuccess) return e;
  return call(d->cuGraphExecDestroy, exec);
}

cudaError_t cudaGraphDestroy(cudaGraph_t graph) {
  const DriverTable* d = nullptr;
  if (const cudaError_t e = stream_context(&d); e != cudaSuccess) return e;
  return call(d->cuGraphDestroy, graph);
}

}  // namespace impl
}  // namespace accel::cudart
