// Copies of the simulated driver (declared in driver_api.h): every sync and async form,
// through the submit path (stream_objects.h), with the CUDA Driver API's "API
// synchronization behavior" and the
// H200 recording (docs/HARDWARE.md) for when host bytes move and when the call returns:
//   host -> device, pageable source: the source is copied at the call ("staged"), the
//     device gets it when the operation completes; the async form returns at once, the
//     sync form first waits for the stream's earlier work ("a stream sync is performed
//     before the copy is initiated"; Recording 2 saw it wait) and then returns at once.
//   host -> device, pinned source: the source is read when the operation completes; the
//     async form returns at once, the sync form once it is complete.
//   device -> host: the destination is written when the operation completes; the call
//     returns once complete, except the async form into pinned memory, which returns at
//     once (so a host that reads it before synchronising sees the old bytes).
//   device -> device: returns at once, sync form included (ordered on the legacy stream).
//   host -> host (cuMemcpy / cuMemcpyAsync with unified addressing): done at the call.
// A device range must lie wholly inside one live allocation, else CUDA_ERROR_INVALID_VALUE;
// a null host pointer with a non-zero size is CUDA_ERROR_INVALID_VALUE too. A size of 0
// does nothing once the stream is resolved.

#include <cstring>
#include <new>

#include "core/engine.h"
#include "core/memory.h"
#include "core/pinned_host.h"
#include "core/timeline.h"
#include "cuda/driver_api.h"
#include "cuda/driver_call.h"
#include "cuda/stream_objects.h"

namespace mockdev::cuda::impl {
namespace {

enum class Side { kDevice, kHost };

struct Endpoint {
  Side side = Side::kHost;
  std::uint64_t address = 0;
  int device = -1;      // kDevice: physical device
  bool pinned = false;  // kHost: inside a pinned range
};

// A device address (the value of a CUdeviceptr that should name device memory): valid when
// [address, address + bytes) is inside one live CUDA allocation.
std::optional<Endpoint> device_side(std::uint64_t address, std::uint64_t bytes)
    MOCKDEV_REQUIRES(core::g_engine_mutex) {
  std::optional<core::Allocation> a = core::find_containing(address, bytes, nullptr);
  if (!a || a->owner != Api::kCuda) return std::nullopt;
  return Endpoint{Side::kDevice, address, a->device, false};
}

std::optional<Endpoint> host_side(const void* pointer, std::uint64_t bytes)
    MOCKDEV_REQUIRES(core::g_engine_mutex) {
  const auto address = reinterpret_cast<std::uintptr_t>(pointer);
  if (pointer == nullptr || address + bytes < address) return std::nullopt;
  return Endpoint{Side::kHost, address, -1, core::is_pinned(address, bytes)};
}

// Whether `address` falls in some device's address range (Note [Device addresses]).
bool in_device_space(std::uint64_t address) MOCKDEV_REQUIRES(core::g_engine_mutex) {
  const std::uint64_t devices = core::engine().machine.devices.size();
  const std::uint64_t first = std::uint64_t{1} << core::kAddressRangeShift;
  return address >= first && (address >> core::kAddressRangeShift) <= devices;
}

// Unified addressing (cuMemcpy, cuMemcpyAsync): an address inside a device's range must be
// a valid device range; anything else is host memory.
std::optional<Endpoint> unified_side(std::uint64_t address, std::uint64_t bytes)
    MOCKDEV_REQUIRES(core::g_engine_mutex) {
  if (in_device_space(address)) return device_side(address, bytes);
  return host_side(reinterpret_cast<const void*>(address), bytes);
}

enum class Returns { kAtOnce, kOnceComplete };

// Enqueues the copy `src` -> `dst` on `stream` and applies section 3.2's return rule for the
// sync (`sync` true) or async form.
CUresult copy_on(CUstream_st* stream, const Endpoint& dst, const Endpoint& src, std::uint64_t bytes,
                 bool sync, const char* name) MOCKDEV_REQUIRES(core::g_engine_mutex) {
  if (dst.side == Side::kHost && src.side == Side::kHost) {
    std::memmove(reinterpret_cast<void*>(dst.address), reinterpret_cast<const void*>(src.address),
                 bytes);
    return CUDA_SUCCESS;
  }
  const StreamSettings::Timing& timing = core::engine().machine.streams.timing;
  core::OpDesc desc;
  desc.kind = core::OpKind::kCopy;
  desc.name = name;
  desc.read = core::AccessRange{src.address, bytes, src.side == Side::kHost};
  desc.write = core::AccessRange{dst.address, bytes, dst.side == Side::kHost};
  desc.action.dst = dst.address;
  desc.action.src = src.address;
  desc.action.bytes = bytes;
  Returns returns = Returns::kAtOnce;
  if (src.side == Side::kHost) {  // host -> device
    desc.duration_ns = core::transfer_ns(bytes, timing.htod_gb_per_s);
    if (src.pinned) {
      desc.action.kind = core::ActionKind::kHostToDevice;
      if (sync) returns = Returns::kOnceComplete;
    } else {
      if (sync) {
        const std::vector<core::OpId> earlier = stream_targets(stream);
        if (CUresult rc = host_wait(earlier, name); rc != CUDA_SUCCESS) return rc;
      }
      desc.action.kind = core::ActionKind::kStagedToDevice;
      desc.action.staged.reset(new (std::nothrow) std::byte[bytes]);
      if (!desc.action.staged) return CUDA_ERROR_OUT_OF_MEMORY;
      std::memcpy(desc.action.staged.get(), reinterpret_cast<const void*>(src.address), bytes);
      // The host may reuse its buffer at once: the staged copy no longer reads it.
      desc.read = core::AccessRange{};
    }
  } else if (dst.side == Side::kHost) {  // device -> host
    desc.duration_ns = core::transfer_ns(bytes, timing.dtoh_gb_per_s);
    desc.action.kind = core::ActionKind::kDeviceToHost;
    if (sync || !dst.pinned) returns = Returns::kOnceComplete;
  } else {  // device -> device
    desc.duration_ns = core::transfer_ns(
        bytes, dst.device == src.device ? timing.dtod_gb_per_s : timing.peer_gb_per_s);
    desc.action.kind = core::ActionKind::kCopyDevice;
  }
  const Submitted s = submit(stream, std::move(desc));
  if (s.code != CUDA_SUCCESS || returns == Returns::kAtOnce) return s.code;
  // Capture hook: a captured copy (no operation) has nothing to wait for.
  if (s.op == 0) return CUDA_SUCCESS;
  const core::OpId ops[] = {s.op};
  return host_wait(ops, name);
}

// Resolves the stream, checks both ends and the sticky error of the stream's device, then
// copies. `dst`/`src` are nullopt when invalid.
CUresult copy(CUstream handle, std::optional<Endpoint> dst, std::optional<Endpoint> src,
              std::uint64_t bytes, bool sync, const char* name)
    MOCKDEV_REQUIRES(core::g_engine_mutex) {
  const ResolvedStream r = resolve_stream(handle);
  if (r.stream == nullptr) return r.error;
  if (bytes == 0) return CUDA_SUCCESS;
  if (!dst || !src) return CUDA_ERROR_INVALID_VALUE;
  if (auto sticky = sticky_error(r.stream->ctx->physical_device)) return *sticky;
  return copy_on(r.stream, *dst, *src, bytes, sync, name);
}

// A peer copy's context: registered and active, else CUDA_ERROR_INVALID_CONTEXT.
bool usable_context(CUcontext ctx) MOCKDEV_REQUIRES(core::g_engine_mutex) {
  return is_registered(ctx) && ctx->refcount > 0;
}

// [inferred] cuMemcpyPeer(Async): each address must be a live allocation on its context's
// device; the synchronous form runs on the legacy stream of the current context.
CUresult peer_copy(CUstream handle, CUdeviceptr dst, CUcontext dst_ctx, CUdeviceptr src,
                   CUcontext src_ctx, std::size_t bytes, bool sync, const char* name)
    MOCKDEV_REQUIRES(core::g_engine_mutex) {
  if (!usable_context(dst_ctx) || !usable_context(src_ctx)) return CUDA_ERROR_INVALID_CONTEXT;
  std::optional<Endpoint> d = device_side(dst, bytes);
  std::optional<Endpoint> s = device_side(src, bytes);
  if (bytes != 0 && ((d && d->device != dst_ctx->physical_device) ||
                     (s && s->device != src_ctx->physical_device))) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  return copy(handle, d, s, bytes, sync, name);
}

}  // namespace

CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void* src, std::size_t bytes) {
  return copy(nullptr, device_side(dst, bytes), host_side(src, bytes), bytes, true,
              "cuMemcpyHtoD_v2");
}

CUresult cuMemcpyDtoH_v2(void* dst, CUdeviceptr src, std::size_t bytes) {
  return copy(nullptr, host_side(dst, bytes), device_side(src, bytes), bytes, true,
              "cuMemcpyDtoH_v2");
}

CUresult cuMemcpyDtoD_v2(CUdeviceptr dst, CUdeviceptr src, std::size_t bytes) {
  return copy(nullptr, device_side(dst, bytes), device_side(src, bytes), bytes, true,
              "cuMemcpyDtoD_v2");
}

CUresult cuMemcpy(CUdeviceptr dst, CUdeviceptr src, std::size_t bytes) {
  return copy(nullptr, unified_side(dst, bytes), unified_side(src, bytes), bytes, true, "cuMemcpy");
}

CUresult cuMemcpyPeer(CUdeviceptr dst, CUcontext dst_ctx, CUdeviceptr src, CUcontext src_ctx,
                      std::size_t bytes) {
  return peer_copy(nullptr, dst, dst_ctx, src, src_ctx, bytes, true, "cuMemcpyPeer");
}

CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dst, const void* src, std::size_t bytes, CUstream stream) {
  return copy(stream, device_side(dst, bytes), host_side(src, bytes), bytes, false,
              "cuMemcpyHtoDAsync_v2");
}

CUresult cuMemcpyDtoHAsync_v2(void* dst, CUdeviceptr src, std::size_t bytes, CUstream stream) {
  return copy(stream, host_side(dst, bytes), device_side(src, bytes), bytes, false,
              "cuMemcpyDtoHAsync_v2");
}

CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr dst, CUdeviceptr src, std::size_t bytes, CUstream stream) {
  return copy(stream, device_side(dst, bytes), device_side(src, bytes), bytes, false,
              "cuMemcpyDtoDAsync_v2");
}

CUresult cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, std::size_t bytes, CUstream stream) {
  return copy(stream, unified_side(dst, bytes), unified_side(src, bytes), bytes, false,
              "cuMemcpyAsync");
}

CUresult cuMemcpyPeerAsync(CUdeviceptr dst, CUcontext dst_ctx, CUdeviceptr src, CUcontext src_ctx,
                           std::size_t bytes, CUstream stream) {
  return peer_copy(stream, dst, dst_ctx, src, src_ctx, bytes, false, "cuMemcpyPeerAsync");
}

}  // namespace mockdev::cuda::impl
