// The CUDA driver's objects a program made and has not destroyed, for the leak report (Note
// [Leak report] in core/leak_report.h): device memory, page-locked and managed host memory,
// contexts made by cuCtxCreate, created streams and events. Primary contexts are the
// driver's own and are not listed; nor are the legacy and per-thread default streams.

#include <algorithm>
#include <string>

#include "core/live_object.h"
#include "core/memory.h"
#include "core/pinned_host.h"
#include "cuda/cuda_state.h"
#include "cuda/stream_objects.h"

namespace mockdev::cuda {
namespace {

// "device 1" by the CUdevice ordinal the program sees (the physical index when the device is
// not visible, which only a test's machine swap can cause).
std::string device_text(int physical) MOCKDEV_REQUIRES(core::g_engine_mutex) {
  const std::vector<int>& visible = cuda_state().visible;
  auto it = std::find(visible.begin(), visible.end(), physical);
  if (it == visible.end()) return "physical device " + std::to_string(physical);
  return "device " + std::to_string(it - visible.begin());
}

}  // namespace

// Named in registration.cpp's row.
void list_live_objects(core::LiveObjects& out) MOCKDEV_REQUIRES(core::g_engine_mutex) {
  for (const auto& [address, a] : core::live_allocations(Api::kCuda)) {
    out.push_back({"CUDA device memory", device_text(a.device), a.bytes, a.caller});
  }
  for (const core::PinnedRange& r : core::pinned_ranges(Api::kCuda)) {
    const char* kind = r.managed     ? "CUDA managed memory"
                       : r.allocated ? "CUDA page-locked host memory"
                                     : "CUDA registered host memory";
    out.push_back({kind, "", r.bytes, r.caller});
  }
  for (const CUctx_st* ctx : cuda_state().created) {
    out.push_back(
        {"CUDA context (cuCtxCreate)", "device " + std::to_string(ctx->ordinal), 0, ctx->caller});
  }
  const StreamRegistry& r = stream_registry();
  for (const CUstream_st* s : r.live_streams) {
    if (s->kind != CUstream_st::Kind::kCreated) continue;
    out.push_back({"CUDA stream", "device " + std::to_string(s->ctx->ordinal), 0, s->caller});
  }
  for (const CUevent_st* e : r.live_events) {
    out.push_back({"CUDA event", "device " + std::to_string(e->ctx->ordinal), 0, e->caller});
  }
}

}  // namespace mockdev::cuda
