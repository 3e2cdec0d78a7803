// WORK IN PROGRESS -- deleted before the streams work lands. Entry points of
// ACCEL_CUDA_DRIVER_TABLE whose implementation is being written (capture); each answers
// CUDA_ERROR_NOT_SUPPORTED until its real body replaces it here, so that the mock libcuda
// keeps loading with RTLD_NOW in the meantime.

#include "cuda/driver_api.h"

#pragma GCC diagnostic ignored "-Wunused-parameter"

namespace mockdev::cuda::impl {

CUresult cuStreamBeginCapture(CUstream stream, CUstreamCaptureMode mode) {
  return CUDA_ERROR_NOT_SUPPORTED;
}

CUresult cuStreamEndCapture(CUstream stream, CUgraph * graph) {
  return CUDA_ERROR_NOT_SUPPORTED;
}

CUresult cuStreamIsCapturing(CUstream stream, CUstreamCaptureStatus * status) {
  return CUDA_ERROR_NOT_SUPPORTED;
}

CUresult cuStreamGetCaptureInfo(CUstream stream, CUstreamCaptureStatus * status, cuuint64_t * id, CUgraph * graph, const CUgraphNode** dependencies, const CUgraphEdgeData** edge_data, std::size_t * dependency_count) {
  return CUDA_ERROR_NOT_SUPPORTED;
}

CUresult cuThreadExchangeStreamCaptureMode(CUstreamCaptureMode * mode) {
  return CUDA_ERROR_NOT_SUPPORTED;
}

CUresult cuGraphInstantiateWithFlags(CUgraphExec * exec, CUgraph graph, unsigned long long flags) {
  return CUDA_ERROR_NOT_SUPPORTED;
}

CUresult cuGraphLaunch(CUgraphExec exec, CUstream stream) {
  return CUDA_ERROR_NOT_SUPPORTED;
}

CUresult cuGraphDestroy(CUgraph graph) {
  return CUDA_ERROR_NOT_SUPPORTED;
}

CUresult cuGraphExecDestroy(CUgraphExec exec) {
  return CUDA_ERROR_NOT_SUPPORTED;
}

}  // namespace mockdev::cuda::impl
