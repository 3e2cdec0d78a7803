// Events of the simulated driver (declared in driver_api.h): a record is a snapshot of its
// stream (CUDA Driver API, cuEventRecord), an operation on the timeline whose completion
// stands for the event's; waits hold the snapshot's operation, never the event object, so
// destroying or re-recording an event never changes a wait already made.

#include "core/engine.h"
#include "core/keep_forever.h"
#include "core/race_call_site.h"
#include "core/timeline.h"
#include "cuda/capture_streams.h"
#include "cuda/driver_api.h"
#include "cuda/driver_call.h"
#include "cuda/stream_objects.h"
namespace mockdev::cuda::impl {
namespace {

constexpr unsigned kEventFlags =
    CU_EVENT_BLOCKING_SYNC | CU_EVENT_DISABLE_TIMING | CU_EVENT_INTERPROCESS;

CUresult record(CUevent event, CUstream stream, const char* name)
    MOCKDEV_REQUIRES(core::g_engine_mutex) {
  if (!is_live_event(event)) return CUDA_ERROR_INVALID_HANDLE;  // NULL too (recorded: 400)
  const ResolvedStream r = resolve_stream(stream);
  if (r.stream == nullptr) return r.error;
  // Event and stream must share a context (CUDA Programming Guide, stream and event
  // behavior).
  if (r.stream->ctx != event->ctx) return CUDA_ERROR_INVALID_HANDLE;
  if (auto sticky = sticky_error(event->ctx->physical_device)) return *sticky;
  // Capture hook: on a capturing stream the event becomes a captured event and nothing is
  // enqueued (Note [Capture rules]).
  bool captured = false;
  if (CUresult rc = capture::record_event(event, capture::ref_of(r.stream), &captured);
      rc != CUDA_SUCCESS || captured)
    return rc;
  core::OpDesc desc;
  desc.kind = core::OpKind::kEventRecord;
  desc.name = name;
  const core::OpId previous = event->record;
  const Submitted s = submit(r.stream, std::move(desc));
  if (s.code != CUDA_SUCCESS) return s.code;
  // The event object is never freed, so this write is safe even if another thread
  // destroyed the event while submit ran a host function with the lock released.
  event->record = s.op;
  core::keep_end_time(s.op);
  if (previous != 0) core::forget_end_time(previous);
  return CUDA_SUCCESS;
}

// The EXTERNAL record and wait flags on `stream` (resolved): CUDA_ERROR_ILLEGAL_STATE outside
// capture (Recording 2), CUDA_ERROR_NOT_SUPPORTED during one [inferred: external event
// nodes are not modelled].
CUresult external_flag_answer(const CUstream_st* stream) MOCKDEV_REQUIRES(core::g_engine_mutex) {
  return capture::status_of(capture::ref_of(stream).key) == CU_STREAM_CAPTURE_STATUS_NONE
             ? CUDA_ERROR_ILLEGAL_STATE
             : CUDA_ERROR_NOT_SUPPORTED;
}

}  // namespace

// Recorded on the H200: flag 0x10 -> 1, INTERPROCESS without DISABLE_TIMING -> 1.
CUresult cuEventCreate(CUevent* event, unsigned int flags) {
  if (event == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if ((flags & ~kEventFlags) != 0) return CUDA_ERROR_INVALID_VALUE;
  if ((flags & CU_EVENT_INTERPROCESS) != 0 && (flags & CU_EVENT_DISABLE_TIMING) == 0) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  const WorkContext current = context_for_work();
  if (current.ctx == nullptr) return current.error;
  auto* created = new CUevent_st{current.ctx, flags, 0, core::current_caller()};  // never freed
  core::keep_forever(created);
  StreamRegistry& r = stream_registry();
  r.live_events.insert(created);
  streams_of(current.ctx).events.push_back(created);
  *event = created;
  return CUDA_SUCCESS;
}

CUresult cuEventRecord(CUevent event, CUstream stream) {
  return record(event, stream, "cuEventRecord");
}

// CU_EVENT_RECORD_EXTERNAL makes an event-record node during capture only (cuda.h); outside
// capture it is CUDA_ERROR_ILLEGAL_STATE (Recording 2). [inferred] During capture it is
// CUDA_ERROR_NOT_SUPPORTED: external event nodes are not modelled. Unknown flags are
// CUDA_ERROR_INVALID_VALUE.
CUresult cuEventRecordWithFlags(CUevent event, CUstream stream, unsigned int flags) {
  if (flags != CU_EVENT_RECORD_DEFAULT) {
    if (!is_live_event(event)) return CUDA_ERROR_INVALID_HANDLE;
    if (flags != CU_EVENT_RECORD_EXTERNAL) return CUDA_ERROR_INVALID_VALUE;
    const ResolvedStream r = resolve_stream(stream);
    if (r.stream == nullptr) return r.error;
    return external_flag_answer(r.stream);
  }
  return record(event, stream, "cuEventRecordWithFlags");
}

// Recorded: a never-recorded event is complete (0); a pending one answers 600.
CUresult cuEventQuery(CUevent event) {
  if (!is_live_event(event)) return CUDA_ERROR_INVALID_HANDLE;
  // Capture hook: an event recorded in a capture answers 900 (Note [Capture rules]).
  if (CUresult rc = capture::host_wait_on_event(event); rc != CUDA_SUCCESS) return rc;
  if (auto sticky = sticky_error(event->ctx->physical_device)) return *sticky;
  if (event->record == 0) return CUDA_SUCCESS;
  const core::OpId ops[] = {event->record};
  return core::query(ops) ? CUDA_SUCCESS : CUDA_ERROR_NOT_READY;
}

CUresult cuEventSynchronize(CUevent event) {
  if (!is_live_event(event)) return CUDA_ERROR_INVALID_HANDLE;
  // Capture hook: an event recorded in a capture answers 900 (Note [Capture rules]).
  if (CUresult rc = capture::host_wait_on_event(event); rc != CUDA_SUCCESS) return rc;
  if (auto sticky = sticky_error(event->ctx->physical_device)) return *sticky;
  if (event->record == 0) return CUDA_SUCCESS;
  const core::OpId ops[] = {event->record};
  return host_wait(ops, "cuEventSynchronize");
}

// Never cancels a wait already made (recorded on the H200): waits hold the record's op.
CUresult cuEventDestroy_v2(CUevent event) {
  if (!is_live_event(event)) return CUDA_ERROR_INVALID_HANDLE;
  StreamRegistry& r = stream_registry();
  r.live_events.erase(event);
  capture::event_destroyed(event);  // capture hook
  std::erase(streams_of(event->ctx).events, event);
  if (event->record != 0) core::forget_end_time(event->record);
  return CUDA_SUCCESS;
}

// Recorded on the H200: never recorded -> 400, DISABLE_TIMING -> 400, end pending -> 600,
// reversed -> a negative time. Events of different contexts -> 400 (Recording 2, two
// contexts of one device; [inferred] of two devices). Virtual milliseconds (core/timeline.h, Note
// [Virtual time]).
CUresult cuEventElapsedTime_v2(float* milliseconds, CUevent start, CUevent end) {
  if (milliseconds == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (!is_live_event(start) || !is_live_event(end)) return CUDA_ERROR_INVALID_HANDLE;
  // Capture hook: a captured event is no timing point (Note [Capture rules]).
  for (const CUevent_st* e : {start, end}) {
    if (capture::is_captured_event(e)) return CUDA_ERROR_INVALID_VALUE;
  }
  if (start->record == 0 || end->record == 0) return CUDA_ERROR_INVALID_HANDLE;
  if (((start->flags | end->flags) & CU_EVENT_DISABLE_TIMING) != 0) {
    return CUDA_ERROR_INVALID_HANDLE;
  }
  if (start->ctx != end->ctx) return CUDA_ERROR_INVALID_HANDLE;
  const core::OpId a = start->record;
  const core::OpId b = end->record;
  core::progress_point();  // may release the lock: only op ids are used after it
  if (!core::is_complete(a) || !core::is_complete(b)) return CUDA_ERROR_NOT_READY;
  const double ns = static_cast<double>(core::end_time(b)) - static_cast<double>(core::end_time(a));
  *milliseconds = static_cast<float>(ns / 1e6);
  return CUDA_SUCCESS;
}

// Recorded on the H200: NULL event -> 400, flag 0x10 -> 1, never recorded -> 0 (nothing to
// wait for). CU_EVENT_WAIT_EXTERNAL outside capture -> 401 (Recording 2); [inferred] during
// capture CUDA_ERROR_NOT_SUPPORTED (external wait nodes are not modelled).
CUresult cuStreamWaitEvent(CUstream stream, CUevent event, unsigned int flags) {
  if (event == nullptr) return CUDA_ERROR_INVALID_HANDLE;
  if (flags != CU_EVENT_WAIT_DEFAULT && flags != CU_EVENT_WAIT_EXTERNAL) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  if (!is_live_event(event)) return CUDA_ERROR_INVALID_HANDLE;
  const ResolvedStream r = resolve_stream(stream);
  if (r.stream == nullptr) return r.error;
  if (flags == CU_EVENT_WAIT_EXTERNAL) return external_flag_answer(r.stream);
  if (auto sticky = sticky_error(r.stream->ctx->physical_device)) return *sticky;
  // Capture hook: fork, join, merge (902) and isolation (905) (Note [Capture rules]).
  bool handled = false;
  if (CUresult rc = capture::wait_event(capture::ref_of(r.stream), event, event->record != 0,
                                        &handled);
      rc != CUDA_SUCCESS || handled)
    return rc;
  const core::OpId recorded = event->record;
  if (recorded == 0) return CUDA_SUCCESS;
  core::OpDesc desc;
  desc.kind = core::OpKind::kEventWait;
  desc.name = "cuStreamWaitEvent";
  desc.event_record = recorded;  // on_event_flow, told right after the wait's on_enqueue
  const core::OpId extra[] = {recorded};
  const Submitted s = submit(r.stream, std::move(desc), extra);
  if (s.code != CUDA_SUCCESS) return s.code;
  return CUDA_SUCCESS;
}

}  // namespace mockdev::cuda::impl
