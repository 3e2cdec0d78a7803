#include "cuda/capture.h"

#include <algorithm>
#include <memory>

#include "core/engine.h"
#include "cuda/cuda_state.h"

namespace mockdev::cuda::capture {
namespace {

// An event whose last record was on a member of `sequence`: it stands for `nodes`.
struct CapturedEvent {
  const void* event = nullptr;
  std::uint64_t sequence = 0;
  std::vector<NodeIndex> nodes;
};

struct CaptureState {
  std::uint64_t generation = 0;
  std::vector<std::unique_ptr<Sequence>> sequences;  // in begin order
  std::vector<CapturedEvent> events;
  control::CaptureRules rules;
};

// Capture ids are unique for the process's life, across machine installations.
std::uint64_t g_next_sequence_id = 1;

CaptureState& state() MOCKDEV_REQUIRES(core::g_engine_mutex) {
  static CaptureState* const s = new CaptureState();  // never deleted: Note [Leaky state]
  const std::uint64_t generation = core::engine().generation;
  if (s->generation != generation) {
    // Graphs of the earlier machine went with graph.h's registry.
    *s = CaptureState{};
    s->generation = generation;
  }
  return *s;
}

struct ThreadMode {
  std::uint64_t generation = 0;
  CUstreamCaptureMode mode = CU_STREAM_CAPTURE_MODE_GLOBAL;
};
thread_local ThreadMode t_mode;

struct Found {
  Sequence* sequence = nullptr;
  Member* member = nullptr;
};

Found find_member(const void* key) MOCKDEV_REQUIRES(core::g_engine_mutex) {
  for (auto& seq : state().sequences)
    for (Member& m : seq->members)
      if (m.stream.key == key) return {seq.get(), &m};
  return {};
}

Sequence* find_sequence(std::uint64_t id) MOCKDEV_REQUIRES(core::g_engine_mutex) {
  for (auto& seq : state().sequences)
    if (seq->id == id) return seq.get();
  return nullptr;
}

CapturedEvent* find_event(const void* event) MOCKDEV_REQUIRES(core::g_engine_mutex) {
  for (CapturedEvent& e : state().events)
    if (e.event == event) return &e;
  return nullptr;
}

void forget_event(const void* event) MOCKDEV_REQUIRES(core::g_engine_mutex) {
  auto& events = state().events;
  events.erase(std::remove_if(events.begin(), events.end(),
                              [&](const CapturedEvent& e) { return e.event == event; }),
               events.end());
}

void invalidate(Sequence& seq) { seq.invalidated = true; }

// Ends `seq`: every member reads NONE again, its captured events stop standing for its
// nodes (they read as before the capture), and the graph is freed unless `keep_graph`.
void finish(Sequence* seq, bool keep_graph) MOCKDEV_REQUIRES(core::g_engine_mutex) {
  CaptureState& s = state();
  s.events.erase(std::remove_if(s.events.begin(), s.events.end(),
                                [&](const CapturedEvent& e) { return e.sequence == seq->id; }),
                 s.events.end());
  if (keep_graph) {
    seq->graph->capturing = 0;
  } else {
    graph::erase(seq->graph);
  }
  s.sequences.erase(std::remove_if(s.sequences.begin(), s.sequences.end(),
                                   [&](const auto& p) { return p.get() == seq; }),
                    s.sequences.end());
}

// Whether a blocking stream captures on `device` (the legacy stream would depend on it).
bool blocking_capture_on(int device) MOCKDEV_REQUIRES(core::g_engine_mutex) {
  for (auto& seq : state().sequences) {
    for (const Member& m : seq->members)
      if (m.stream.device == device && m.stream.blocking) return true;
  }
  return false;
}

// Every node `roots` reach through dependencies, roots included.
std::vector<bool> ancestors(const CUgraph_st& g, const std::vector<NodeIndex>& roots) {
  std::vector<bool> seen(g.nodes.size(), false);
  std::vector<NodeIndex> todo(roots);
  while (!todo.empty()) {
    const NodeIndex n = todo.back();
    todo.pop_back();
    if (seen[n]) continue;
    seen[n] = true;
    for (NodeIndex d : g.nodes[n].deps) todo.push_back(d);
  }
  return seen;
}

// 904: some member's work is not among the origin's dependencies.
bool has_unjoined_work(const Sequence& seq) {
  const Member& origin = seq.members.front();
  const std::vector<bool> joined = ancestors(*seq.graph, origin.deps);
  for (std::size_t i = 1; i < seq.members.size(); ++i)
    for (NodeIndex n : seq.members[i].deps)
      if (!joined[n]) return true;
  return false;
}

bool valid_mode(int mode) {
  return mode == CU_STREAM_CAPTURE_MODE_GLOBAL || mode == CU_STREAM_CAPTURE_MODE_THREAD_LOCAL ||
         mode == CU_STREAM_CAPTURE_MODE_RELAXED;
}

void add_unique(std::vector<NodeIndex>& to, const std::vector<NodeIndex>& from) {
  for (NodeIndex n : from)
    if (std::find(to.begin(), to.end(), n) == to.end()) to.push_back(n);
}

}  // namespace

// ---- entry points ------------------------------------------------------------------------

CUresult begin(const StreamRef& s, int mode) {
  if (!valid_mode(mode)) return CUDA_ERROR_INVALID_VALUE;
  if (s.legacy) return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
  if (find_member(s.key).member != nullptr) return CUDA_ERROR_ILLEGAL_STATE;
  auto seq = std::make_unique<Sequence>();
  seq->id = g_next_sequence_id++;
  seq->origin = s.key;
  seq->owner = std::this_thread::get_id();
  seq->mode = static_cast<CUstreamCaptureMode>(mode);
  seq->device = s.device;
  seq->graph = graph::create(s.device);
  seq->graph->capturing = seq->id;
  seq->members.push_back(Member{s, {}, {}, {}});
  state().sequences.push_back(std::move(seq));
  return CUDA_SUCCESS;
}

CUresult end(const StreamRef& s, CUgraph* graph_out) {
  if (graph_out != nullptr) *graph_out = nullptr;
  Found f = find_member(s.key);
  if (f.member == nullptr) return CUDA_ERROR_ILLEGAL_STATE;
  Sequence& seq = *f.sequence;
  if (seq.origin != s.key) {
    invalidate(seq);  // recorded on the H200: the capture cannot be ended any more
    return CUDA_ERROR_STREAM_CAPTURE_UNMATCHED;
  }
  if (seq.mode != CU_STREAM_CAPTURE_MODE_RELAXED && seq.owner != std::this_thread::get_id()) {
    finish(&seq, false);  // Recording 2: the capture is over (the stream reads NONE)
    return CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD;
  }
  if (seq.invalidated) {
    finish(&seq, false);
    return CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
  }
  if (has_unjoined_work(seq)) {
    finish(&seq, false);
    return CUDA_ERROR_STREAM_CAPTURE_UNJOINED;
  }
  CUgraph_st* g = seq.graph;
  if (graph_out == nullptr) {
    finish(&seq, false);  // Recording 2: ended, and the graph goes with it
    return CUDA_SUCCESS;
  }
  finish(&seq, true);
  *graph_out = g;
  return CUDA_SUCCESS;
}

CUresult status(const StreamRef& s, CUstreamCaptureStatus* out) {
  if (out == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (s.legacy && blocking_capture_on(s.device)) return CUDA_ERROR_STREAM_CAPTURE_IMPLICIT;
  *out = status_of(s.key);
  return CUDA_SUCCESS;
}

CUresult info(const StreamRef& s, CUstreamCaptureStatus* status_out, cuuint64_t* id,
              CUgraph* graph_out, const CUgraphNode** dependencies,
              const CUgraphEdgeData** edge_data, std::size_t* dependency_count) {
  if (status_out == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (edge_data != nullptr && dependencies == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (dependencies != nullptr && dependency_count == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (s.legacy && blocking_capture_on(s.device)) return CUDA_ERROR_STREAM_CAPTURE_IMPLICIT;
  Found f = find_member(s.key);
  if (f.member == nullptr) {
    *status_out = CU_STREAM_CAPTURE_STATUS_NONE;
    return CUDA_SUCCESS;
  }
  if (f.sequence->invalidated) {
    *status_out = CU_STREAM_CAPTURE_STATUS_INVALIDATED;
    return CUDA_SUCCESS;
  }
  *status_out = CU_STREAM_CAPTURE_STATUS_ACTIVE;
  if (id != nullptr) *id = f.sequence->id;
  if (graph_out != nullptr) *graph_out = f.sequence->graph;
  Member& m = *f.member;
  m.deps_out.clear();
  for (NodeIndex n : m.deps) m.deps_out.push_back(graph::node_handle(f.sequence->graph, n));
  // Captured edges carry no ports and no type: every edge datum is zero, so asking for
  // the dependencies without the edge data is never lossy (no 402 here).
  m.edges_out.assign(m.deps.size(), CUgraphEdgeData{});
  if (dependencies != nullptr) *dependencies = m.deps_out.empty() ? nullptr : m.deps_out.data();
  if (edge_data != nullptr) *edge_data = m.edges_out.empty() ? nullptr : m.edges_out.data();
  if (dependency_count != nullptr) *dependency_count = m.deps.size();
  return CUDA_SUCCESS;
}

CUresult exchange_mode(CUstreamCaptureMode* mode) {
  if (mode == nullptr || !valid_mode(*mode)) return CUDA_ERROR_INVALID_VALUE;
  const CUstreamCaptureMode previous = thread_mode();
  t_mode = ThreadMode{state().generation, *mode};
  *mode = previous;
  return CUDA_SUCCESS;
}

// ---- hooks -------------------------------------------------------------------------------

bool any_capture() { return !state().sequences.empty(); }

CUresult submit(const StreamRef& s, core::OpDesc& op, bool* captured) {
  *captured = false;
  Found f = find_member(s.key);
  if (f.member == nullptr) return s.legacy ? legacy_use(s.device) : CUDA_SUCCESS;
  if (f.sequence->invalidated) return CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
  const NodeIndex index =
      graph::add_node(f.sequence->graph, GraphNode{f.member->deps, std::move(op)});
  f.member->deps.assign(1, index);
  *captured = true;
  return CUDA_SUCCESS;
}

CUresult legacy_use(int device) {
  if (!blocking_capture_on(device)) return CUDA_SUCCESS;
  for (auto& seq : state().sequences) {
    for (const Member& m : seq->members)
      if (m.stream.device == device && m.stream.blocking) invalidate(*seq);
  }
  return CUDA_ERROR_STREAM_CAPTURE_IMPLICIT;
}

CUresult record_event(const void* event, const StreamRef& s, bool* captured) {
  *captured = false;
  Found f = find_member(s.key);
  if (f.member == nullptr) {
    if (s.legacy) {
      if (CUresult rc = legacy_use(s.device); rc != CUDA_SUCCESS) return rc;
    }
    forget_event(event);
    return CUDA_SUCCESS;
  }
  if (f.sequence->invalidated) return CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
  forget_event(event);
  state().events.push_back(CapturedEvent{event, f.sequence->id, f.member->deps});
  *captured = true;
  return CUDA_SUCCESS;
}

CUresult wait_event(const StreamRef& s, const void* event, bool event_recorded, bool* handled) {
  *handled = false;
  const CapturedEvent* ce = find_event(event);
  Found f = find_member(s.key);
  if (f.member != nullptr) {
    *handled = true;
    Sequence& seq = *f.sequence;
    if (seq.invalidated) return CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
    if (ce == nullptr) {
      // Nothing to wait for in a never-recorded event [inferred: the same answer as
      // outside a capture, docs/HARDWARE.md]; work recorded outside: isolation (recorded).
      if (!event_recorded) return CUDA_SUCCESS;
      invalidate(seq);
      return CUDA_ERROR_STREAM_CAPTURE_ISOLATION;
    }
    if (ce->sequence != seq.id) {
      invalidate(seq);
      if (Sequence* other = find_sequence(ce->sequence);
          other != nullptr && state().rules.merge_invalidates_both)
        invalidate(*other);
      return CUDA_ERROR_STREAM_CAPTURE_MERGE;
    }
    add_unique(f.member->deps, ce->nodes);
    return CUDA_SUCCESS;
  }
  if (ce == nullptr) return s.legacy ? legacy_use(s.device) : CUDA_SUCCESS;
  *handled = true;
  Sequence* seq = find_sequence(ce->sequence);
  // A captured event of an invalidated capture: the H200 answered 0 and nothing joined.
  if (seq == nullptr || seq->invalidated) return CUDA_SUCCESS;
  if (s.legacy) {
    // The legacy stream cannot capture (Begin answers 900 for it), so it cannot join a
    // capture either: 906, and the capture is invalidated (Recording 2).
    invalidate(*seq);
    return CUDA_ERROR_STREAM_CAPTURE_IMPLICIT;
  }
  seq->members.push_back(Member{s, ce->nodes, {}, {}});  // fork: s joins the capture
  return CUDA_SUCCESS;
}

CUresult host_wait_on_stream(const StreamRef& s) {
  Found f = find_member(s.key);
  if (f.member != nullptr) {
    invalidate(*f.sequence);
    return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
  }
  return s.legacy ? legacy_use(s.device) : CUDA_SUCCESS;
}

CUresult host_wait_on_event(const void* event) {
  const CapturedEvent* ce = find_event(event);
  if (ce == nullptr) return CUDA_SUCCESS;
  if (Sequence* seq = find_sequence(ce->sequence);
      seq != nullptr && state().rules.captured_event_wait_invalidates)
    invalidate(*seq);
  return CUDA_ERROR_CAPTURED_EVENT;
}

bool is_captured_event(const void* event) { return find_event(event) != nullptr; }

CUresult host_wait_on_context(const void* ctx) {
  bool waited_on_capture = false;
  for (auto& seq : state().sequences) {
    for (const Member& m : seq->members) {
      if (m.stream.ctx != ctx) continue;
      invalidate(*seq);
      waited_on_capture = true;
      break;
    }
  }
  return waited_on_capture ? CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED : CUDA_SUCCESS;
}

void event_destroyed(const void* event) { forget_event(event); }

void device_streams_killed(int device) {
  std::vector<Sequence*> doomed;
  for (auto& seq : state().sequences) {
    if (seq->device == device) {
      doomed.push_back(seq.get());
      continue;
    }
    std::erase_if(seq->members, [&](const Member& m) { return m.stream.device == device; });
  }
  for (Sequence* seq : doomed) finish(seq, false);
}

CUresult stream_destroyed(const StreamRef& s) {
  Found f = find_member(s.key);
  if (f.member == nullptr) return CUDA_SUCCESS;
  if (f.sequence->origin == s.key) {
    invalidate(*f.sequence);  // [inferred] the origin is needed to end the capture
    return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
  }
  // Recording 2: a joined stream may be destroyed; the capture goes on without it, its
  // captured work staying in the graph.
  std::erase_if(f.sequence->members, [&](const Member& m) { return m.stream.key == s.key; });
  return CUDA_SUCCESS;
}

// ---- gate --------------------------------------------------------------------------------

std::optional<CUresult> unsafe_call_gate() {
  CaptureState& s = state();
  if (s.sequences.empty()) return std::nullopt;  // the common case: one branch
  const CUstreamCaptureMode mode = thread_mode();
  if (mode == CU_STREAM_CAPTURE_MODE_RELAXED) return std::nullopt;
  const CUctx_st* ctx = current_context();
  const int device = is_registered(ctx) ? ctx->physical_device : -1;
  const std::thread::id me = std::this_thread::get_id();
  bool prohibited = false;
  for (auto& seq : s.sequences) {
    if (s.rules.gate_per_device && seq->device != device) continue;
    const bool own = seq->owner == me && seq->mode != CU_STREAM_CAPTURE_MODE_RELAXED;
    const bool others_global = mode == CU_STREAM_CAPTURE_MODE_GLOBAL && seq->owner != me &&
                               seq->mode == CU_STREAM_CAPTURE_MODE_GLOBAL;
    if (own || others_global) {
      invalidate(*seq);
      prohibited = true;
    }
  }
  if (prohibited) return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
  return std::nullopt;
}

// ---- inspection --------------------------------------------------------------------------

CUstreamCaptureStatus status_of(const void* stream_key) {
  Found f = find_member(stream_key);
  if (f.member == nullptr) return CU_STREAM_CAPTURE_STATUS_NONE;
  return f.sequence->invalidated ? CU_STREAM_CAPTURE_STATUS_INVALIDATED
                                 : CU_STREAM_CAPTURE_STATUS_ACTIVE;
}

bool any_capture_on(int device) {
  for (auto& seq : state().sequences)
    if (seq->device == device) return true;
  return false;
}

CUstreamCaptureMode thread_mode() {
  return t_mode.generation == state().generation ? t_mode.mode : CU_STREAM_CAPTURE_MODE_GLOBAL;
}

control::CaptureRules& rules() { return state().rules; }

std::size_t ongoing_sequences() { return state().sequences.size(); }

}  // namespace mockdev::cuda::capture
