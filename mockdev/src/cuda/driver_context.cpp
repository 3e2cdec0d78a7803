// Primary contexts and the per-thread context stack of the simulated driver (declared in
// driver_api.h). Created contexts are driver_context_create.cpp's; the current context's
// flags, limits and configuration driver_context_settings.cpp's.
//
// Note [Primary contexts]
// Each device has one primary context object, created at its first retain (or at the first
// cuDevicePrimaryCtxSetFlags, which gives it its flags before it is active) and kept (never
// freed) until the next machine, so its handle stays the same across release and retain, as
// the driver's does. Released to a count of zero it is inactive: its streams, events,
// modules and allocations are gone, as destroying a context frees them, and a thread whose
// current context it is gets CUDA_ERROR_CONTEXT_IS_DESTROYED from calls that need one
// (recorded on real hardware, docs/HARDWARE.md). Becoming active takes the device's context
// reserve from free memory (CUDA_ERROR_OUT_OF_MEMORY when it does not fit, and the retain
// does not happen); becoming inactive frees its cuMemAlloc allocations and the physical
// memory created on the device with cuMemCreate (mappings included), and gives the reserve
// back (Note [Allocation granularity] in core/memory.h). A handle is valid only if it is in
// the registry of live contexts; a pointer the engine never handed out is never
// dereferenced.
//
// cuDevicePrimaryCtxReset ends an active primary context the same way, whatever its retain
// count, and puts its flags and settings back to the defaults. cuda.h: "Resetting the
// primary context does not release it ... it is safe for other modules to call
// cuDevicePrimaryCtxRelease() even after resetting the device": the retains the reset ended
// are remembered (CUctx_st::released_by_reset), and as many releases after it succeed
// without effect. [inferred] After a reset the context is inactive (cuDevicePrimaryCtxGetState
// answers 0) until the next retain.
//
// Note [Context stack]
// CUDA Driver API, "Context Management": each thread has a stack of contexts whose top is
// its current context. cuCtxPushCurrent pushes, cuCtxPopCurrent pops (CUDA_ERROR_INVALID_CONTEXT
// on an empty stack), cuCtxSetCurrent replaces the top (pushes onto an empty stack, and
// NULL pops, a no-op on an empty stack), cuCtxCreate pushes the new context, and
// cuCtxDestroy pops the context it destroys when it is the caller's current one.
// cuDevicePrimaryCtxRetain and Release never touch a stack. A context destroyed while
// current to other threads stays current there (CUDA_ERROR_CONTEXT_IS_DESTROYED).
// Pushing or setting a destroyed context succeeds (Recording 2, docs/HARDWARE.md): it becomes
// current as a destroyed one, and calls through it answer CUDA_ERROR_CONTEXT_IS_DESTROYED.
// [inferred] Pushing NULL is CUDA_ERROR_INVALID_VALUE, pushing or setting a handle no
// driver made CUDA_ERROR_INVALID_CONTEXT; popping with a NULL output pops without writing.

#include "core/engine.h"
#include "core/memory.h"
#include "cuda/capture.h"
#include "cuda/contexts.h"
#include "cuda/cuda_state.h"
#include "cuda/device_attributes.h"
#include "cuda/driver_api.h"
#include "cuda/driver_call.h"
#include "cuda/stream_objects.h"
#include "cuda/unlocked_entry.h"

namespace mockdev::cuda {

bool valid_context_flags(unsigned flags) {
  if ((flags & ~static_cast<unsigned>(CU_CTX_FLAGS_MASK)) != 0) return false;
  const unsigned sched = flags & CU_CTX_SCHED_MASK;
  return sched == CU_CTX_SCHED_AUTO || sched == CU_CTX_SCHED_SPIN || sched == CU_CTX_SCHED_YIELD ||
         sched == CU_CTX_SCHED_BLOCKING_SYNC;
}

bool compute_prohibited(int physical) {
  constexpr int kComputeModeProhibited = 2;  // cuda.h's CU_COMPUTEMODE_PROHIBITED
  const DeviceSpec& spec = core::engine().machine.devices.at(static_cast<std::size_t>(physical));
  return device_attribute_value(spec, physical, CU_DEVICE_ATTRIBUTE_COMPUTE_MODE) ==
         kComputeModeProhibited;
}

WorkContext named_or_current(CUctx_st* ctx) {
  if (ctx == nullptr) return context_for_work();
  if (!is_registered(ctx)) return {nullptr, CUDA_ERROR_INVALID_CONTEXT};
  if (ctx->refcount == 0) return {nullptr, CUDA_ERROR_CONTEXT_IS_DESTROYED};
  return {ctx, CUDA_SUCCESS};
}

namespace {

// cuCtxSynchronize's work on `ctx`: the sticky error, the capture rule, then a host wait
// for all work of the context, non-blocking and destroyed streams included.
CUresult synchronize_context(CUctx_st* ctx) MOCKDEV_REQUIRES(core::g_engine_mutex) {
  if (auto sticky = sticky_error(ctx->physical_device)) return *sticky;
  // A capturing stream of the context cannot be waited for (Note [Capture rules]).
  if (CUresult rc = capture::host_wait_on_context(ctx); rc != CUDA_SUCCESS) return rc;
  const std::vector<core::OpId> ops = context_targets(ctx);
  return host_wait(ops, "cuCtxSynchronize");
}

}  // namespace

CUctx_st* primary_object(int physical, CUdevice dev) {
  CUctx_st*& primary = cuda_state().primary[static_cast<std::size_t>(physical)];
  if (primary == nullptr) primary = new_context(physical, dev, true);
  return primary;
}

void end_context(CUctx_st* ctx) {
  // Its streams and events die with it and their pending work is cancelled (Note
  // [Deadlocks] in core/timeline.h), its modules are unloaded; then its memory and reserve
  // are freed. A primary context also takes its device's peer mappings with it.
  kill_context_streams(ctx);
  drop_context_modules(ctx);
  if (ctx->primary) {
    core::release_context_memory(Api::kCuda, ctx->physical_device);
    drop_peer_access(ctx->physical_device);
  } else {
    core::release_other_context_memory(Api::kCuda, ctx->physical_device, memory_key(ctx));
  }
  ctx->refcount = 0;
}

namespace impl {

CUresult cuDevicePrimaryCtxRetain(CUcontext* ctx, CUdevice dev) {
  if (ctx == nullptr) return CUDA_ERROR_INVALID_VALUE;
  std::optional<int> p = physical_device(dev);
  if (!p) return CUDA_ERROR_INVALID_DEVICE;
  CUctx_st* primary = primary_object(*p, dev);
  if (primary->refcount == 0) {
    if (compute_prohibited(*p)) return CUDA_ERROR_UNKNOWN;
    if (!core::take_context_reserve(*p)) return CUDA_ERROR_OUT_OF_MEMORY;
  }
  ++primary->refcount;
  *ctx = primary;
  return CUDA_SUCCESS;
}

CUresult cuDevicePrimaryCtxRelease_v2(CUdevice dev) {
  std::optional<int> p = physical_device(dev);
  if (!p) return CUDA_ERROR_INVALID_DEVICE;
  CUctx_st* primary = cuda_state().primary[static_cast<std::size_t>(*p)];
  if (primary == nullptr) return CUDA_ERROR_INVALID_CONTEXT;
  if (primary->refcount == 0) {
    if (primary->released_by_reset == 0) return CUDA_ERROR_INVALID_CONTEXT;
    --primary->released_by_reset;  // Note [Primary contexts]: a retain the reset ended
    return CUDA_SUCCESS;
  }
  if (--primary->refcount == 0) end_context(primary);
  return CUDA_SUCCESS;
}

CUresult cuDevicePrimaryCtxReset_v2(CUdevice dev) {
  std::optional<int> p = physical_device(dev);
  if (!p) return CUDA_ERROR_INVALID_DEVICE;
  CUctx_st* primary = cuda_state().primary[static_cast<std::size_t>(*p)];
  if (primary == nullptr) return CUDA_SUCCESS;
  if (primary->refcount > 0) {
    primary->released_by_reset += primary->refcount;
    end_context(primary);
  }
  primary->flags = 0;
  primary->settings = default_context_settings(*p);
  return CUDA_SUCCESS;
}

CUresult cuDevicePrimaryCtxGetState(CUdevice dev, unsigned int* flags, int* active) {
  if (flags == nullptr || active == nullptr) return CUDA_ERROR_INVALID_VALUE;
  std::optional<int> p = physical_device(dev);
  if (!p) return CUDA_ERROR_INVALID_DEVICE;
  const CUctx_st* primary = cuda_state().primary[static_cast<std::size_t>(*p)];
  *flags = primary != nullptr ? primary->flags : 0;
  *active = (primary != nullptr && primary->refcount > 0) ? 1 : 0;
  return CUDA_SUCCESS;
}

// cuda.h lists no CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE for the _v2 form (the v1 form had it):
// the flags may change while the context is active.
CUresult cuDevicePrimaryCtxSetFlags_v2(CUdevice dev, unsigned int flags) {
  std::optional<int> p = physical_device(dev);
  if (!p) return CUDA_ERROR_INVALID_DEVICE;
  if (!valid_context_flags(flags)) return CUDA_ERROR_INVALID_VALUE;
  primary_object(*p, dev)->flags = flags;
  return CUDA_SUCCESS;
}

CUresult cuCtxSetCurrent(CUcontext ctx) {
  if (ctx != nullptr && !is_registered(ctx)) return CUDA_ERROR_INVALID_CONTEXT;
  set_current_context(ctx);
  return CUDA_SUCCESS;
}

CUresult cuCtxGetCurrent(CUcontext* ctx) {
  if (ctx == nullptr) return CUDA_ERROR_INVALID_VALUE;
  *ctx = current_context();
  return CUDA_SUCCESS;
}

CUresult cuCtxPushCurrent_v2(CUcontext ctx) {
  if (ctx == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (!is_registered(ctx)) return CUDA_ERROR_INVALID_CONTEXT;
  push_context(ctx);
  return CUDA_SUCCESS;
}

CUresult cuCtxPopCurrent_v2(CUcontext* pctx) {
  CUctx_st* popped = pop_context();
  if (popped == nullptr) return CUDA_ERROR_INVALID_CONTEXT;
  if (pctx != nullptr) *pctx = popped;
  return CUDA_SUCCESS;
}

CUresult cuCtxGetDevice(CUdevice* device) {
  if (device == nullptr) return CUDA_ERROR_INVALID_VALUE;
  CUctx_st* ctx = active_current_context();
  if (ctx == nullptr) return CUDA_ERROR_INVALID_CONTEXT;
  *device = ctx->ordinal;
  return CUDA_SUCCESS;
}

// CUDA 13: the named context's device, NULL naming the current one (cuda.h).
CUresult cuCtxGetDevice_v2(CUdevice* device, CUcontext ctx) {
  if (ctx == nullptr) return cuCtxGetDevice(device);
  if (device == nullptr) return CUDA_ERROR_INVALID_VALUE;
  const WorkContext named = named_or_current(ctx);
  if (named.ctx == nullptr) return named.error;
  *device = named.ctx->ordinal;
  return CUDA_SUCCESS;
}

CUresult cuCtxSynchronize() {
  const WorkContext current = context_for_work();
  if (current.ctx == nullptr) return current.error;
  return synchronize_context(current.ctx);
}

// CUDA 13: synchronises the named context, NULL naming the current one (cuda.h).
CUresult cuCtxSynchronize_v2(CUcontext ctx) {
  const WorkContext named = named_or_current(ctx);
  if (named.ctx == nullptr) return named.error;
  return synchronize_context(named.ctx);
}

}  // namespace impl

// cuCtxGetCurrent's answer without the lock (Note [Unlocked answers] in core/engine.h): what
// impl::cuCtxGetCurrent answers, counted as enter() counts it. A null argument, or a call the
// gate refuses, takes the lock and gets the locked call's code. The count is used only once
// a locked call has found it.
std::optional<CUresult> UnlockedAnswer<Entry::cuCtxGetCurrent>::answer(CUcontext* ctx) noexcept {
  if (ctx == nullptr) return std::nullopt;
  std::atomic<std::uint64_t>* count =
      call_counter(Entry::cuCtxGetCurrent).count.load(std::memory_order_acquire);
  if (count == nullptr) return std::nullopt;
  const std::optional<CUctx_st*> current = unlocked_current_context();
  if (!current) return std::nullopt;
  count->fetch_add(1, std::memory_order_relaxed);
  *ctx = *current;
  return CUDA_SUCCESS;
}

}  // namespace mockdev::cuda
