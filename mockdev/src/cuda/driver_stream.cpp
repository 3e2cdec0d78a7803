// Stream entry points of the simulated driver (declared in driver_api.h) over the stream
// objects and the core timeline (stream_objects.h).

#include <algorithm>
#include <string>

#include "core/engine.h"
#include "core/timeline.h"
#include "cuda/capture_streams.h"
#include "cuda/driver_api.h"
#include "cuda/driver_call.h"
#include "cuda/stream_objects.h"

namespace mockdev::cuda::impl {
namespace {

const StreamSettings& stream_settings() MOCKDEV_REQUIRES(core::g_engine_mutex) {
  return core::engine().machine.streams;
}

CUresult create_stream(CUstream* stream, unsigned int flags, int priority)
    MOCKDEV_REQUIRES(core::g_engine_mutex) {
  if (stream == nullptr) return CUDA_ERROR_INVALID_VALUE;
  // Flags other than CU_STREAM_NON_BLOCKING: 1 (recorded on the H200 for 0x4).
  if ((flags & ~static_cast<unsigned>(CU_STREAM_NON_BLOCKING)) != 0)
    return CUDA_ERROR_INVALID_VALUE;
  const WorkContext current = context_for_work();
  if (current.ctx == nullptr) return current.error;
  if (auto sticky = sticky_error(current.ctx->physical_device)) return *sticky;
  // Out of range: clamped silently (recorded on the H200: -100 reads -5, 100 reads 0).
  const StreamSettings& s = stream_settings();
  const int clamped = std::clamp(priority, s.greatest_priority, s.least_priority);
  // The label names the stream id the registry hands out next (stream_objects.cpp).
  const unsigned long long id = stream_registry().next_stream_id;
  std::string label =
      "dev" + std::to_string(current.ctx->physical_device) + "/stream " + std::to_string(id);
  if (clamped != 0 || flags != 0) {
    label += " (";
    if (clamped != 0) label += "prio " + std::to_string(clamped);
    if (clamped != 0 && flags != 0) label += ", ";
    if (flags != 0) label += "non-blocking";
    label += ")";
  }
  CUstream_st* created =
      new_stream(current.ctx, CUstream_st::Kind::kCreated, flags, clamped, std::move(label));
  *stream = created;
  return CUDA_SUCCESS;
}

// What cuStreamQuery and cuStreamSynchronize both do before looking at the work: resolve
// the handle, apply the capture rules (a capturing stream: 900; the legacy stream next to a
// blocking capture: 906; both invalidate, Note [Capture rules]) and the sticky errors, then
// name the operations the stream stands for.
struct StreamWait {
  CUresult error = CUDA_SUCCESS;
  std::vector<core::OpId> ops;
};
StreamWait begin_stream_wait(CUstream stream) MOCKDEV_REQUIRES(core::g_engine_mutex) {
  const ResolvedStream r = resolve_stream(stream);
  if (r.stream == nullptr) return {r.error, {}};
  if (CUresult rc = capture::host_wait_on_stream(capture::ref_of(r.stream)); rc != CUDA_SUCCESS)
    return {rc, {}};
  if (auto sticky = sticky_error(r.stream->ctx->physical_device)) return {*sticky, {}};
  return {CUDA_SUCCESS, stream_targets(r.stream)};
}

}  // namespace

CUresult cuCtxGetStreamPriorityRange(int* least_priority, int* greatest_priority) {
  const WorkContext current = context_for_work();
  if (current.ctx == nullptr) return current.error;
  // Either pointer may be NULL (CUDA Driver API, cuCtxGetStreamPriorityRange).
  const StreamSettings& s = stream_settings();
  if (least_priority != nullptr) *least_priority = s.least_priority;
  if (greatest_priority != nullptr) *greatest_priority = s.greatest_priority;
  return CUDA_SUCCESS;
}

CUresult cuStreamCreate(CUstream* stream, unsigned int flags) {
  return create_stream(stream, flags, 0);
}

CUresult cuStreamCreateWithPriority(CUstream* stream, unsigned int flags, int priority) {
  return create_stream(stream, flags, priority);
}

CUresult cuStreamGetPriority(CUstream stream, int* priority) {
  if (priority == nullptr) return CUDA_ERROR_INVALID_VALUE;
  const ResolvedStream r = resolve_stream(stream);
  if (r.stream == nullptr) return r.error;
  *priority = r.stream->priority;
  return CUDA_SUCCESS;
}

CUresult cuStreamGetFlags(CUstream stream, unsigned int* flags) {
  if (flags == nullptr) return CUDA_ERROR_INVALID_VALUE;
  const ResolvedStream r = resolve_stream(stream);
  if (r.stream == nullptr) return r.error;
  *flags = r.stream->flags;
  return CUDA_SUCCESS;
}

CUresult cuStreamGetId(CUstream stream, unsigned long long* stream_id) {
  if (stream_id == nullptr) return CUDA_ERROR_INVALID_VALUE;
  const ResolvedStream r = resolve_stream(stream);
  if (r.stream == nullptr) return r.error;
  *stream_id = r.stream->id;
  return CUDA_SUCCESS;
}

CUresult cuStreamGetCtx(CUstream stream, CUcontext* ctx) {
  if (ctx == nullptr) return CUDA_ERROR_INVALID_VALUE;
  const ResolvedStream r = resolve_stream(stream);
  if (r.stream == nullptr) return r.error;
  *ctx = r.stream->ctx;
  return CUDA_SUCCESS;
}

// Destroying a special handle (0, CU_STREAM_LEGACY, CU_STREAM_PER_THREAD) is refused with
// CUDA_ERROR_INVALID_HANDLE (Recording 2); the pending work of a
// destroyed stream still runs, and the handle is rejected from then on.
CUresult cuStreamDestroy_v2(CUstream stream) {
  const auto value = reinterpret_cast<std::uintptr_t>(stream);
  if (value == 0 || value == kStreamLegacy || value == kStreamPerThread) {
    return CUDA_ERROR_INVALID_HANDLE;
  }
  StreamRegistry& r = stream_registry();
  auto it = r.live_streams.find(stream);
  if (it == r.live_streams.end()) return CUDA_ERROR_INVALID_HANDLE;
  // Capture hook: a member of a capture stays (900, capture invalidated; Note [Capture rules]).
  if (CUresult rc = capture::stream_destroyed(capture::ref_of(stream)); rc != CUDA_SUCCESS)
    return rc;
  r.live_streams.erase(it);
  ContextStreams& cs = streams_of(stream->ctx);
  if (std::erase(cs.blocking, stream) != 0) cs.retired_blocking.push_back(stream->queue);
  core::destroy_queue(stream->queue);
  return CUDA_SUCCESS;
}

CUresult cuStreamQuery(CUstream stream) {
  const StreamWait w = begin_stream_wait(stream);
  if (w.error != CUDA_SUCCESS) return w.error;
  return core::query(w.ops) ? CUDA_SUCCESS : CUDA_ERROR_NOT_READY;
}

CUresult cuStreamSynchronize(CUstream stream) {
  const StreamWait w = begin_stream_wait(stream);
  if (w.error != CUDA_SUCCESS) return w.error;
  return host_wait(w.ops, "cuStreamSynchronize");
}

}  // namespace mockdev::cuda::impl
