// The parts of the control API only the CUDA driver has (mockdev/control.h: the pid gate and
// the primary contexts of live_objects(); mockdev/streams.h: cuda_stream_queue), over this
// adapter's state. Here rather than in control/, which stays vendor-neutral (Note [Vendor
// registry] in core/vendor_registry.h).

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>

#include "accel_abi/cuda_driver.h"
#include "core/engine.h"
#include "core/memory.h"
#include "cuda/cuda_state.h"
#include "cuda/stream_objects.h"
#include "mockdev/control.h"
#include "mockdev/streams.h"

namespace mockdev::control {

using core::EngineLock;

bool forked_after_init() {
  EngineLock lock;
  return cuda::in_forked_child();
}

LiveObjects live_objects() {
  EngineLock lock;
  LiveObjects live;
  const cuda::CudaState& s = cuda::cuda_state();
  for (std::size_t i = 0; i < s.primary.size(); ++i) {
    const auto* ctx = s.primary[i];
    if (ctx == nullptr || ctx->refcount == 0) continue;
    ++live.primary_contexts_active;
    live.descriptions.push_back("ctx dev=" + std::to_string(i) +
                                " refs=" + std::to_string(ctx->refcount));
  }
  // Contexts from cuCtxCreate not destroyed (Note [Created contexts]).
  for (const cuda::CUctx_st* ctx : s.created) {
    live.descriptions.push_back("ctx dev=" + std::to_string(ctx->physical_device) +
                                " created id=" + std::to_string(ctx->id));
  }
  // As used_bytes counts them: each allocation's own granules, and the granules small
  // allocations share (Note [Small allocations] in core/memory.h).
  for (const auto& [address, granule] : core::shared_granules()) {
    live.allocated_bytes += granule.bytes;
  }
  for (const auto& [address, allocation] : core::allocations()) {
    ++live.allocations;
    live.allocated_bytes += allocation.accounted_bytes;
    char line[96];
    std::snprintf(line, sizeof line, "alloc dev=%d ptr=0x%llx bytes=%llu", allocation.device,
                  static_cast<unsigned long long>(address),
                  static_cast<unsigned long long>(allocation.bytes));
    live.descriptions.emplace_back(line);
  }
  return live;
}

}  // namespace mockdev::control

namespace mockdev::streams {

using core::EngineLock;

std::optional<std::uint64_t> cuda_stream_queue(const void* stream) {
  EngineLock lock;
  const auto value = reinterpret_cast<std::uintptr_t>(stream);
  cuda::StreamRegistry& r = cuda::stream_registry();
  if (value == 0 || value == accel::cuda_abi::kStreamLegacy) {
    cuda::CUctx_st* ctx = cuda::active_current_context();
    if (ctx == nullptr) return std::nullopt;
    const cuda::CUstream_st* legacy = cuda::streams_of(ctx).legacy;
    if (legacy == nullptr) return std::nullopt;
    return legacy->queue;
  }
  auto it = r.live_streams.find(static_cast<const cuda::CUstream_st*>(stream));
  if (it == r.live_streams.end()) return std::nullopt;
  return (*it)->queue;
}

}  // namespace mockdev::streams
