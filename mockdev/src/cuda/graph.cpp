#include "cuda/graph.h"

#include <algorithm>
#include <cstring>

#include "core/engine.h"
#include "cuda/stream_objects.h"

namespace mockdev::cuda {

// Member by member, because the staged bytes make OpDesc move-only: a field added to
// OpDesc or OpAction must be added here. The sizes below (LP64) make that addition fail
// to compile until it is; graph_test replays every kind of operation a capture records.
#if defined(__LP64__)
static_assert(sizeof(core::OpAction) == 88, "OpAction changed: update copy_op");
static_assert(sizeof(core::OpDesc) == 224, "OpDesc changed: update copy_op");
#endif
core::OpDesc copy_op(const core::OpDesc& op) {
  core::OpDesc c;
  c.kind = op.kind;
  c.name = op.name;
  c.read = op.read;
  c.write = op.write;
  c.more_reads = op.more_reads;
  c.more_writes = op.more_writes;
  c.unknown_accesses = op.unknown_accesses;
  c.duration_ns = op.duration_ns;
  c.event_record = op.event_record;
  const core::OpAction& a = op.action;
  c.action.kind = a.kind;
  c.action.pattern_size = a.pattern_size;
  c.action.pattern = a.pattern;
  c.action.dst = a.dst;
  c.action.src = a.src;
  c.action.bytes = a.bytes;
  if (a.staged != nullptr) {
    c.action.staged = std::make_unique<std::byte[]>(a.bytes);
    std::memcpy(c.action.staged.get(), a.staged.get(), a.bytes);
  }
  c.action.call = a.call;
  std::copy(std::begin(a.args), std::end(a.args), std::begin(c.action.args));
  c.action.keep = a.keep;
  return c;
}

}  // namespace mockdev::cuda

namespace mockdev::cuda::graph {
namespace {

std::vector<GraphNode> copy_nodes(const std::vector<GraphNode>& nodes) {
  std::vector<GraphNode> out;
  out.reserve(nodes.size());
  for (const GraphNode& n : nodes) out.push_back(GraphNode{n.deps, copy_op(n.op)});
  return out;
}

// cuda.h's CUgraphInstantiate_flags (macros there, so not in the ABI header).
constexpr unsigned long long kAutoFreeOnLaunch = 0x1;
constexpr unsigned long long kUpload = 0x2;
constexpr unsigned long long kDeviceLaunch = 0x4;
constexpr unsigned long long kUseNodePriority = 0x8;
constexpr unsigned long long kKnownFlags = kAutoFreeOnLaunch | kUpload | kDeviceLaunch |
                                           kUseNodePriority;

struct Registry {
  std::uint64_t generation = 0;
  // In creation order; lookups are linear (a process holds a handful of graphs), and
  // nothing iterates by address, so runs stay deterministic.
  std::vector<std::unique_ptr<CUgraph_st>> graphs;
  std::vector<std::unique_ptr<CUgraphExec_st>> execs;
};

Registry& registry() MOCKDEV_REQUIRES(core::g_engine_mutex) {
  static Registry* const r = new Registry();  // never deleted: Note [Leaky state]
  const std::uint64_t generation = core::engine().generation;
  if (r->generation != generation) {
    *r = Registry{};
    r->generation = generation;
  }
  return *r;
}

template <typename T>
bool contains(const std::vector<std::unique_ptr<T>>& v, const T* p) {
  return p != nullptr &&
         std::any_of(v.begin(), v.end(), [&](const auto& owned) { return owned.get() == p; });
}

template <typename T>
void remove(std::vector<std::unique_ptr<T>>& v, const T* p) {
  v.erase(std::remove_if(v.begin(), v.end(), [&](const auto& owned) { return owned.get() == p; }),
          v.end());
}

}  // namespace

CUgraph_st* create(int device) {
  auto g = std::make_unique<CUgraph_st>();
  g->device = device;
  CUgraph_st* raw = g.get();
  registry().graphs.push_back(std::move(g));
  return raw;
}

bool is_graph(const CUgraph_st* g) { return contains(registry().graphs, g); }
bool is_exec(const CUgraphExec_st* e) { return contains(registry().execs, e); }

NodeIndex add_node(CUgraph_st* g, GraphNode node) {
  g->nodes.push_back(std::move(node));
  const NodeIndex index = g->nodes.size() - 1;
  g->node_handles.push_back(std::make_unique<CUgraphNode_st>(CUgraphNode_st{g, index}));
  return index;
}

CUgraphNode node_handle(CUgraph_st* g, NodeIndex index) {
  return g->node_handles.at(index).get();
}

void erase(CUgraph_st* g) { remove(registry().graphs, g); }

CUresult instantiate(CUgraphExec* exec, CUgraph_st* g, unsigned long long flags) {
  if (exec == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (!is_graph(g)) return CUDA_ERROR_INVALID_VALUE;  // cuda.h lists no 400 here
  // Unknown bits, and DEVICE_LAUNCH with AUTO_FREE_ON_LAUNCH (CUDA Driver API,
  // cuGraphInstantiateWithFlags).
  if ((flags & ~kKnownFlags) != 0) return CUDA_ERROR_INVALID_VALUE;
  if ((flags & kDeviceLaunch) != 0 && (flags & kAutoFreeOnLaunch) != 0)
    return CUDA_ERROR_INVALID_VALUE;
  // A graph still being captured into instantiates as it is now (Recording 2: 0, and the
  // capture goes on).
  auto e = std::make_unique<CUgraphExec_st>();
  e->device = g->device;
  e->nodes = copy_nodes(g->nodes);  // the snapshot: later changes to g never reach the exec
  *exec = e.get();
  registry().execs.push_back(std::move(e));
  return CUDA_SUCCESS;
}

CUresult destroy(CUgraph_st* g) {
  if (!is_graph(g)) return CUDA_ERROR_INVALID_VALUE;
  // The graph a capture is building: CUDA_ERROR_ILLEGAL_STATE (Recording 2).
  if (g->capturing != 0) return CUDA_ERROR_ILLEGAL_STATE;
  erase(g);
  return CUDA_SUCCESS;
}

CUresult destroy_exec(CUgraphExec_st* e) {
  if (!is_exec(e)) return CUDA_ERROR_INVALID_VALUE;
  // Launched nodes were enqueued as operations holding everything they need, so work in
  // flight is neither cancelled nor left pointing at freed memory: it completes as if the
  // exec still existed, which is what "freed after completion" promises the caller.
  remove(registry().execs, e);
  return CUDA_SUCCESS;
}

CUresult launch(CUgraphExec_st* e, CUstream_st* stream) {
  // Everything the launch needs is copied first: enqueue may release the engine lock to
  // run a host function (Note [Host functions] in core/timeline.h), and another thread may
  // then destroy the exec.
  std::vector<GraphNode> nodes = copy_nodes(e->nodes);
  const core::OpId previous = e->last_launch_end;
  const std::uint64_t queue = stream->queue;
  // The start: after the stream's earlier work (with the legacy-stream rules of the submit
  // path) and after the previous launch of this exec.
  core::OpDesc start;
  start.kind = core::OpKind::kBarrier;
  start.name = "cuGraphLaunch (start)";
  const core::OpId deps_of_start[] = {previous};
  const Submitted begun = submit(stream, std::move(start), deps_of_start);
  if (begun.code != CUDA_SUCCESS) return begun.code;
  std::vector<core::OpId> ops(nodes.size(), 0);
  std::vector<bool> has_dependents(nodes.size(), false);
  for (NodeIndex i = 0; i < nodes.size(); ++i) {
    std::vector<core::OpId> deps{begun.op};
    for (NodeIndex d : nodes[i].deps) {
      deps.push_back(ops[d]);
      has_dependents[d] = true;
    }
    ops[i] = core::enqueue(queue, std::move(nodes[i].op), deps);
  }
  // The end: after every node without dependents, so the stream's later work and the next
  // launch wait for the whole graph.
  std::vector<core::OpId> sinks{begun.op};
  for (NodeIndex i = 0; i < nodes.size(); ++i)
    if (!has_dependents[i]) sinks.push_back(ops[i]);
  core::OpDesc finish;
  finish.kind = core::OpKind::kBarrier;
  finish.name = "cuGraphLaunch (end)";
  const core::OpId end = core::enqueue(queue, std::move(finish), sinks);
  if (is_exec(e)) e->last_launch_end = end;
  return CUDA_SUCCESS;
}

std::size_t live_graphs() { return registry().graphs.size(); }
std::size_t live_execs() { return registry().execs.size(); }

}  // namespace mockdev::cuda::graph
