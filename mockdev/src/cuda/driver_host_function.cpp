// Host functions in streams (declared in driver_api.h): cuLaunchHostFunc and
// cuStreamAddCallback, run by the timeline at their virtual completion with the engine lock
// released, on the thread whose driver call made them due (Note [Host functions] in
// core/timeline.h). A driver call from inside one returns CUDA_ERROR_NOT_PERMITTED
// (driver_call.cpp): the spec allows it for cuLaunchHostFunc and requires it for
// cuStreamAddCallback, and refusing is what keeps a host function from waiting on the
// engine that runs it.

#include "core/engine.h"
#include "core/host_accesses.h"
#include "cuda/capture_streams.h"
#include "cuda/driver_api.h"
#include "cuda/driver_call.h"
#include "cuda/stream_objects.h"

namespace mockdev::cuda::impl {
namespace {

void call_host_fn(std::uintptr_t fn, std::uintptr_t user_data, std::uintptr_t) {
  reinterpret_cast<CUhostFn>(fn)(reinterpret_cast<void*>(user_data));
}

void call_callback(std::uintptr_t fn, std::uintptr_t stream, std::uintptr_t user_data) {
  reinterpret_cast<CUstreamCallback>(fn)(reinterpret_cast<CUstream>(stream), CUDA_SUCCESS,
                                         reinterpret_cast<void*>(user_data));
}

CUresult launch_host_call(CUstream handle, core::HostCallFn trampoline, std::uintptr_t fn,
                          std::uintptr_t a1, std::uintptr_t a2, void* user_data, const char* name)
    MOCKDEV_REQUIRES(core::g_engine_mutex) {
  const ResolvedStream r = resolve_stream(handle);
  if (r.stream == nullptr) return r.error;
  if (auto sticky = sticky_error(r.stream->ctx->physical_device)) return *sticky;
  core::OpDesc desc;
  desc.kind = core::OpKind::kHostFunction;
  desc.name = name;
  // Declared accesses of this user_data (mockdev/streams.h), so the race detector sees them.
  core::declared_accesses(user_data, desc.more_reads, desc.more_writes);
  desc.duration_ns = core::engine().machine.streams.timing.host_function_ns;
  desc.action.kind = core::ActionKind::kHostCall;
  desc.action.call = trampoline;
  desc.action.args[0] = fn;
  desc.action.args[1] = a1;
  desc.action.args[2] = a2;
  return submit(r.stream, std::move(desc)).code;
}

}  // namespace

CUresult cuLaunchHostFunc(CUstream stream, CUhostFn fn, void* user_data) {
  if (fn == nullptr) return CUDA_ERROR_INVALID_VALUE;
  return launch_host_call(stream, call_host_fn, reinterpret_cast<std::uintptr_t>(fn),
                          reinterpret_cast<std::uintptr_t>(user_data), 0, user_data,
                          "cuLaunchHostFunc");
}

// flags must be 0 (spec: reserved for future use).
CUresult cuStreamAddCallback(CUstream stream, CUstreamCallback callback, void* user_data,
                             unsigned int flags) {
  if (callback == nullptr || flags != 0) return CUDA_ERROR_INVALID_VALUE;
  // Capture hook: callbacks cannot be captured (900, capture invalidated; Note [Capture
  // rules]); cuLaunchHostFunc is captured as a node through the submit path.
  if (const ResolvedStream r = resolve_stream(stream); r.stream != nullptr) {
    if (CUresult rc = capture::host_wait_on_stream(capture::ref_of(r.stream)); rc != CUDA_SUCCESS)
      return rc;
  }
  return launch_host_call(stream, call_callback, reinterpret_cast<std::uintptr_t>(callback),
                          reinterpret_cast<std::uintptr_t>(stream),
                          reinterpret_cast<std::uintptr_t>(user_data), user_data,
                          "cuStreamAddCallback");
}

}  // namespace mockdev::cuda::impl
