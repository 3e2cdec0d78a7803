// Primary contexts, the per-thread current context and device memory of the simulated
// driver (declared in driver_api.h).
//
// Note [Primary contexts]
// Each device has one primary context object, created at its first retain and kept (never
// freed) until the next reset, so its handle stays the same across release and retain, as
// the driver's does. Released to a count of zero it is inactive: its allocations are
// freed, as destroying a context frees its memory, and a thread whose current context it
// is gets CUDA_ERROR_INVALID_CONTEXT from calls that need one. A handle is valid only if it
// is in the registry of live contexts; a pointer the engine never handed out is never
// dereferenced.

#include <algorithm>

#include "engine/driver_api.h"
#include "engine/driver_call.h"
#include "engine/engine_state.h"

namespace mockdev::driver {

using engine::EngineLock;
using engine::State;
using engine::state;

namespace {

// The calling thread's current context if it is alive and active.
CUctx_st* active_current(const State& s) {
  CUctx_st* ctx = engine::current_context(s);
  if (ctx == nullptr || s.live_contexts.count(ctx) == 0 || ctx->refcount == 0) return nullptr;
  return ctx;
}

void free_device_allocations(State& s, int device) {
  for (auto it = s.allocations.begin(); it != s.allocations.end();) {
    if (it->second.physical_device == device) {
      it = s.allocations.erase(it);
    } else {
      ++it;
    }
  }
  s.devices[static_cast<std::size_t>(device)].used_bytes = 0;
}

}  // namespace

CUresult cu_device_primary_ctx_retain(CUcontext* ctx, CUdevice dev) {
  EngineLock lock;
  State& s = state();
  if (auto early = enter(s, "cuDevicePrimaryCtxRetain", NeedsInit::kYes)) return *early;
  if (ctx == nullptr) return CUDA_ERROR_INVALID_VALUE;
  std::optional<int> p = physical_device(s, dev);
  if (!p) return CUDA_ERROR_INVALID_DEVICE;
  engine::DeviceState& d = s.devices[static_cast<std::size_t>(*p)];
  if (d.primary == nullptr) {
    d.primary = new CUctx_st{*p, dev, 0};  // Note [Primary contexts]: never freed
    s.live_contexts.insert(d.primary);
  }
  ++d.primary->refcount;
  *ctx = d.primary;
  return CUDA_SUCCESS;
}

CUresult cu_device_primary_ctx_release(CUdevice dev) {
  EngineLock lock;
  State& s = state();
  if (auto early = enter(s, "cuDevicePrimaryCtxRelease_v2", NeedsInit::kYes)) return *early;
  std::optional<int> p = physical_device(s, dev);
  if (!p) return CUDA_ERROR_INVALID_DEVICE;
  engine::DeviceState& d = s.devices[static_cast<std::size_t>(*p)];
  if (d.primary == nullptr || d.primary->refcount == 0) return CUDA_ERROR_INVALID_CONTEXT;
  if (--d.primary->refcount == 0) free_device_allocations(s, *p);
  return CUDA_SUCCESS;
}

CUresult cu_device_primary_ctx_get_state(CUdevice dev, unsigned int* flags, int* active) {
  EngineLock lock;
  State& s = state();
  if (auto early = enter(s, "cuDevicePrimaryCtxGetState", NeedsInit::kYes)) return *early;
  if (flags == nullptr || active == nullptr) return CUDA_ERROR_INVALID_VALUE;
  std::optional<int> p = physical_device(s, dev);
  if (!p) return CUDA_ERROR_INVALID_DEVICE;
  const engine::DeviceState& d = s.devices[static_cast<std::size_t>(*p)];
  *flags = 0;
  *active = (d.primary != nullptr && d.primary->refcount > 0) ? 1 : 0;
  return CUDA_SUCCESS;
}

CUresult cu_ctx_set_current(CUcontext ctx) {
  EngineLock lock;
  State& s = state();
  if (auto early = enter(s, "cuCtxSetCurrent", NeedsInit::kYes)) return *early;
  if (ctx != nullptr && (s.live_contexts.count(ctx) == 0 || ctx->refcount == 0)) {
    return CUDA_ERROR_INVALID_CONTEXT;
  }
  engine::set_current_context(s, ctx);
  return CUDA_SUCCESS;
}

CUresult cu_ctx_get_current(CUcontext* ctx) {
  EngineLock lock;
  State& s = state();
  if (auto early = enter(s, "cuCtxGetCurrent", NeedsInit::kYes)) return *early;
  if (ctx == nullptr) return CUDA_ERROR_INVALID_VALUE;
  *ctx = engine::current_context(s);
  return CUDA_SUCCESS;
}

CUresult cu_ctx_get_device(CUdevice* device) {
  EngineLock lock;
  State& s = state();
  if (auto early = enter(s, "cuCtxGetDevice", NeedsInit::kYes)) return *early;
  if (device == nullptr) return CUDA_ERROR_INVALID_VALUE;
  CUctx_st* ctx = active_current(s);
  if (ctx == nullptr) return CUDA_ERROR_INVALID_CONTEXT;
  *device = ctx->ordinal;
  return CUDA_SUCCESS;
}

CUresult cu_ctx_synchronize() {
  EngineLock lock;
  State& s = state();
  if (auto early = enter(s, "cuCtxSynchronize", NeedsInit::kYes)) return *early;
  CUctx_st* ctx = active_current(s);
  if (ctx == nullptr) return CUDA_ERROR_INVALID_CONTEXT;
  if (auto sticky = engine::touch_device(s, ctx->physical_device))
    return static_cast<CUresult>(*sticky);
  return CUDA_SUCCESS;  // nothing is ever pending on the simulated device yet
}

CUresult cu_mem_get_info(std::size_t* free_bytes, std::size_t* total_bytes) {
  EngineLock lock;
  State& s = state();
  if (auto early = enter(s, "cuMemGetInfo_v2", NeedsInit::kYes)) return *early;
  if (free_bytes == nullptr || total_bytes == nullptr) return CUDA_ERROR_INVALID_VALUE;
  CUctx_st* ctx = active_current(s);
  if (ctx == nullptr) return CUDA_ERROR_INVALID_CONTEXT;
  if (auto sticky = engine::touch_device(s, ctx->physical_device))
    return static_cast<CUresult>(*sticky);
  const std::uint64_t total =
      s.machine.devices[static_cast<std::size_t>(ctx->physical_device)].memory_bytes;
  const std::uint64_t used = s.devices[static_cast<std::size_t>(ctx->physical_device)].used_bytes;
  *total_bytes = total;
  *free_bytes = total - used;
  return CUDA_SUCCESS;
}

CUresult cu_mem_alloc(CUdeviceptr* dptr, std::size_t bytes) {
  EngineLock lock;
  State& s = state();
  if (auto early = enter(s, "cuMemAlloc_v2", NeedsInit::kYes)) return *early;
  if (dptr == nullptr || bytes == 0) return CUDA_ERROR_INVALID_VALUE;
  CUctx_st* ctx = active_current(s);
  if (ctx == nullptr) return CUDA_ERROR_INVALID_CONTEXT;
  const int dev = ctx->physical_device;
  if (auto sticky = engine::touch_device(s, dev)) return static_cast<CUresult>(*sticky);
  engine::DeviceState& d = s.devices[static_cast<std::size_t>(dev)];
  const std::uint64_t capacity = s.machine.devices[static_cast<std::size_t>(dev)].memory_bytes;
  if (bytes > capacity - d.used_bytes) return CUDA_ERROR_OUT_OF_MEMORY;
  // Addresses are never reused within a device's range (a freed address stays invalid).
  const std::uint64_t range = std::uint64_t{1} << engine::kAddressRangeShift;
  const std::uint64_t rounded = (bytes + engine::kAllocationAlignment - 1) /
                                engine::kAllocationAlignment * engine::kAllocationAlignment;
  if (rounded > range - d.next_offset) return CUDA_ERROR_OUT_OF_MEMORY;  // address space spent
  const CUdeviceptr address = (static_cast<std::uint64_t>(dev) + 1) * range + d.next_offset;
  d.next_offset += rounded;
  d.used_bytes += bytes;
  s.allocations.emplace(address, engine::Allocation{dev, bytes});
  *dptr = address;
  return CUDA_SUCCESS;
}

CUresult cu_mem_free(CUdeviceptr dptr) {
  EngineLock lock;
  State& s = state();
  if (auto early = enter(s, "cuMemFree_v2", NeedsInit::kYes)) return *early;
  CUctx_st* ctx = active_current(s);
  if (ctx == nullptr) return CUDA_ERROR_INVALID_CONTEXT;
  if (auto sticky = engine::touch_device(s, ctx->physical_device))
    return static_cast<CUresult>(*sticky);
  auto it = s.allocations.find(dptr);
  if (it == s.allocations.end()) return CUDA_ERROR_INVALID_VALUE;
  s.devices[static_cast<std::size_t>(it->second.physical_device)].used_bytes -= it->second.bytes;
  s.allocations.erase(it);
  return CUDA_SUCCESS;
}

}  // namespace mockdev::driver
