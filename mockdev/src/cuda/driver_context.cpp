// Primary contexts and the per-thread current context of the simulated driver (declared
// in driver_api.h).
//
// Note [Primary contexts]
// Each device has one primary context object, created at its first retain and kept (never
// freed) until the next reset, so its handle stays the same across release and retain, as
// the driver's does. Released to a count of zero it is inactive: its allocations are
// freed, as destroying a context frees its memory, and a thread whose current context it
// is gets CUDA_ERROR_INVALID_CONTEXT from calls that need one. Becoming active takes the
// device's context reserve from free memory (CUDA_ERROR_OUT_OF_MEMORY when it does not fit,
// and the retain does not happen); becoming inactive frees its cuMemAlloc allocations and
// the physical memory it created with cuMemCreate (mappings included), and gives the
// reserve back (Note [Allocation granularity] in core/memory.h). A handle is valid only if it
// is in the registry of live contexts; a pointer the engine never handed out is never
// dereferenced.

#include "core/keep_forever.h"
#include "core/memory.h"
#include "cuda/cuda_state.h"
#include "cuda/driver_api.h"
#include "cuda/driver_call.h"
#include "cuda/stream_objects.h"
namespace mockdev::cuda::impl {

CUresult cuDevicePrimaryCtxRetain(CUcontext* ctx, CUdevice dev) {
  if (ctx == nullptr) return CUDA_ERROR_INVALID_VALUE;
  std::optional<int> p = physical_device(dev);
  if (!p) return CUDA_ERROR_INVALID_DEVICE;
  CudaState& s = cuda_state();
  CUctx_st*& primary = s.primary[static_cast<std::size_t>(*p)];
  if ((primary == nullptr || primary->refcount == 0) && !core::take_context_reserve(*p)) {
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
  if (primary == nullptr) {
    primary = new CUctx_st{*p, dev, 0};  // Note [Primary contexts]: never freed
    core::keep_forever(primary);
    s.live_contexts.insert(primary);
  }
  ++primary->refcount;
  *ctx = primary;
  return CUDA_SUCCESS;
}

CUresult cuDevicePrimaryCtxRelease_v2(CUdevice dev) {
  std::optional<int> p = physical_device(dev);
  if (!p) return CUDA_ERROR_INVALID_DEVICE;
  CUctx_st* primary = cuda_state().primary[static_cast<std::size_t>(*p)];
  if (primary == nullptr || primary->refcount == 0) return CUDA_ERROR_INVALID_CONTEXT;
  if (--primary->refcount == 0) {
    // Its streams and events die with it and their pending work is cancelled (Note
    // [Deadlocks] in core/timeline.h); then its memory and reserve are freed, and it keeps
    // no peer mappings either way.
    kill_context_streams(primary);
    core::release_context_memory(Api::kCuda, *p);
    drop_peer_access(*p);
  }
  return CUDA_SUCCESS;
}

CUresult cuDevicePrimaryCtxGetState(CUdevice dev, unsigned int* flags, int* active) {
  if (flags == nullptr || active == nullptr) return CUDA_ERROR_INVALID_VALUE;
  std::optional<int> p = physical_device(dev);
  if (!p) return CUDA_ERROR_INVALID_DEVICE;
  const CUctx_st* primary = cuda_state().primary[static_cast<std::size_t>(*p)];
  *flags = 0;
  *active = (primary != nullptr && primary->refcount > 0) ? 1 : 0;
  return CUDA_SUCCESS;
}

CUresult cuCtxSetCurrent(CUcontext ctx) {
  if (ctx != nullptr && (!is_registered(ctx) || ctx->refcount == 0)) {
    return CUDA_ERROR_INVALID_CONTEXT;
  }
  set_current_context(ctx);
  return CUDA_SUCCESS;
}

CUresult cuCtxGetCurrent(CUcontext* ctx) {
  if (ctx == nullptr) return CUDA_ERROR_INVALID_VALUE;
  *ctx = current_context();
  return CUDA_SUCCESS;
}

CUresult cuCtxGetDevice(CUdevice* device) {
  if (device == nullptr) return CUDA_ERROR_INVALID_VALUE;
  CUctx_st* ctx = active_current_context();
  if (ctx == nullptr) return CUDA_ERROR_INVALID_CONTEXT;
  *device = ctx->ordinal;
  return CUDA_SUCCESS;
}

CUresult cuCtxSynchronize() {
  const WorkContext current = context_for_work();
  if (current.ctx == nullptr) return current.error;
  CUctx_st* ctx = current.ctx;
  if (auto sticky = sticky_error(ctx->physical_device)) return *sticky;
  // Waits for all work of the context, non-blocking and destroyed streams included.
  const std::vector<core::OpId> ops = context_targets(ctx);
  return host_wait(ops, "cuCtxSynchronize");
}

}  // namespace mockdev::cuda::impl
