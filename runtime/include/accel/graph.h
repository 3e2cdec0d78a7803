#pragma once
// Graphs: torch.accelerator.Graph and generate_graph_pool_handle (PyTorch's
// aten/src/ATen/cuda/CUDAGraph.cpp): capture the work queued on the current
// stream into a graph, then replay it with one launch.
//
//   accel::Stream side;                   // capture needs a non-default stream
//   accel::StreamGuard guard(side);
//   accel::Graph graph;
//   graph.capture_begin();
//   ... queue work on accel::current_stream() ...
//   graph.capture_end();                  // instantiates unless keep_graph
//   graph.replay();                       // on the current stream, any stream
//
// Memory pools (Note [Graph private pools] in runtime/src/api/graph.cpp, docs/MEMORY.md):
// from capture_begin() to capture_end(), device allocations on the capture stream come
// from the graph's private pool (a fresh one, or the one `pool` names; pass the same
// generate_graph_pool_handle() to several graphs to share one), and nothing is returned
// to the driver; a block freed during capture is never handed to eager work. reset() and
// the destructor release the graph's use of the pool: once no graph uses it, its cached
// segments go back to the driver at the next empty_cache().
//
// Constructing a Graph touches nothing (no accelerator: throws kUnavailable). Every other
// member initialises the runtime; in a forked child, ForkError. Not thread-safe; not
// copyable, not movable. The destructor runs reset(), whose failures are warnings on
// stderr, never exceptions.

#include <cstdint>
#include <string_view>
#include <utility>

#include "accel/stream.h"

namespace accel {

// c10::MempoolId_t: (0, 0) asks capture_begin for a fresh private pool; a pool made by a
// capture has first != 0; one from generate_graph_pool_handle() has second != 0.
using MempoolId = std::pair<std::uint64_t, std::uint64_t>;

// How calls that are unsafe during a capture are treated (CUDA: cudaStreamCaptureMode).
// kDefault is kGlobal on CUDA.
enum class CaptureErrorMode { kDefault, kGlobal, kThreadLocal, kRelaxed };

// "default", "global", "thread_local", "relaxed"; anything else throws kRuntime
// "Unknown capture error mode. Expected `default`, `global`, `thread_local`, or
// `relaxed`, got <text>".
CaptureErrorMode parse_capture_error_mode(std::string_view text);

// A fresh pool id (second != 0) to share between graphs. Allocates nothing, initialises
// nothing.
MempoolId generate_graph_pool_handle();

class Graph {
 public:
  explicit Graph(bool keep_graph = false);
  ~Graph();
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;

  // Begins capturing the current stream of the current device. Errors: a graph already
  // captured ("This CUDAGraph instance already owns a captured graph. To capture a new
  // graph, create a new instance."), the default stream ("CUDA graphs must be captured on
  // a non-default stream. (However, after capture, it's ok to replay them on the default
  // stream.)"), a pool id with both halves set, and the driver's.
  void capture_begin(MempoolId pool = {0, 0}, CaptureErrorMode mode = CaptureErrorMode::kDefault);
  // Ends the capture on the stream it began on ("Capture must end on the same stream it
  // began on." otherwise; "capture_end() called before capture_begin()." without one);
  // instantiates unless keep_graph.
  void capture_end();
  // keep_graph only: builds the executable graph (also done by the first replay()).
  void instantiate();
  // Launches the graph on the current stream of the capture device. Before a successful
  // capture: "Called CUDAGraph::replay without a preceding successful capture.".
  void replay();
  // Ends a capture in progress and destroys the graph; the instance can capture again.
  void reset();
  // The pool the capture used; before a successful capture: "Called CUDAGraph::pool()
  // without a preceding successful capture.".
  MempoolId pool() const;
  bool keep_graph() const noexcept { return keep_graph_; }

 private:
  void reset_noexcept() noexcept;
  void end_allocating_to_pool() noexcept;

  bool keep_graph_;
  bool capturing_ = false;
  bool captured_ = false;  // capture_end() succeeded (until reset())
  int capture_device_ = -1;
  Stream capture_stream_ = Stream::unchecked(0, 0);
  MempoolId pool_{0, 0};
  bool pool_in_use_ = false;  // capture_begin() began routing to pool_; reset() releases it
  std::uintptr_t graph_ = 0;  // the backend's CapturedGraphHandle (keep_graph, or until
                              // instantiated)
  std::uintptr_t exec_ = 0;   // the backend's GraphHandle
};

}  // namespace accel
