// Managed memory of the simulated driver (declared in driver_api.h): cuMemAllocManaged,
// cuMemPrefetchAsync, cuMemAdvise and cuMemRangeGetAttribute(s).
//
// Note [Managed memory]
// A managed allocation is host memory that host code and device work both use at its own
// address (Note [Device-accessible host memory] in core/pinned_host.h): its bytes are real,
// every copy, memset and kernel argument that takes device memory takes it, and
// cuPointerGetAttribute answers IS_MANAGED (driver_pointer.cpp). It is made for the current
// context's device, zero-filled (the driver promises no content; Recording 2 read zeros), and
// freed by cuMemFree after all work completes (driver_memory.cpp). It is not counted
// (Recording 2) against the device's memory (cuMemGetInfo): on a machine without HMM the driver
// migrates pages on demand and the simulation does not model residency.
// - cuMemAllocManaged: flags exactly one of CU_MEM_ATTACH_GLOBAL and CU_MEM_ATTACH_HOST
//   (cuda.h); a size of 0 is CUDA_ERROR_INVALID_VALUE; a device without
//   CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY is CUDA_ERROR_NOT_SUPPORTED.
// - cuMemPrefetchAsync (a device ordinal or CU_DEVICE_CPU) and _v2 (a CUmemLocation, flags
//   0): the range must lie inside one managed allocation (CUDA_ERROR_INVALID_VALUE), the
//   destination must exist (CUDA_ERROR_INVALID_DEVICE). The prefetch is an operation on the
//   stream, ordered like any other and shown in traces; it declares no byte accesses (it moves
//   no data a program can observe). The last prefetch location is recorded at the call.
// - cuMemAdvise (v1, _v2): the same range rule; READ_MOSTLY ignores the location, the others
//   need an existing device or the host (CUDA_ERROR_INVALID_DEVICE); UNSET_PREFERRED_LOCATION
//   ignores it.
// - cuMemRangeGetAttribute(s): cuda.h's data sizes (4 bytes, a multiple of 4 for
//   ACCESSED_BY, filled with CU_DEVICE_INVALID past the devices), CU_DEVICE_CPU for the host
//   and CU_DEVICE_INVALID for none.
// [inferred] Advice and prefetch locations are kept per allocation, not per page: a query of
// any part of an allocation answers what was last given for any part of it.

#include <sys/mman.h>

#include <cstring>

#include "core/engine.h"
#include "core/pinned_host.h"
#include "cuda/cuda_state.h"
#include "cuda/device_attributes.h"
#include "cuda/driver_api.h"
#include "cuda/driver_call.h"
#include "cuda/stream_objects.h"
namespace mockdev::cuda {
namespace {

// The managed allocation holding [address, address + count), or nullopt.
std::optional<core::PinnedRange> managed_range(CUdeviceptr address, std::size_t count)
    MOCKDEV_REQUIRES(core::g_engine_mutex) {
  if (count == 0) return std::nullopt;
  std::optional<core::PinnedRange> r = core::pinned_containing(address, count);
  if (!r || !r->managed) return std::nullopt;
  return r;
}

bool is_host_location(CUmemLocationType type) {
  return type == CU_MEM_LOCATION_TYPE_HOST || type == CU_MEM_LOCATION_TYPE_HOST_NUMA ||
         type == CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT;
}

// A location given as v1's device argument: an ordinal or CU_DEVICE_CPU.
std::optional<CUmemLocation> location_of_device(CUdevice device)
    MOCKDEV_REQUIRES(core::g_engine_mutex) {
  if (device == kDeviceCpu) return CUmemLocation{CU_MEM_LOCATION_TYPE_HOST, 0};
  if (!physical_device(device)) return std::nullopt;
  return CUmemLocation{CU_MEM_LOCATION_TYPE_DEVICE, device};
}

// A _v2 location: nullopt with `*code` set when it is not one.
std::optional<CUmemLocation> checked_location(CUmemLocation location, CUresult* code)
    MOCKDEV_REQUIRES(core::g_engine_mutex) {
  if (location.type == CU_MEM_LOCATION_TYPE_DEVICE) {
    if (physical_device(location.id)) return location;
    *code = CUDA_ERROR_INVALID_DEVICE;
    return std::nullopt;
  }
  if (is_host_location(location.type)) return location;
  *code = CUDA_ERROR_INVALID_VALUE;
  return std::nullopt;
}

// A location as the v1 range attributes give it: an ordinal, CU_DEVICE_CPU, or
// CU_DEVICE_INVALID for none.
int device_of_location(CUmemLocation location) {
  if (location.type == CU_MEM_LOCATION_TYPE_DEVICE) return location.id;
  if (is_host_location(location.type)) return kDeviceCpu;
  return kDeviceInvalid;
}

CUresult prefetch(CUdeviceptr address, std::size_t count, CUmemLocation location, CUstream handle)
    MOCKDEV_REQUIRES(core::g_engine_mutex) {
  const ResolvedStream r = resolve_stream(handle);
  if (r.stream == nullptr) return r.error;
  std::optional<core::PinnedRange> range = managed_range(address, count);
  if (!range) return CUDA_ERROR_INVALID_VALUE;
  if (auto sticky = sticky_error(r.stream->ctx->physical_device)) return *sticky;
  cuda_state().managed_advice[range->id].last_prefetch = location;
  core::OpDesc desc;
  desc.kind = core::OpKind::kBarrier;
  desc.name = "cuMemPrefetchAsync";
  return submit(r.stream, std::move(desc)).code;
}

CUresult advise(CUdeviceptr address, std::size_t count, CUmem_advise advice,
                std::optional<CUmemLocation> location, CUresult bad_location)
    MOCKDEV_REQUIRES(core::g_engine_mutex) {
  std::optional<core::PinnedRange> range = managed_range(address, count);
  if (!range) return CUDA_ERROR_INVALID_VALUE;
  if (advice < CU_MEM_ADVISE_SET_READ_MOSTLY || advice > CU_MEM_ADVISE_UNSET_ACCESSED_BY) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  const bool needs_location = advice == CU_MEM_ADVISE_SET_PREFERRED_LOCATION ||
                              advice == CU_MEM_ADVISE_SET_ACCESSED_BY ||
                              advice == CU_MEM_ADVISE_UNSET_ACCESSED_BY;
  if (needs_location && !location) return bad_location;
  ManagedAdvice& a = cuda_state().managed_advice[range->id];
  switch (advice) {
    case CU_MEM_ADVISE_SET_READ_MOSTLY:
      a.read_mostly = true;
      break;
    case CU_MEM_ADVISE_UNSET_READ_MOSTLY:
      a.read_mostly = false;
      break;
    case CU_MEM_ADVISE_SET_PREFERRED_LOCATION:
      a.preferred = *location;
      break;
    case CU_MEM_ADVISE_UNSET_PREFERRED_LOCATION:
      a.preferred = CUmemLocation{CU_MEM_LOCATION_TYPE_INVALID, 0};
      break;
    case CU_MEM_ADVISE_SET_ACCESSED_BY:
      a.accessed_by.insert(device_of_location(*location));
      break;
    case CU_MEM_ADVISE_UNSET_ACCESSED_BY:
      a.accessed_by.erase(device_of_location(*location));
      break;
  }
  return CUDA_SUCCESS;
}

template <typename T>
CUresult put_scalar(void* data, std::size_t data_size, T value) {
  if (data_size != sizeof value) return CUDA_ERROR_INVALID_VALUE;
  std::memcpy(data, &value, sizeof value);
  return CUDA_SUCCESS;
}

CUresult range_attribute(void* data, std::size_t data_size, CUmem_range_attribute attribute,
                         CUdeviceptr address, std::size_t count)
    MOCKDEV_REQUIRES(core::g_engine_mutex) {
  if (data == nullptr) return CUDA_ERROR_INVALID_VALUE;
  std::optional<core::PinnedRange> range = managed_range(address, count);
  if (!range) return CUDA_ERROR_INVALID_VALUE;
  const ManagedAdvice a = cuda_state().managed_advice[range->id];
  switch (attribute) {
    case CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY:
      return put_scalar(data, data_size, a.read_mostly ? 1 : 0);
    case CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION:
      return put_scalar(data, data_size, device_of_location(a.preferred));
    case CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION:
      return put_scalar(data, data_size, device_of_location(a.last_prefetch));
    case CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_TYPE:
      return put_scalar(data, data_size, static_cast<int>(a.preferred.type));
    case CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_ID:
      return put_scalar(data, data_size, a.preferred.id);
    case CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_TYPE:
      return put_scalar(data, data_size, static_cast<int>(a.last_prefetch.type));
    case CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_ID:
      return put_scalar(data, data_size, a.last_prefetch.id);
    case CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY: {
      if (data_size == 0 || data_size % sizeof(int) != 0) return CUDA_ERROR_INVALID_VALUE;
      auto* out = static_cast<int*>(data);
      const std::size_t slots = data_size / sizeof(int);
      std::size_t i = 0;
      for (int device : a.accessed_by) {
        if (i == slots) break;
        std::memcpy(out + i++, &device, sizeof device);
      }
      for (; i < slots; ++i) std::memcpy(out + i, &kDeviceInvalid, sizeof(int));
      return CUDA_SUCCESS;
    }
  }
  return CUDA_ERROR_INVALID_VALUE;
}

}  // namespace

CUresult allocate_managed(CUctx_st* ctx, std::size_t bytesize, unsigned flags, CUdeviceptr* dptr) {
  const int device = ctx->physical_device;
  if (auto sticky = sticky_error(device)) return *sticky;
  const DeviceSpec& spec = core::engine().machine.devices.at(static_cast<std::size_t>(device));
  if (device_attribute_value(spec, device, CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY) == 0) {
    return CUDA_ERROR_NOT_SUPPORTED;
  }
  if (bytesize > SIZE_MAX - kManagedPageBytes) return CUDA_ERROR_OUT_OF_MEMORY;
  const std::size_t rounded = managed_mapping_bytes(bytesize);
  // Anonymous pages: zero-filled and backed only where touched, as large managed
  // allocations (often more than the host's memory) need.
  void* memory = mmap(nullptr, rounded, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (memory == MAP_FAILED) return CUDA_ERROR_OUT_OF_MEMORY;
  core::PinnedRange range{reinterpret_cast<std::uintptr_t>(memory), bytesize, true};
  range.device_accessible = true;
  range.managed = true;
  range.flags = flags;
  range.device = device;
  range.context = memory_key(ctx);
  core::add_pinned(range);
  *dptr = reinterpret_cast<std::uintptr_t>(memory);
  return CUDA_SUCCESS;
}

namespace impl {

CUresult cuMemAllocManaged(CUdeviceptr* dptr, std::size_t bytesize, unsigned int flags) {
  if (dptr == nullptr || bytesize == 0) return CUDA_ERROR_INVALID_VALUE;
  if (flags != CU_MEM_ATTACH_GLOBAL && flags != CU_MEM_ATTACH_HOST) return CUDA_ERROR_INVALID_VALUE;
  const WorkContext current = context_for_work();
  if (current.ctx == nullptr) return current.error;
  return allocate_managed(current.ctx, bytesize, flags, dptr);
}

CUresult cuMemPrefetchAsync(CUdeviceptr dev_ptr, std::size_t count, CUdevice dst_device,
                            CUstream stream) {
  std::optional<CUmemLocation> location = location_of_device(dst_device);
  if (!location) return CUDA_ERROR_INVALID_DEVICE;
  return prefetch(dev_ptr, count, *location, stream);
}

CUresult cuMemPrefetchAsync_v2(CUdeviceptr dev_ptr, std::size_t count, CUmemLocation location,
                               unsigned int flags, CUstream stream) {
  if (flags != 0) return CUDA_ERROR_INVALID_VALUE;
  CUresult code = CUDA_SUCCESS;
  std::optional<CUmemLocation> checked = checked_location(location, &code);
  if (!checked) return code;
  return prefetch(dev_ptr, count, *checked, stream);
}

CUresult cuMemAdvise(CUdeviceptr dev_ptr, std::size_t count, CUmem_advise advice, CUdevice device) {
  return advise(dev_ptr, count, advice, location_of_device(device), CUDA_ERROR_INVALID_DEVICE);
}

CUresult cuMemAdvise_v2(CUdeviceptr dev_ptr, std::size_t count, CUmem_advise advice,
                        CUmemLocation location) {
  CUresult code = CUDA_SUCCESS;
  std::optional<CUmemLocation> checked = checked_location(location, &code);
  return advise(dev_ptr, count, advice, checked, code);
}

CUresult cuMemRangeGetAttribute(void* data, std::size_t data_size, CUmem_range_attribute attribute,
                                CUdeviceptr dev_ptr, std::size_t count) {
  return range_attribute(data, data_size, attribute, dev_ptr, count);
}

CUresult cuMemRangeGetAttributes(void** data, std::size_t* data_sizes,
                                 CUmem_range_attribute* attributes, std::size_t num_attributes,
                                 CUdeviceptr dev_ptr, std::size_t count) {
  if (data == nullptr || data_sizes == nullptr || attributes == nullptr || num_attributes == 0) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  for (std::size_t i = 0; i < num_attributes; ++i) {
    const CUresult rc = range_attribute(data[i], data_sizes[i], attributes[i], dev_ptr, count);
    if (rc != CUDA_SUCCESS) return rc;
  }
  return CUDA_SUCCESS;
}

}  // namespace impl
}  // namespace mockdev::cuda
