// Stream-ordered allocation and memory pools of the simulated driver (declared in
// driver_api.h) over the pool model (pool_model.h, decision 198).
//
// Rules as the CUDA Driver API documents them, [inferred] where docs/HARDWARE.md says so:
//   cuMemAllocAsync / cuMemAllocFromPoolAsync: a null output: INVALID_VALUE; a size of 0
//     succeeds and allocates nothing (Recording 2; [inferred] the address is 0); then the
//     stream; a pool this machine never made: INVALID_VALUE (a destroyed one still serves
//     allocations, as the H100's did: Recording 2); the sticky error of the stream's
//     device; no room: OUT_OF_MEMORY. cuMemAllocAsync allocates from the current pool of
//     the stream's device. The address is usable in stream order at once (the simulation
//     allocates at the call).
//   cuMemFreeAsync: the stream; 0 does nothing [inferred, as cuMemFree(0)]; an address that
//     is not a live pool allocation's start: INVALID_VALUE; the sticky error; then the free
//     is one operation on the stream, after which the memory is the pool's again (Note
//     [Pool reuse]).
//   pool handles of the other calls: null or not live (destroyed): INVALID_VALUE; a device's
//   default pool
//     cannot be destroyed: INVALID_VALUE [inferred code]; destroying a device's current
//     pool makes the default pool current again (documented).
//   attributes: REUSE_* are int, the others cuuint64_t; CURRENT values are read-only
//     [inferred code: INVALID_VALUE]; a HIGH value may only be set to 0, which resets it to
//     the current value; an unknown attribute or a null value: INVALID_VALUE.
//   access: the pool's own device always has read-write access (setting it to anything else:
//     INVALID_DEVICE, Recording 2); other devices have none until cuMemPoolSetAccess.
// Capture: [inferred] allocating or freeing on a capturing stream answers
// CUDA_ERROR_NOT_SUPPORTED (graph memory nodes are not modelled).

#include <cstring>

#include "core/engine.h"
#include "core/memory.h"
#include "cuda/capture.h"
#include "cuda/capture_streams.h"
#include "cuda/cuda_state.h"
#include "cuda/device_attributes.h"
#include "cuda/driver_api.h"
#include "cuda/driver_call.h"
#include "cuda/pool_model.h"
#include "cuda/stream_objects.h"

namespace mockdev::cuda::impl {
namespace {

bool capturing(const CUstream_st* stream) MOCKDEV_REQUIRES(core::g_engine_mutex) {
  return capture::any_capture() &&
         capture::status_of(capture::ref_of(stream).key) != CU_STREAM_CAPTURE_STATUS_NONE;
}

CUresult allocate(CUdeviceptr* dptr, std::size_t bytes, CUmemoryPool pool, bool explicit_pool,
                  CUstream handle, const char* name) MOCKDEV_REQUIRES(core::g_engine_mutex) {
  if (dptr == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (explicit_pool && !is_known_pool(pool)) return CUDA_ERROR_INVALID_VALUE;
  const ResolvedStream r = resolve_stream(handle);
  if (r.stream == nullptr) return r.error;
  if (bytes == 0) {
    *dptr = 0;
    return CUDA_SUCCESS;
  }
  if (capturing(r.stream)) return CUDA_ERROR_NOT_SUPPORTED;
  const int device = r.stream->ctx->physical_device;
  if (!explicit_pool) pool = current_pool(device);
  if (auto sticky = sticky_error(device)) return *sticky;
  core::OpId after = 0;
  std::optional<std::uint64_t> address = pool_allocate(pool, bytes, r.stream->queue, &after);
  if (!address) return CUDA_ERROR_OUT_OF_MEMORY;
  *dptr = *address;
  if (after != 0) {
    // Note [Pool reuse]: memory another stream freed; this stream's work follows the free.
    core::OpDesc desc;
    desc.kind = core::OpKind::kBarrier;
    desc.name = name;
    const core::OpId deps[] = {after};
    return submit(r.stream, std::move(desc), deps).code;
  }
  return CUDA_SUCCESS;
}

CUresult free_async(CUdeviceptr dptr, CUstream handle) MOCKDEV_REQUIRES(core::g_engine_mutex) {
  const ResolvedStream r = resolve_stream(handle);
  if (r.stream == nullptr) return r.error;
  if (dptr == 0) return CUDA_SUCCESS;
  CUmemPoolHandle_st* pool = pool_of(dptr);
  if (pool == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (capturing(r.stream)) return CUDA_ERROR_NOT_SUPPORTED;
  if (auto sticky = sticky_error(pool->device)) return *sticky;
  pool_free(pool, dptr, r.stream->queue);
  core::OpDesc desc;
  desc.kind = core::OpKind::kBarrier;
  desc.name = "cuMemFreeAsync";
  const Submitted s = submit(r.stream, std::move(desc));
  if (s.code == CUDA_SUCCESS) note_free_op(dptr, s.op);
  return s.code;
}

// A CU_MEM_LOCATION_TYPE_DEVICE location's physical device.
std::optional<int> device_of(const CUmemLocation& location) MOCKDEV_REQUIRES(core::g_engine_mutex) {
  if (location.type != CU_MEM_LOCATION_TYPE_DEVICE) return std::nullopt;
  return physical_device(location.id);
}

bool pools_supported(int physical) MOCKDEV_REQUIRES(core::g_engine_mutex) {
  return device_attribute_value(core::engine().machine.devices.at(static_cast<std::size_t>(physical)),
                                physical, CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED) != 0;
}

}  // namespace

CUresult cuMemAllocAsync(CUdeviceptr* dptr, std::size_t bytes, CUstream stream) {
  return allocate(dptr, bytes, nullptr, false, stream, "cuMemAllocAsync");
}

CUresult cuMemAllocFromPoolAsync(CUdeviceptr* dptr, std::size_t bytes, CUmemoryPool pool,
                                 CUstream stream) {
  return allocate(dptr, bytes, pool, true, stream, "cuMemAllocFromPoolAsync");
}

CUresult cuMemFreeAsync(CUdeviceptr dptr, CUstream stream) { return free_async(dptr, stream); }

// Documented: allocType PINNED, a device location. [inferred] handle types none or POSIX
// file descriptor (what CU_DEVICE_ATTRIBUTE_MEMPOOL_SUPPORTED_HANDLE_TYPES reports), a null
// Windows field and zero reserved bytes, else INVALID_VALUE.
CUresult cuMemPoolCreate(CUmemoryPool* pool, const CUmemPoolProps* props) {
  if (pool == nullptr || props == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (props->allocType != CU_MEM_ALLOCATION_TYPE_PINNED) return CUDA_ERROR_INVALID_VALUE;
  std::optional<int> device = device_of(props->location);
  if (!device) return CUDA_ERROR_INVALID_VALUE;
  if (props->handleTypes != CU_MEM_HANDLE_TYPE_NONE &&
      props->handleTypes != CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  if (props->win32SecurityAttributes != nullptr) return CUDA_ERROR_INVALID_VALUE;
  for (unsigned char b : props->reserved) {
    if (b != 0) return CUDA_ERROR_INVALID_VALUE;
  }
  if (!pools_supported(*device)) return CUDA_ERROR_NOT_SUPPORTED;
  *pool = create_pool(*device, props->maxSize);
  return CUDA_SUCCESS;
}

CUresult cuMemPoolDestroy(CUmemoryPool pool) {
  if (!is_live_pool(pool) || pool->is_default) return CUDA_ERROR_INVALID_VALUE;
  destroy_pool(pool);
  return CUDA_SUCCESS;
}

CUresult cuMemPoolSetAttribute(CUmemoryPool pool, CUmemPool_attribute attr, void* value) {
  if (!is_live_pool(pool) || value == nullptr) return CUDA_ERROR_INVALID_VALUE;
  int as_int = 0;
  cuuint64_t as_u64 = 0;
  switch (attr) {
    case CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES:
      std::memcpy(&as_int, value, sizeof as_int);
      pool->follow_event_dependencies = as_int != 0;
      return CUDA_SUCCESS;
    case CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC:
      std::memcpy(&as_int, value, sizeof as_int);
      pool->allow_opportunistic = as_int != 0;
      return CUDA_SUCCESS;
    case CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES:
      std::memcpy(&as_int, value, sizeof as_int);
      pool->allow_internal_dependencies = as_int != 0;
      return CUDA_SUCCESS;
    case CU_MEMPOOL_ATTR_RELEASE_THRESHOLD:
      std::memcpy(&as_u64, value, sizeof as_u64);
      pool->release_threshold = as_u64;
      return CUDA_SUCCESS;
    case CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH:
    case CU_MEMPOOL_ATTR_USED_MEM_HIGH:
      std::memcpy(&as_u64, value, sizeof as_u64);
      if (as_u64 != 0) return CUDA_ERROR_INVALID_VALUE;
      if (attr == CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH) {
        pool->reserved_high = pool->reserved;
      } else {
        pool->used_high = pool->used;
      }
      return CUDA_SUCCESS;
    case CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT:
    case CU_MEMPOOL_ATTR_USED_MEM_CURRENT:
      return CUDA_ERROR_INVALID_VALUE;
  }
  return CUDA_ERROR_INVALID_VALUE;
}

CUresult cuMemPoolGetAttribute(CUmemoryPool pool, CUmemPool_attribute attr, void* value) {
  if (!is_live_pool(pool) || value == nullptr) return CUDA_ERROR_INVALID_VALUE;
  auto put_int = [value](int v) { std::memcpy(value, &v, sizeof v); };
  auto put_u64 = [value](cuuint64_t v) { std::memcpy(value, &v, sizeof v); };
  switch (attr) {
    case CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES:
      put_int(pool->follow_event_dependencies);
      return CUDA_SUCCESS;
    case CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC:
      put_int(pool->allow_opportunistic);
      return CUDA_SUCCESS;
    case CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES:
      put_int(pool->allow_internal_dependencies);
      return CUDA_SUCCESS;
    case CU_MEMPOOL_ATTR_RELEASE_THRESHOLD:
      put_u64(pool->release_threshold);
      return CUDA_SUCCESS;
    case CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT:
      put_u64(pool->reserved);
      return CUDA_SUCCESS;
    case CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH:
      put_u64(pool->reserved_high);
      return CUDA_SUCCESS;
    case CU_MEMPOOL_ATTR_USED_MEM_CURRENT:
      put_u64(pool->used);
      return CUDA_SUCCESS;
    case CU_MEMPOOL_ATTR_USED_MEM_HIGH:
      put_u64(pool->used_high);
      return CUDA_SUCCESS;
  }
  return CUDA_ERROR_INVALID_VALUE;
}

CUresult cuMemPoolTrimTo(CUmemoryPool pool, std::size_t min_bytes_to_keep) {
  if (!is_live_pool(pool)) return CUDA_ERROR_INVALID_VALUE;
  release_down_to(pool, min_bytes_to_keep);
  return CUDA_SUCCESS;
}

CUresult cuMemPoolSetAccess(CUmemoryPool pool, const CUmemAccessDesc* map, std::size_t count) {
  if (!is_live_pool(pool) || (map == nullptr && count != 0)) return CUDA_ERROR_INVALID_VALUE;
  // Every entry is checked before any applies.
  for (std::size_t i = 0; i < count; ++i) {
    std::optional<int> device = device_of(map[i].location);
    if (!device) return CUDA_ERROR_INVALID_VALUE;
    const CUmemAccess_flags f = map[i].flags;
    if (f != CU_MEM_ACCESS_FLAGS_PROT_NONE && f != CU_MEM_ACCESS_FLAGS_PROT_READ &&
        f != CU_MEM_ACCESS_FLAGS_PROT_READWRITE) {
      return CUDA_ERROR_INVALID_VALUE;
    }
    if (*device == pool->device && f != CU_MEM_ACCESS_FLAGS_PROT_READWRITE) {
      return CUDA_ERROR_INVALID_DEVICE;
    }
  }
  for (std::size_t i = 0; i < count; ++i) {
    const int device = *device_of(map[i].location);
    if (device != pool->device) pool->peer_access[device] = map[i].flags;
  }
  return CUDA_SUCCESS;
}

CUresult cuMemPoolGetAccess(CUmemAccess_flags* flags, CUmemoryPool pool, CUmemLocation* location) {
  if (flags == nullptr || location == nullptr || !is_live_pool(pool)) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  std::optional<int> device = device_of(*location);
  if (!device) return CUDA_ERROR_INVALID_VALUE;
  if (*device == pool->device) {
    *flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    return CUDA_SUCCESS;
  }
  auto it = pool->peer_access.find(*device);
  *flags = it == pool->peer_access.end() ? CU_MEM_ACCESS_FLAGS_PROT_NONE : it->second;
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetDefaultMemPool(CUmemoryPool* pool, CUdevice dev) {
  if (pool == nullptr) return CUDA_ERROR_INVALID_VALUE;
  std::optional<int> device = physical_device(dev);
  if (!device) return CUDA_ERROR_INVALID_DEVICE;
  if (!pools_supported(*device)) return CUDA_ERROR_NOT_SUPPORTED;
  *pool = default_pool(*device);
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetMemPool(CUmemoryPool* pool, CUdevice dev) {
  if (pool == nullptr) return CUDA_ERROR_INVALID_VALUE;
  std::optional<int> device = physical_device(dev);
  if (!device) return CUDA_ERROR_INVALID_DEVICE;
  if (!pools_supported(*device)) return CUDA_ERROR_NOT_SUPPORTED;
  *pool = current_pool(*device);
  return CUDA_SUCCESS;
}

// [inferred] A pool of another device: INVALID_VALUE.
CUresult cuDeviceSetMemPool(CUdevice dev, CUmemoryPool pool) {
  std::optional<int> device = physical_device(dev);
  if (!device) return CUDA_ERROR_INVALID_DEVICE;
  if (!is_live_pool(pool) || pool->device != *device) return CUDA_ERROR_INVALID_VALUE;
  set_current_pool(*device, pool);
  return CUDA_SUCCESS;
}

}  // namespace mockdev::cuda::impl
