#pragma once
// Graphs and executable graphs of the simulated CUDA driver (CUDA Driver API, graph
// management): a graph is the DAG a capture recorded, one node per captured operation with the
// indices of the nodes it depends on; an exec is a snapshot of a graph, launched into a
// stream as its nodes (Note [Graph launch]).
//
// Ownership: the registry below owns every graph and exec; a handle is checked against
// the registry before it is used, so a destroyed or foreign handle is 400, never
// dereferenced. The registry starts afresh at every machine installation (handles of an
// earlier machine are then unknown). Thread safety: engine lock.
//
// Note [Graph launch]
// cuGraphLaunch(exec, s) enqueues, on s's queue: a start barrier through the submit path
// (after s's earlier work, with the legacy-stream rules, and after the end of the previous
// launch of the same exec); then each node as an operation of its own, in node order
// (nodes only ever depend on earlier nodes), after the start and after the operations of
// the nodes it depends on, and not after the queue's tail, so branches the captured DAG
// leaves unordered stay unordered; then an end barrier after every node without
// dependents, which becomes s's tail, so s's later work and the next launch wait for the
// whole graph. The race detector and the trace see every node with its own memory
// accesses, rather than one opaque kGraphLaunch operation: that is how a race between a
// replayed node and other streams' work is found. (Two unordered nodes of one graph share
// a queue, so the detector, which compares different queues, never reports them: no false
// positive, at the price of missing a race inside one graph.)

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "accel_abi/cuda_driver.h"
#include "core/engine_lock.h"
#include "core/timeline.h"

namespace mockdev::cuda {

using NodeIndex = std::size_t;

// A captured operation: what the stream code would have enqueued (its accesses, duration
// and action), and the nodes it depends on. Launching enqueues a copy of `op`.
struct GraphNode {
  std::vector<NodeIndex> deps;
  core::OpDesc op;
};

// A deep copy of `op` (staged bytes included), for a snapshot or one launch.
core::OpDesc copy_op(const core::OpDesc& op);

}  // namespace mockdev::cuda

// The opaque handle types, defined by the mock (the ABI header only declares them).
struct accel::cuda_abi::CUgraphNode_st {
  CUgraph_st* graph = nullptr;
  mockdev::cuda::NodeIndex index = 0;
};

struct accel::cuda_abi::CUgraph_st {
  int device = 0;                   // physical device of the capture that built it
  std::uint64_t capturing = 0;      // the sequence capturing into it; 0 once ended
  std::vector<mockdev::cuda::GraphNode> nodes;
  std::vector<std::unique_ptr<CUgraphNode_st>> node_handles;  // by node index
};

struct accel::cuda_abi::CUgraphExec_st {
  int device = 0;
  std::vector<mockdev::cuda::GraphNode> nodes;  // the snapshot taken at instantiation
  std::uint64_t last_launch_end = 0;            // the op that ended the previous launch
};

namespace mockdev::cuda::graph {

using namespace accel::cuda_abi;  // NOLINT: vendor names read best unqualified here

// Creates an empty graph in the registry (for a capture sequence).
CUgraph_st* create(int device) MOCKDEV_REQUIRES(core::g_engine_mutex);
// Whether the handle names a live graph / exec of this machine.
bool is_graph(const CUgraph_st* g) MOCKDEV_REQUIRES(core::g_engine_mutex);
bool is_exec(const CUgraphExec_st* e) MOCKDEV_REQUIRES(core::g_engine_mutex);
// Appends a node after `deps`; returns its index.
NodeIndex add_node(CUgraph_st* g, GraphNode node) MOCKDEV_REQUIRES(core::g_engine_mutex);
// The handle of node `index` of `g` (stable for the graph's life).
CUgraphNode node_handle(CUgraph_st* g, NodeIndex index) MOCKDEV_REQUIRES(core::g_engine_mutex);
// Removes a graph from the registry and frees it (no check: callers check first).
void erase(CUgraph_st* g) MOCKDEV_REQUIRES(core::g_engine_mutex);

// The entry points' own steps.
CUresult instantiate(CUgraphExec* exec, CUgraph_st* g, unsigned long long flags)
    MOCKDEV_REQUIRES(core::g_engine_mutex);
CUresult destroy(CUgraph_st* g) MOCKDEV_REQUIRES(core::g_engine_mutex);
CUresult destroy_exec(CUgraphExec_st* e) MOCKDEV_REQUIRES(core::g_engine_mutex);
// Note [Graph launch]: enqueues the exec's nodes on `stream` (resolved, not capturing).
CUresult launch(CUgraphExec_st* e, CUstream_st* stream) MOCKDEV_REQUIRES(core::g_engine_mutex);

// Live graphs and execs (for live_objects and tests).
std::size_t live_graphs() MOCKDEV_REQUIRES(core::g_engine_mutex);
std::size_t live_execs() MOCKDEV_REQUIRES(core::g_engine_mutex);

}  // namespace mockdev::cuda::graph
