// Virtual memory management of the simulated driver (declared in driver_api.h) over the
// core's vendor-neutral virtual memory (core/virtual_memory.h, Note [Virtual memory]):
// what PyTorch's expandable segments call. The rules follow the CUDA driver API reference;
// where it names no code for a case, the choice is marked [inferred].
//
// Every argument error is CUDA_ERROR_INVALID_VALUE, with one exception: a location that
// names no device ordinal is CUDA_ERROR_INVALID_DEVICE, as for every call taking a CUdevice.
// cuMemAddressReserve and cuMemCreate need no current context (Recording 2: both answered
// 0 on an H100 without one): a reservation lies in the current context's device's address
// window, else [inferred] in ordinal 0's; physical memory belongs to the prop's device. A
// released current context still answers CUDA_ERROR_CONTEXT_IS_DESTROYED [inferred].
// Recording 2 confirmed: a reservation of a size that is not a multiple of the granularity
// (4096) is 1; the others name their object (an address, a handle) and need none.

#include <optional>

#include "core/engine.h"
#include "core/memory.h"
#include "core/virtual_memory.h"
#include "cuda/cuda_state.h"
#include "cuda/driver_api.h"
#include "cuda/driver_call.h"

namespace mockdev::cuda::impl {
namespace {

constexpr int kKnownHandleTypes =
    CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR | CU_MEM_HANDLE_TYPE_FABRIC;

bool is_power_of_two(std::uint64_t n) { return n != 0 && (n & (n - 1)) == 0; }

// A CUmemAllocationProp the mock supports: pinned device memory on a device ordinal, with
// POSIX file descriptor or fabric handle types at most. The physical device, or the code.
struct PropDevice {
  int device = -1;
  CUresult error = CUDA_SUCCESS;
};
PropDevice prop_device(const CUmemAllocationProp* prop) MOCKDEV_REQUIRES(core::g_engine_mutex) {
  if (prop == nullptr || prop->type != CU_MEM_ALLOCATION_TYPE_PINNED ||
      prop->location.type != CU_MEM_LOCATION_TYPE_DEVICE ||
      (prop->requestedHandleTypes & ~kKnownHandleTypes) != 0) {
    return PropDevice{-1, CUDA_ERROR_INVALID_VALUE};
  }
  std::optional<int> p = physical_device(prop->location.id);
  if (!p) return PropDevice{-1, CUDA_ERROR_INVALID_DEVICE};
  return PropDevice{*p, CUDA_SUCCESS};
}

}  // namespace

// MINIMUM and RECOMMENDED are both the device's granularity (2 MiB unless the machine file
// says otherwise): the mock has no larger page that would perform better.
CUresult cuMemGetAllocationGranularity(std::size_t* granularity, const CUmemAllocationProp* prop,
                                       CUmemAllocationGranularity_flags option) {
  if (granularity == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (option != CU_MEM_ALLOC_GRANULARITY_MINIMUM &&
      option != CU_MEM_ALLOC_GRANULARITY_RECOMMENDED) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  const PropDevice d = prop_device(prop);
  if (d.device < 0) return d.error;
  *granularity = core::granularity(d.device);
  return CUDA_SUCCESS;
}

// `addr` is a hint the driver may ignore; the mock always does (Note [Virtual memory]).
// flags must be 0. A size that is not a multiple of the current device's granularity, or
// an alignment that is neither 0 nor a power of two, is 1; a window spent is 2.
CUresult cuMemAddressReserve(CUdeviceptr* ptr, std::size_t size, std::size_t alignment,
                             CUdeviceptr /*addr*/, unsigned long long flags) {
  if (ptr == nullptr || size == 0 || flags != 0) return CUDA_ERROR_INVALID_VALUE;
  if (alignment != 0 && !is_power_of_two(alignment)) return CUDA_ERROR_INVALID_VALUE;
  int device = 0;
  if (current_context() != nullptr) {
    const WorkContext current = context_for_work();
    if (current.ctx == nullptr) return current.error;
    device = current.ctx->physical_device;
  } else {
    std::optional<int> first = physical_device(0);
    if (!first) return CUDA_ERROR_INVALID_DEVICE;
    device = *first;
  }
  if (size % core::granularity(device) != 0) return CUDA_ERROR_INVALID_VALUE;
  std::optional<std::uint64_t> base = core::reserve_address(device, size, alignment);
  if (!base) return CUDA_ERROR_OUT_OF_MEMORY;
  *ptr = *base;
  return CUDA_SUCCESS;
}

// The range must be a whole reservation. [inferred] Freeing one that still has mappings
// inside is an invalid argument too (the reference names no other code for it); the
// reservation stays.
CUresult cuMemAddressFree(CUdeviceptr ptr, std::size_t size) {
  return core::free_address(ptr, size) == core::VmResult::kOk ? CUDA_SUCCESS
                                                              : CUDA_ERROR_INVALID_VALUE;
}

// flags must be 0; the size a non-zero multiple of the granularity of the prop's device.
// The memory counts against that device's capacity at once (2 when it does not fit or a
// memory fault fires) and belongs to the current context (Note [Primary contexts]).
CUresult cuMemCreate(CUmemGenericAllocationHandle* handle, std::size_t size,
                     const CUmemAllocationProp* prop, unsigned long long flags) {
  if (handle == nullptr || flags != 0 || size == 0) return CUDA_ERROR_INVALID_VALUE;
  const PropDevice d = prop_device(prop);
  if (d.device < 0) return d.error;
  if (size % core::granularity(d.device) != 0) return CUDA_ERROR_INVALID_VALUE;
  int owner = d.device;  // without a current context: the prop's device's primary context
  if (current_context() != nullptr) {
    const WorkContext current = context_for_work();
    if (current.ctx == nullptr) return current.error;
    owner = current.ctx->physical_device;
  }
  if (auto sticky = sticky_error(d.device)) return *sticky;
  std::optional<std::uint64_t> h = core::create_physical(d.device, owner, size);
  if (!h) return CUDA_ERROR_OUT_OF_MEMORY;
  *handle = *h;
  return CUDA_SUCCESS;
}

// As the reference says, a mapped handle's memory stays until its last mapping is gone; the
// handle itself is invalid from now on (a second release, or mapping it, is 1).
CUresult cuMemRelease(CUmemGenericAllocationHandle handle) {
  return core::release_physical(handle) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

// The reference: offset must be 0 and flags 0. The mock maps whole handles only (size ==
// the handle's size), inside one reservation, over no other mapping. The mapping starts
// with no access (cuMemSetAccess grants it).
CUresult cuMemMap(CUdeviceptr ptr, std::size_t size, std::size_t offset,
                  CUmemGenericAllocationHandle handle, unsigned long long flags) {
  if (offset != 0 || flags != 0) return CUDA_ERROR_INVALID_VALUE;
  return core::map_physical(ptr, size, handle) == core::VmResult::kOk ? CUDA_SUCCESS
                                                                      : CUDA_ERROR_INVALID_VALUE;
}

// The reference: the range must be exactly what was mapped; the mock accepts one or more
// whole, adjacent mappings. Afterwards the range is a reservation again.
CUresult cuMemUnmap(CUdeviceptr ptr, std::size_t size) {
  if (!core::mapped_pieces(ptr, size)) return CUDA_ERROR_INVALID_VALUE;
  core::unmap_range(ptr, size);
  return CUDA_SUCCESS;
}

// The range must cover whole, adjacent mappings. Each descriptor names a device ordinal and
// PROT_NONE, PROT_READ or PROT_READWRITE. Copies, memsets and kernels use a mapping only
// where its own device has PROT_READWRITE (Note [Virtual memory]); [inferred] PROT_READ
// counts as no access there (the mock has no read-only device memory), and descriptors for
// other devices are checked and otherwise ignored (peer access is cuCtxEnablePeerAccess's).
CUresult cuMemSetAccess(CUdeviceptr ptr, std::size_t size, const CUmemAccessDesc* desc,
                        std::size_t count) {
  if (desc == nullptr || count == 0) return CUDA_ERROR_INVALID_VALUE;
  std::optional<std::vector<core::MappedPiece>> pieces = core::mapped_pieces(ptr, size);
  if (!pieces) return CUDA_ERROR_INVALID_VALUE;
  std::vector<std::optional<bool>> read_write_for(core::engine().machine.devices.size());
  for (std::size_t i = 0; i < count; ++i) {
    const CUmemAccessDesc& a = desc[i];
    if (a.location.type != CU_MEM_LOCATION_TYPE_DEVICE) return CUDA_ERROR_INVALID_VALUE;
    if (a.flags != CU_MEM_ACCESS_FLAGS_PROT_NONE && a.flags != CU_MEM_ACCESS_FLAGS_PROT_READ &&
        a.flags != CU_MEM_ACCESS_FLAGS_PROT_READWRITE) {
      return CUDA_ERROR_INVALID_VALUE;
    }
    std::optional<int> p = physical_device(a.location.id);
    if (!p) return CUDA_ERROR_INVALID_DEVICE;
    read_write_for[static_cast<std::size_t>(*p)] = a.flags == CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  }
  // Mapping by mapping: the descriptor for its own device decides; none leaves it as it was.
  for (const core::MappedPiece& piece : *pieces) {
    if (const std::optional<bool>& rw = read_write_for[static_cast<std::size_t>(piece.device)]) {
      core::set_read_write(piece.base, piece.bytes, *rw);
    }
  }
  return CUDA_SUCCESS;
}

}  // namespace mockdev::cuda::impl
