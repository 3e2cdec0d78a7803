#pragma once
// Graphs and executable graphs of the simulated CUDA driver (spec cuda_streams section
// 4.8): a graph is the DAG a capture recorded, one node per captured operation with the
// indices of the nodes it depends on; an exec is a snapshot of a graph, launched into a
// stream as its nodes (Note [Graph launch]).
//
// Ownership: the registry below owns every graph and exec; a handle is checked against
// the registry before it is used, so a destroyed or foreign handle is 400, never
// dereferenced. The registry starts afresh at every machine installation (handles of an
// earlier machine are then unknown). Thread safety: engine lock.
//
// Note [Graph launch]
// cuGraphLaunch(exec, s) enqueues each node as an operation of its own, in node order
// (nodes only ever depend on earlier nodes), with the node's captured dependencies as its
// happens-before predecessors; nodes without dependencies follow the launch's start point
// (s's earlier work and the end of the previous launch of the same exec), and one barrier
// after every node ends the launch, so that s's later work waits for the whole graph. The
// race detector and the trace therefore see every node with its own memory accesses, and
// two nodes the DAG leaves unordered are unordered for the detector too.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "accel_abi/cuda_driver.h"
#include "core/engine_lock.h"

namespace mockdev::cuda {

using NodeIndex = std::size_t;

// How a node runs again: enqueues the node's operation on the launch stream `stream`
// (an opaque stream object of the stream code) after `deps`, and returns the enqueued
// operation's id, or 0 when it could not be enqueued. Built by the stream code when it
// diverts an operation into a capture; holds everything the operation needs by value.
using NodeReplay = std::function<std::uint64_t(const void* stream,
                                               const std::vector<std::uint64_t>& deps)>;

struct GraphNode {
  std::string name;  // what the operation was ("cuMemcpyHtoDAsync_v2", "host function")
  std::vector<NodeIndex> deps;
  NodeReplay replay;
};

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
  std::uint64_t launches = 0;
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

// Live graphs and execs (for live_objects and tests).
std::size_t live_graphs() MOCKDEV_REQUIRES(core::g_engine_mutex);
std::size_t live_execs() MOCKDEV_REQUIRES(core::g_engine_mutex);

}  // namespace mockdev::cuda::graph
