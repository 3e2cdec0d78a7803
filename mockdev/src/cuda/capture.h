#pragma once
// Stream capture in the simulated CUDA driver (CUDA Programming Guide, "CUDA Graphs";
// CUDA Driver API, cuStreamBeginCapture and friends; and docs/HARDWARE.md "Stream, event, copy and
// capture rules", which wins where the two differ): capture sequences, the per-thread capture mode,
// captured events and the gate for "potentially unsafe" calls. The graphs a capture builds live in
// graph.h.
//
// The capture engine never touches a stream object: the stream code describes a stream
// with a StreamRef (identity, device, context, legacy/blocking) and calls the hooks below
// at the points where capture changes what happens (the submit path, event record and
// wait, stream query/sync, callbacks, destroy). A hook answers CUDA_SUCCESS when the call
// goes on as usual, or the code the call must return.
//
// Ownership: one CaptureState per installed machine (reset when the core's machine
// generation changes; Note [Leaky state] in core/engine.h). Thread safety: everything
// here requires the engine lock; the per-thread capture mode is thread_local.
//
// Note [Capture rules]
// * A sequence has an origin stream, an owner thread, a mode, a device, the graph under
//   construction and its member streams, each with a dependency set (the nodes its next
//   captured operation depends on). Status ACTIVE or INVALIDATED; a stream that is no
//   member reads NONE.
// * Begin: NULL/legacy stream 900, mode outside 0..2 1, a member already 401 (recorded).
// * End: not a member 401; a member that is not the origin 903 and the sequence is
//   invalidated (recorded); a non-relaxed sequence from another thread 908, and the sequence
//   is over (Recording 2: the origin reads NONE, a second End answers 401); invalidated
//   901; a member whose work never rejoined the origin 904; a NULL graph pointer ends the
//   sequence with 0 and frees its graph (Recording 2). Every End that answers 0, 901, 904
//   or 908 ends the sequence: every member reads NONE again, and the graph is handed out
//   only on success (*graph is NULL after every failure).
// * Operations submitted to a member become graph nodes depending on its dependency set;
//   a member of an invalidated sequence answers 901 [inferred].
// * Event record on a member makes the event a captured event (its nodes: the member's
//   dependency set); a wait by a non-member on a captured event joins the sequence (fork),
//   a wait by a member adds the nodes (join), a wait by a member of another sequence is a
//   merge: 902, and both are invalidated when CaptureRules::merge_invalidates_both [inferred].
//   A member waiting on an event recorded outside the capture: 905 + invalidation
//   (recorded); on a never-recorded event: nothing to wait for, 0 [inferred]. A non-member
//   waiting on a captured event of an invalidated sequence: 0 and no join (recorded).
// * Host waits on members (cuStreamSynchronize, cuStreamQuery) and cuStreamAddCallback on
//   a member: 900 + invalidation (recorded). cuCtxSynchronize with a member of any
//   sequence in the context, whatever the thread's mode: 900 + invalidation (Recording 2,
//   from a relaxed thread). cuEventQuery/cuEventSynchronize on a captured event: 907
//   CUDA_ERROR_CAPTURED_EVENT, invalidating its sequence (Recording 2, from a relaxed
//   thread; a thread the gate prohibits gets the gate's 900 first, as Recording 1 shows)
//   unless CaptureRules::captured_event_wait_invalidates is off; cuEventElapsedTime with
//   a captured event: CUDA_ERROR_INVALID_VALUE (Recording 2). After End an event reads as
//   its last record outside the capture.
// * cuGraphLaunch into a member: 900 + invalidation (Recording 2; CUDA could have made a
//   child-graph node of it, the H100 did not).
// * cuStreamDestroy of a member that is not the origin: 0, and the stream leaves the
//   sequence, its captured work staying in the graph (Recording 2); of the origin: 900 and
//   the sequence is invalidated [inferred].
// * A primary context released to zero kills its streams: the sequences begun on its
//   device end with them (graphs freed), and its streams leave other sequences.
// * The legacy stream of a context (enqueue, synchronous copies, query, sync) while a
//   blocking stream of the same device captures: 906 + invalidation of those sequences
//   (recorded for synchronous copies); cuStreamIsCapturing/GetCaptureInfo on it: 906 and
//   nothing invalidated (CUDA Driver API, cuStreamGetCaptureInfo).
// * Unsafe-call gate (CUDA Driver API, cuThreadExchangeStreamCaptureMode): an entry point without
// kLegalInCapture, called by
//   thread T in mode m_T with device D current: RELAXED is allowed; a sequence on D owned
//   by T and begun GLOBAL or THREAD_LOCAL prohibits it; with m_T GLOBAL, a GLOBAL sequence
//   on D owned by another thread prohibits it. Prohibited: 900, and the prohibiting
//   sequences are invalidated (recorded for cuMemAlloc, cuStreamSynchronize/Query,
//   cuCtxSynchronize). Captures count on every device, as cuda.h states the rule; with
//   CaptureRules::gate_per_device they count on their own device only.
// * After End, a member's next operation follows the last one enqueued before it entered
//   the capture: captured operations never enter the stream's queue, so nothing is needed.

#include <cstdint>
#include <optional>
#include <thread>
#include <vector>

#include "accel_abi/cuda_driver.h"
#include "core/engine_lock.h"
#include "cuda/graph.h"
#include "mockdev/capture.h"

namespace mockdev::cuda::capture {

using namespace accel::cuda_abi;  // NOLINT: vendor names read best unqualified here

// A stream as the capture engine sees it. `key` is the stream's identity (never
// dereferenced); the per-thread default stream of each thread is its own key.
struct StreamRef {
  const void* key = nullptr;
  int device = 0;            // physical device
  const void* ctx = nullptr;  // the stream's context
  bool legacy = false;        // the context's legacy default stream
  bool blocking = true;       // synchronises with the legacy stream (no CU_STREAM_NON_BLOCKING)
};

struct Member {
  StreamRef stream;
  std::vector<NodeIndex> deps;  // the dependency set
  // cuStreamGetCaptureInfo's arrays, valid until the next call on the stream or the End.
  std::vector<CUgraphNode> deps_out;
  std::vector<CUgraphEdgeData> edges_out;
};

struct Sequence {
  std::uint64_t id = 0;  // unique in the process's life, 1, 2, ...
  const void* origin = nullptr;
  std::thread::id owner;
  CUstreamCaptureMode mode = CU_STREAM_CAPTURE_MODE_GLOBAL;
  int device = 0;
  CUgraph_st* graph = nullptr;  // registered in graph.h's registry, marked as capturing
  bool invalidated = false;
  std::vector<Member> members;  // in joining order (origin first); never keyed by address
};

// ---- entry points' own steps (driver_capture.cpp calls these) --------------------------
CUresult begin(const StreamRef& s, int mode) MOCKDEV_REQUIRES(core::g_engine_mutex);
CUresult end(const StreamRef& s, CUgraph* graph) MOCKDEV_REQUIRES(core::g_engine_mutex);
// cuStreamIsCapturing's answer for `s` (906 on a legacy stream next to a blocking capture).
CUresult status(const StreamRef& s, CUstreamCaptureStatus* out)
    MOCKDEV_REQUIRES(core::g_engine_mutex);
CUresult info(const StreamRef& s, CUstreamCaptureStatus* status, cuuint64_t* id, CUgraph* graph,
              const CUgraphNode** dependencies, const CUgraphEdgeData** edge_data,
              std::size_t* dependency_count) MOCKDEV_REQUIRES(core::g_engine_mutex);
// cuThreadExchangeStreamCaptureMode: 1 for a NULL pointer or a mode outside 0..2.
CUresult exchange_mode(CUstreamCaptureMode* mode) MOCKDEV_REQUIRES(core::g_engine_mutex);

// ---- hooks for the stream code ---------------------------------------------------------
// The submit path, before an operation is enqueued on `s`: when `s` is a member, `op` is
// moved into a new node of the sequence's graph (after the member's dependency set) and
// *captured is set; the legacy stream next to a blocking capture answers 906.
CUresult submit(const StreamRef& s, core::OpDesc& op, bool* captured)
    MOCKDEV_REQUIRES(core::g_engine_mutex);
// Whether any capture is in progress (the submit path's fast test).
bool any_capture() MOCKDEV_REQUIRES(core::g_engine_mutex);
// A synchronous call that uses the legacy stream of `device` (a synchronous copy or
// memset) without a StreamRef at hand: 906 next to a blocking capture.
CUresult legacy_use(int device) MOCKDEV_REQUIRES(core::g_engine_mutex);
// cuEventRecord(event, s): on a member the event becomes a captured event and *captured is
// set (the stream code records nothing); elsewhere any captured state of the event ends.
CUresult record_event(const void* event, const StreamRef& s, bool* captured)
    MOCKDEV_REQUIRES(core::g_engine_mutex);
// cuStreamWaitEvent(s, event): fork, join, merge and isolation. *handled is set when the
// capture engine answered the call (the stream code must not enqueue a wait).
// `event_recorded` says whether the event was ever recorded outside a capture.
CUresult wait_event(const StreamRef& s, const void* event, bool event_recorded, bool* handled)
    MOCKDEV_REQUIRES(core::g_engine_mutex);
// cuStreamSynchronize / cuStreamQuery / cuStreamAddCallback on `s`.
CUresult host_wait_on_stream(const StreamRef& s) MOCKDEV_REQUIRES(core::g_engine_mutex);
// cuEventQuery / cuEventSynchronize (and the event side of cuEventElapsedTime).
CUresult host_wait_on_event(const void* event) MOCKDEV_REQUIRES(core::g_engine_mutex);
void event_destroyed(const void* event) MOCKDEV_REQUIRES(core::g_engine_mutex);
// The primary context of `device` was released to zero and its streams died: every
// sequence begun there ends (its graph freed), and streams of that device leave other
// sequences, so no capture outlives the streams it would need to end.
void device_streams_killed(int device) MOCKDEV_REQUIRES(core::g_engine_mutex);
// cuStreamDestroy of a member: it leaves the sequence (0); of the origin: 900 and the
// sequence is invalidated, the stream staying alive so End can still end it.
CUresult stream_destroyed(const StreamRef& s) MOCKDEV_REQUIRES(core::g_engine_mutex);
// Whether `event` stands for nodes of an ongoing capture.
bool is_captured_event(const void* event) MOCKDEV_REQUIRES(core::g_engine_mutex);
// cuCtxSynchronize of `ctx`: 900 when a stream of that context is a member of a sequence
// (those sequences are invalidated), else 0.
CUresult host_wait_on_context(const void* ctx) MOCKDEV_REQUIRES(core::g_engine_mutex);

// ---- the gate (driver_entry.cpp, step 4b of Note [Driver call order]) ----------------
// For an entry point without kLegalInCapture: 900 when a capture prohibits it (and those
// captures are invalidated), else nullopt.
std::optional<CUresult> unsafe_call_gate() MOCKDEV_REQUIRES(core::g_engine_mutex);

// ---- inspection --------------------------------------------------------------------------
CUstreamCaptureStatus status_of(const void* stream_key) MOCKDEV_REQUIRES(core::g_engine_mutex);
// Whether any sequence is ongoing on `device` (active or invalidated).
bool any_capture_on(int device) MOCKDEV_REQUIRES(core::g_engine_mutex);
CUstreamCaptureMode thread_mode() MOCKDEV_REQUIRES(core::g_engine_mutex);
control::CaptureRules& rules() MOCKDEV_REQUIRES(core::g_engine_mutex);
std::size_t ongoing_sequences() MOCKDEV_REQUIRES(core::g_engine_mutex);

}  // namespace mockdev::cuda::capture
