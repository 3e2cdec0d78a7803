// The graph entry points' own steps (5-7 of Note [Driver call order]) over graph.h; the
// launch follows Note [Graph launch].

#include "cuda/capture_streams.h"
#include "cuda/driver_api.h"
#include "cuda/driver_call.h"
#include "cuda/graph.h"

namespace mockdev::cuda::impl {

CUresult cuGraphInstantiateWithFlags(CUgraphExec* exec, CUgraph graph, unsigned long long flags) {
  return graph::instantiate(exec, graph, flags);
}

CUresult cuGraphLaunch(CUgraphExec exec, CUstream stream) {
  if (!graph::is_exec(exec)) return CUDA_ERROR_INVALID_VALUE;
  const ResolvedStream r = resolve_stream(stream);
  if (r.stream == nullptr) return r.error;
  const capture::StreamRef ref = capture::ref_of(r.stream);
  // A launch into a capturing stream: 900 and the capture is invalidated (Recording 2; CUDA
  // could have made a child-graph node of it, the H100 did not).
  if (capture::status_of(ref.key) != CU_STREAM_CAPTURE_STATUS_NONE) {
    capture::host_wait_on_stream(ref);  // invalidates the capture
    return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
  }
  if (auto sticky = sticky_error(ref.device)) return *sticky;
  return graph::launch(exec, r.stream);
}

CUresult cuGraphDestroy(CUgraph graph) { return graph::destroy(graph); }

CUresult cuGraphExecDestroy(CUgraphExec exec) { return graph::destroy_exec(exec); }

}  // namespace mockdev::cuda::impl
