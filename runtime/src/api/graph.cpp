// Graphs (accel/graph.h) over the backend SPI, with the rules and messages of PyTorch's
// CUDAGraph (aten/src/ATen/cuda/CUDAGraph.cpp, torch/cuda/graphs.py).
#include "accel/graph.h"

#include <atomic>
#include <cstdio>
#include <exception>
#include <string>

#include "accel/accelerator.h"
#include "accel/device_index_guard.h"
#include "core/caching_allocator.h"
#include "api/current_stream.h"

namespace accel {

namespace {

using detail::CapturedGraphHandle;
using detail::GraphHandle;

// Note [Graph private pools]
// A captured graph replays with the addresses it saw during capture, so the memory it
// used must stay its own: capture_begin() tells the capture device's caching allocator to
// serve the capture stream from the graph's private pool (begin_allocate_to_pool; the
// allocator also stops returning memory to the driver and defers the events of blocks
// freed meanwhile) and tells the pinned host allocator that a capture is underway.
// capture_end() ends the routing (the driver ends capture mode even when capture failed,
// so the routing ends too). The graph keeps its use of the pool until reset() or the
// destructor calls release_pool(): a pool no graph uses is emptied by the next
// empty_cache(). A pool id from generate_graph_pool_handle() shared by several graphs is
// one pool with one use per graph, as PyTorch's use_count.

// Private pools made by captures: {uid, 0}; shared handles: {0, uid}. One counter, as
// PyTorch's graph_pool_handle and capture ids come from process-wide counters.
std::atomic<std::uint64_t> g_next_pool_uid{1};

[[noreturn]] void fail(std::string message) { throw Error(ErrorKind::kRuntime, message); }

// "CUDAGraph": PyTorch's class name in its messages, from the backend's name.
std::string graph_class(detail::RuntimeState& state) {
  return detail::upper_backend_name(state) + "Graph";
}

}  // namespace

CaptureErrorMode parse_capture_error_mode(std::string_view text) {
  if (text == "default") return CaptureErrorMode::kDefault;
  if (text == "global") return CaptureErrorMode::kGlobal;
  if (text == "thread_local") return CaptureErrorMode::kThreadLocal;
  if (text == "relaxed") return CaptureErrorMode::kRelaxed;
  fail(
      "Unknown capture error mode. Expected `default`, `global`, `thread_local`, or `relaxed`, "
      "got " +
      std::string(text));
}

MempoolId generate_graph_pool_handle() {
  return {0, g_next_pool_uid.fetch_add(1, std::memory_order_relaxed)};
}

Graph::Graph(bool keep_graph) : keep_graph_(keep_graph) {
  detail::require_backend(detail::current_state());
}

Graph::~Graph() { reset_noexcept(); }

void Graph::capture_begin(MempoolId pool, CaptureErrorMode mode) {
  detail::RuntimeState& state = detail::current_state();
  detail::fail_if_bad_fork(state);
  if (captured_ || capturing_) {
    fail("This " + graph_class(state) +
         " instance already owns a captured graph. To capture a new graph, create a new "
         "instance.");
  }
  if (pool.first != 0 && pool.second != 0) {
    fail("INTERNAL ASSERT FAILED: a graph pool id has one non-zero half, got (" +
         std::to_string(pool.first) + ", " + std::to_string(pool.second) + ")");
  }
  const Stream stream = current_stream();  // initialises
  if (stream.is_default()) {
    fail(detail::upper_backend_name(state) +
         " graphs must be captured on a non-default stream. (However, after capture, it's ok "
         "to replay them on the default stream.)");
  }
  const int device = stream.device_index();
  const detail::StreamHandle handle = detail::stream_handle(state, stream);
  const MempoolId chosen = (pool.first != 0 || pool.second != 0)
                               ? pool
                               : MempoolId{g_next_pool_uid.fetch_add(1, std::memory_order_relaxed), 0};
  // Note [Graph private pools]: the allocator routes the capture stream's allocations to
  // the pool before the driver starts capturing, as PyTorch's beginAllocateToPool does.
  detail::alloc::CachingAllocator& allocator = *state.allocator();
  allocator.device(device).begin_allocate_to_pool(chosen, stream.id());
  allocator.host().begin_capture();
  try {
    detail::check_stream_call(
        detail::initialized_backend(state).begin_capture(device, handle, mode));
  } catch (...) {
    allocator.host().end_capture();
    allocator.device(device).end_allocate_to_pool(chosen);
    allocator.device(device).release_pool(chosen);
    throw;
  }
  pool_ = chosen;
  pool_in_use_ = true;
  capture_device_ = device;
  capture_stream_ = stream;
  capturing_ = true;
}

// Note [Graph private pools]: the end of routing. Called once per begin, whether the
// capture ended well or not (the graph keeps its pool until reset or destruction).
void Graph::end_allocating_to_pool() noexcept {
  try {
    detail::RuntimeState& state = detail::current_state();
    if (detail::alloc::CachingAllocator* allocator = state.allocator()) {
      allocator->host().end_capture();
      allocator->device(capture_device_).end_allocate_to_pool(pool_);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "accel: warning: Graph: ending the private pool failed: %s\n", e.what());
  } catch (...) {
  }
}

void Graph::capture_end() {
  detail::RuntimeState& state = detail::current_state();
  detail::fail_if_bad_fork(state);
  if (!capturing_) fail("capture_end() called before capture_begin().");
  const Stream stream = current_stream(capture_device_);
  if (stream != capture_stream_) fail("Capture must end on the same stream it began on.");
  detail::Backend& backend = detail::initialized_backend(state);
  // The driver ends capture mode even when it fails (an invalidated capture), so the
  // graph is no longer capturing whatever the answer.
  capturing_ = false;
  end_allocating_to_pool();
  const CapturedGraphHandle graph = detail::check_stream_call(
      backend.end_capture(capture_device_, detail::stream_handle(state, stream)));
  if (!graph) fail("Invalid capture.");
  graph_ = graph.value;
  captured_ = true;
  if (!keep_graph_) instantiate();
}

void Graph::instantiate() {
  detail::RuntimeState& state = detail::current_state();
  detail::fail_if_bad_fork(state);
  if (graph_ == 0 && exec_ == 0) {
    fail("capture_end() must have been called before calling instantiate");
  }
  if (exec_ != 0 && !keep_graph_) {
    fail("instantiate() is intended to be called by the user only when keep_graph=true");
  }
  if (graph_ == 0) fail("instantiate(): the captured graph was not kept (keep_graph=false)");
  detail::Backend& backend = detail::initialized_backend(state);
  if (exec_ != 0) {
    detail::check_stream_call(backend.destroy_graph(capture_device_, GraphHandle{exec_}));
    exec_ = 0;
  }
  exec_ = detail::check_stream_call(
              backend.instantiate_graph(capture_device_, CapturedGraphHandle{graph_}))
              .value;
  if (!keep_graph_) {
    // PyTorch destroys the raw graph once instantiated; the executable graph is independent.
    const std::uintptr_t graph = std::exchange(graph_, 0);
    detail::check_stream_call(
        backend.destroy_captured_graph(capture_device_, CapturedGraphHandle{graph}));
  }
}

void Graph::replay() {
  detail::RuntimeState& state = detail::current_state();
  detail::fail_if_bad_fork(state);
  if (!captured_)
    fail("Called " + graph_class(state) + "::replay without a preceding successful capture.");
  if (exec_ == 0) instantiate();  // keep_graph: instantiated on first replay
  DeviceIndexGuard guard(capture_device_);
  const Stream stream = current_stream(capture_device_);
  detail::check_stream_call(detail::initialized_backend(state).launch_graph(
      capture_device_, GraphHandle{exec_}, detail::stream_handle(state, stream)));
}

MempoolId Graph::pool() const {
  detail::RuntimeState& state = detail::current_state();
  detail::fail_if_bad_fork(state);
  if (!captured_) {
    fail("Called " + graph_class(state) + "::pool() without a preceding successful capture.");
  }
  return pool_;
}

void Graph::reset() {
  detail::fail_if_bad_fork(detail::current_state());
  reset_noexcept();
}

// PyTorch's reset(): end a capture in progress, destroy the graph and the executable
// graph; failures are warnings. In a forked child the driver is not touched.
void Graph::reset_noexcept() noexcept {
  try {
    detail::RuntimeState& state = detail::current_state();
    const bool usable = !state.lazy().in_bad_fork() && state.lazy().initialized() &&
                        state.backend() != nullptr && capture_device_ >= 0;
    auto warn = [](const detail::Status& status) {
      if (!status.ok()) {
        std::fprintf(stderr, "accel: warning: Graph::reset: %s\n", status.message().c_str());
      }
    };
    if (usable) {
      detail::Backend& backend = *state.backend();
      if (capturing_) {
        detail::Result<CapturedGraphHandle> ended = backend.end_capture(
            capture_device_,
            state.stream_pools().handle(backend, capture_device_, capture_stream_.id()));
        if (ended.ok() && *ended) warn(backend.destroy_captured_graph(capture_device_, *ended));
        if (!ended.ok()) warn(ended.status());
        end_allocating_to_pool();
      }
      if (exec_ != 0) warn(backend.destroy_graph(capture_device_, GraphHandle{exec_}));
      if (graph_ != 0) {
        warn(backend.destroy_captured_graph(capture_device_, CapturedGraphHandle{graph_}));
      }
      // Note [Graph private pools]: this graph's use of the pool ends; its cached segments
      // go back to the driver at the next empty_cache once no graph uses it.
      if (pool_in_use_ && state.allocator() != nullptr) {
        state.allocator()->device(capture_device_).release_pool(pool_);
      }
    }
  } catch (...) {
  }
  capturing_ = false;
  captured_ = false;
  pool_in_use_ = false;
  graph_ = 0;
  exec_ = 0;
  pool_ = {0, 0};
}

}  // namespace accel
