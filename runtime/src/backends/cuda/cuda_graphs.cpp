// The CUDA backend's graphs (cuda_backend_impl.h): stream capture, instantiation, launch.
#include "backends/cuda/cuda_backend_impl.h"

namespace accel::detail::cuda {

namespace {

using cuda_abi::CUgraph;
using cuda_abi::CUgraphExec;
using cuda_abi::CUresult;
using cuda_abi::CUstream;
using cuda_abi::CUstreamCaptureMode;

CUstream as_stream(StreamHandle stream) noexcept {
  return reinterpret_cast<CUstream>(stream.value);
}

CUstreamCaptureMode driver_mode(CaptureErrorMode mode) noexcept {
  switch (mode) {
    case CaptureErrorMode::kThreadLocal:
      return cuda_abi::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL;
    case CaptureErrorMode::kRelaxed:
      return cuda_abi::CU_STREAM_CAPTURE_MODE_RELAXED;
    case CaptureErrorMode::kDefault:  // PyTorch's default on CUDA
    case CaptureErrorMode::kGlobal:
      break;
  }
  return cuda_abi::CU_STREAM_CAPTURE_MODE_GLOBAL;
}

// CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH | _USE_NODE_PRIORITY, as PyTorch
// instantiates (aten/src/ATen/cuda/CUDAGraph.cpp).
constexpr unsigned long long kInstantiateFlags = 1ull | 8ull;

// Runs `destroy` with this thread in relaxed capture mode (PyTorch's reset() does the same
// under a CUDAStreamCaptureModeGuard), so that tearing a graph down while another thread
// captures in global mode is not "potentially unsafe". The previous mode is put back.
template <class Destroy>
CUresult in_relaxed_mode(const DriverApi& api, Destroy destroy) noexcept {
  CUstreamCaptureMode mode = cuda_abi::CU_STREAM_CAPTURE_MODE_RELAXED;
  CUresult rc = api.cuThreadExchangeStreamCaptureMode(&mode);
  if (rc != cuda_abi::CUDA_SUCCESS) return rc;
  const CUresult destroyed = destroy();
  rc = api.cuThreadExchangeStreamCaptureMode(&mode);
  return destroyed != cuda_abi::CUDA_SUCCESS ? destroyed : rc;
}

}  // namespace

Status CudaBackend::begin_capture(int index, StreamHandle stream, CaptureErrorMode mode) noexcept {
  return with_device_context(
      index, "begin_capture", "cuStreamBeginCapture", [&](const DriverApi& api) {
        return api.cuStreamBeginCapture(as_stream(stream), driver_mode(mode));
      });
}

Result<CapturedGraphHandle> CudaBackend::end_capture(int index, StreamHandle stream) noexcept {
  CUgraph graph = nullptr;
  Status status = with_device_context(
      index, "end_capture", "cuStreamEndCapture",
      [&](const DriverApi& api) { return api.cuStreamEndCapture(as_stream(stream), &graph); });
  if (!status.ok()) return status;
  if (graph == nullptr) return Status(ErrorKind::kRuntime, "Invalid capture.");
  return CapturedGraphHandle{reinterpret_cast<std::uintptr_t>(graph)};
}

Result<GraphHandle> CudaBackend::instantiate_graph(int index, CapturedGraphHandle graph) noexcept {
  CUgraphExec exec = nullptr;
  Status status = with_device_context(
      index, "instantiate_graph", "cuGraphInstantiateWithFlags", [&](const DriverApi& api) {
        return api.cuGraphInstantiateWithFlags(&exec, reinterpret_cast<CUgraph>(graph.value),
                                               kInstantiateFlags);
      });
  if (!status.ok()) return status;
  return GraphHandle{reinterpret_cast<std::uintptr_t>(exec)};
}

Status CudaBackend::launch_graph(int index, GraphHandle graph, StreamHandle stream) noexcept {
  return with_device_context(index, "launch_graph", "cuGraphLaunch", [&](const DriverApi& api) {
    return api.cuGraphLaunch(reinterpret_cast<CUgraphExec>(graph.value), as_stream(stream));
  });
}

Status CudaBackend::destroy_graph(int index, GraphHandle graph) noexcept {
  return with_device_context(
      index, "destroy_graph", "cuGraphExecDestroy", [&](const DriverApi& api) {
        return in_relaxed_mode(api, [&] {
          return api.cuGraphExecDestroy(reinterpret_cast<CUgraphExec>(graph.value));
        });
      });
}

Status CudaBackend::destroy_captured_graph(int index, CapturedGraphHandle graph) noexcept {
  return with_device_context(
      index, "destroy_captured_graph", "cuGraphDestroy", [&](const DriverApi& api) {
        return in_relaxed_mode(
            api, [&] { return api.cuGraphDestroy(reinterpret_cast<CUgraph>(graph.value)); });
      });
}

}  // namespace accel::detail::cuda
