// The capture entry points' own steps (5-7 of Note [Driver call order]): resolve the
// stream, then the capture engine (capture.h) decides. The graph entry points are in
// driver_graph.cpp.

#include "cuda/capture.h"
#include "cuda/capture_streams.h"
#include "cuda/driver_api.h"

namespace mockdev::cuda::impl {

CUresult cuStreamBeginCapture_v2(CUstream stream, CUstreamCaptureMode mode) {
  capture::StreamRef s;
  if (CUresult rc = capture::resolve(stream, &s); rc != CUDA_SUCCESS) return rc;
  return capture::begin(s, mode);
}

CUresult cuStreamEndCapture(CUstream stream, CUgraph* graph) {
  capture::StreamRef s;
  if (CUresult rc = capture::resolve(stream, &s); rc != CUDA_SUCCESS) {
    if (graph != nullptr) *graph = nullptr;
    return rc;
  }
  return capture::end(s, graph);
}

CUresult cuStreamIsCapturing(CUstream stream, CUstreamCaptureStatus* status) {
  capture::StreamRef s;
  if (CUresult rc = capture::resolve(stream, &s); rc != CUDA_SUCCESS) return rc;
  return capture::status(s, status);
}

CUresult cuStreamGetCaptureInfo_v3(CUstream stream, CUstreamCaptureStatus* status, cuuint64_t* id,
                                CUgraph* graph, const CUgraphNode** dependencies,
                                const CUgraphEdgeData** edge_data,
                                std::size_t* dependency_count) {
  capture::StreamRef s;
  if (CUresult rc = capture::resolve(stream, &s); rc != CUDA_SUCCESS) return rc;
  return capture::info(s, status, id, graph, dependencies, edge_data, dependency_count);
}

CUresult cuThreadExchangeStreamCaptureMode(CUstreamCaptureMode* mode) {
  return capture::exchange_mode(mode);
}

}  // namespace mockdev::cuda::impl
