// The graph entry points' own steps (5-7 of Note [Driver call order]) over graph.h; the
// launch follows Note [Graph launch].

#include "cuda/driver_api.h"
#include "cuda/graph.h"

namespace mockdev::cuda::impl {

CUresult cuGraphInstantiateWithFlags(CUgraphExec* exec, CUgraph graph, unsigned long long flags) {
  return graph::instantiate(exec, graph, flags);
}

CUresult cuGraphDestroy(CUgraph graph) { return graph::destroy(graph); }

CUresult cuGraphExecDestroy(CUgraphExec exec) { return graph::destroy_exec(exec); }

}  // namespace mockdev::cuda::impl
