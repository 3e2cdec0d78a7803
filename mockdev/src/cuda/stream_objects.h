#pragma once
// The CUDA adapter's stream and event objects over the core timeline (core/timeline.h), the
// per-context stream bookkeeping of the legacy default stream (Note [Legacy stream]), and
// the one submit path every stream-ordered entry point goes through (Note [Submit path]).
//
// Ownership: stream and event objects are never freed (Note [Leaky state] in
// core/engine.h): a destroyed handle leaves the registry and is rejected with
// CUDA_ERROR_INVALID_HANDLE, never dereferenced. Thread safety: engine lock.
//
// Note [Legacy stream]
// CUDA Driver API, "Stream synchronization behavior", per context: an operation X on the legacy
// stream depends on the legacy stream's tail and on the tail of every live blocking stream of the
// context (created without CU_STREAM_NON_BLOCKING, and the per-thread default streams); an
// operation on a blocking stream depends on its own tail and on the legacy stream's tail.
// A blocking stream created after a legacy operation also waits for it (its first
// operation depends on the legacy tail), and a destroyed blocking stream keeps taking part
// until its pending work has completed (legacy operations still wait for it): both
// Recording 2 (docs/HARDWARE.md).
// Non-blocking streams take no part.
//
// Note [Submit path]
// Every stream-ordered entry point (copies, memsets, host functions, event record and wait,
// kernels, graph launches) resolves its stream handle with resolve_stream, describes its
// work as a core::OpDesc, and calls submit(). Stream capture diverts work there (a
// capturing stream's operations become graph nodes instead of timeline operations), and
// kernel launches join by building their own OpDesc.

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "accel_abi/cuda_driver.h"
#include "core/engine_lock.h"
#include "core/timeline.h"
#include "cuda/cuda_state.h"

struct accel::cuda_abi::CUstream_st {
  enum class Kind { kCreated, kLegacy, kPerThread };
  Kind kind = Kind::kCreated;
  std::uint64_t queue = 0;  // core queue id
  CUctx_st* ctx = nullptr;
  unsigned flags = 0;  // CU_STREAM_DEFAULT or CU_STREAM_NON_BLOCKING
  int priority = 0;
  unsigned long long id = 0;  // cuStreamGetId: unique for the process's machine
  const void* caller = nullptr;  // the call that made it (the leak report, core/leak_report.h)
};

struct accel::cuda_abi::CUevent_st {
  CUctx_st* ctx = nullptr;
  unsigned flags = 0;
  mockdev::core::OpId record = 0;  // the last record's operation; 0 = never recorded
  const void* caller = nullptr;    // the call that made it (the leak report)
};

namespace mockdev::cuda {

using accel::cuda_abi::CUevent_st;
using accel::cuda_abi::CUresult;
using accel::cuda_abi::CUstream_st;

// The streams of one context.
struct ContextStreams {
  CUstream_st* legacy = nullptr;                     // created at first use
  std::vector<CUstream_st*> blocking;                // live blocking streams, creation order
  std::vector<std::uint64_t> retired_blocking;       // queues of destroyed blocking streams
  std::map<std::uint64_t, CUstream_st*> per_thread;  // by thread key
  std::vector<std::uint64_t> queues;                 // every queue of the context, creation order
  std::vector<CUevent_st*> events;                   // live events, creation order
};

struct StreamRegistry {
  std::uint64_t generation = 0;
  std::map<unsigned long long, ContextStreams> contexts;  // by context id (CUctx_st::id)
  // Handles handed out and not destroyed; looked up, never iterated for a decision.
  std::set<const CUstream_st*> live_streams;
  std::set<const CUevent_st*> live_events;
  unsigned long long next_stream_id = 1;
};

StreamRegistry& stream_registry() MOCKDEV_REQUIRES(core::g_engine_mutex);
// The streams of `ctx` (created empty on first use).
ContextStreams& streams_of(const CUctx_st* ctx) MOCKDEV_REQUIRES(core::g_engine_mutex);

// Note [Per-thread default stream]
// CUDA Driver API, "Stream synchronization behavior": the handle 0 means the legacy
// stream, except in the per-thread variants of the entry points (cuMemcpyAsync_ptsz,
// cuMemcpyHtoD_v2_ptds: what cuda.h names under CUDA_API_PER_THREAD_DEFAULT_STREAM, and
// what cuGetProcAddress serves under CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM), where
// it means CU_STREAM_PER_THREAD, the calling thread's own default stream of the current
// context. That stream is blocking: it synchronises with the legacy stream (Note [Legacy
// stream]). A per-thread variant holds a PerThreadDefaultStream for the length of its call;
// resolve_stream reads it. The explicit handles CU_STREAM_LEGACY and CU_STREAM_PER_THREAD
// mean the same in every variant.
class PerThreadDefaultStream {
 public:
  PerThreadDefaultStream();
  ~PerThreadDefaultStream();
  PerThreadDefaultStream(const PerThreadDefaultStream&) = delete;
  PerThreadDefaultStream& operator=(const PerThreadDefaultStream&) = delete;

 private:
  bool saved_;
};
// Whether the calling thread is inside a per-thread variant (handle 0 = CU_STREAM_PER_THREAD).
bool per_thread_default_stream();

// A stream handle resolved: the object, or the code to fail with (201 without a current
// context for the special handles 0 / CU_STREAM_LEGACY / CU_STREAM_PER_THREAD, 0 meaning
// either of the others (Note [Per-thread default stream]); 709 when it
// is destroyed; 400 for a handle that is not a live stream).
struct ResolvedStream {
  CUstream_st* stream = nullptr;
  CUresult error = accel::cuda_abi::CUDA_SUCCESS;
};
ResolvedStream resolve_stream(accel::cuda_abi::CUstream handle)
    MOCKDEV_REQUIRES(core::g_engine_mutex);
// A new stream object of `ctx` with its queue, registered (and in the blocking set unless
// it is the legacy stream or CU_STREAM_NON_BLOCKING).
CUstream_st* new_stream(CUctx_st* ctx, CUstream_st::Kind kind, unsigned flags, int priority,
                        std::string label) MOCKDEV_REQUIRES(core::g_engine_mutex);
// The legacy stream of `ctx`, created on first use.
CUstream_st* legacy_stream(CUctx_st* ctx) MOCKDEV_REQUIRES(core::g_engine_mutex);
// The engine queue of a stream the program created (cuStreamCreate*) and has not destroyed;
// nullopt for any other value, the special handles included (never dereferences it). The
// row's queue_of_handle hook (Note [Runtime names] in core/runtime_tool.h).
std::optional<std::uint64_t> created_stream_queue(const void* handle)
    MOCKDEV_REQUIRES(core::g_engine_mutex);
// Whether `event` is a live event handle (never dereferences it otherwise).
bool is_live_event(const CUevent_st* event) MOCKDEV_REQUIRES(core::g_engine_mutex);

// The operations a host wait or query on `stream` covers: its tail, and for the legacy
// stream every blocking stream's tail too (CUDA Driver API, "Stream synchronization
// behavior").
std::vector<core::OpId> stream_targets(const CUstream_st* stream)
    MOCKDEV_REQUIRES(core::g_engine_mutex);
// CUDA Driver API, "API synchronization behavior": a synchronous memset "is asynchronous with
// respect to the host except when the target is pinned host memory or a Unified Memory
// region, in which case it is fully synchronous". Whether `address` is such a target: host
// memory device work may use (Note [Device-accessible host memory] in core/pinned_host.h).
bool host_memory_target(std::uint64_t address) MOCKDEV_REQUIRES(core::g_engine_mutex);
// Every queue tail of every live context: what freeing pinned or managed memory waits for.
std::vector<core::OpId> all_work() MOCKDEV_REQUIRES(core::g_engine_mutex);
// Every queue tail of `ctx` (cuCtxSynchronize).
std::vector<core::OpId> context_targets(const CUctx_st* ctx) MOCKDEV_REQUIRES(core::g_engine_mutex);

// Note [Submit path]: enqueues `desc` on `stream` after its ordering dependencies (Note
// [Legacy stream]) and `extra_deps`. May release the engine lock (core::enqueue): the
// caller must not use `stream` afterwards.
struct Submitted {
  CUresult code = accel::cuda_abi::CUDA_SUCCESS;
  core::OpId op = 0;
};
Submitted submit(CUstream_st* stream, core::OpDesc&& desc,
                 std::span<const core::OpId> extra_deps = {})
    MOCKDEV_REQUIRES(core::g_engine_mutex);

// A host wait on `ops` for entry point `caller`: CUDA_SUCCESS, or the deadlock code (Note
// [Deadlocks] in core/timeline.h). May release the lock.
inline constexpr CUresult kDeadlockResult = accel::cuda_abi::CUDA_ERROR_ILLEGAL_STATE;
CUresult host_wait(std::span<const core::OpId> ops, const char* caller)
    MOCKDEV_REQUIRES(core::g_engine_mutex);

// The context `ctx` was released to a count of zero: its streams and events leave the
// registry and its pending work is cancelled (Note [Deadlocks] in core/timeline.h).
void kill_context_streams(CUctx_st* ctx) MOCKDEV_REQUIRES(core::g_engine_mutex);

}  // namespace mockdev::cuda
