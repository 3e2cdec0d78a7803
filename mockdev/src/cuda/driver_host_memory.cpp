// Pinned host memory of the simulated driver (declared in driver_api.h) over the core's
// vendor-neutral registry (core/pinned_host.h): allocated with cuMemAllocHost /
// cuMemHostAlloc, or user memory registered with cuMemHostRegister. Pinned memory changes
// when copies move host bytes (driver_copy.cpp). Accounted per process
// (mockdev::streams::pinned_bytes).

#include <cstdlib>

#include "core/pinned_host.h"
#include "core/timeline.h"
#include "cuda/driver_api.h"
#include "cuda/driver_call.h"
#include "cuda/stream_objects.h"

namespace mockdev::cuda::impl {
namespace {

constexpr unsigned kHostAllocFlags =
    kMemHostAllocPortable | kMemHostAllocDeviceMap | kMemHostAllocWriteCombined;
constexpr unsigned kHostRegisterFlags = kMemHostRegisterPortable | kMemHostRegisterDeviceMap |
                                        kMemHostRegisterIoMemory | kMemHostRegisterReadOnly;
constexpr std::size_t kHostAlignment = 4096;

// Note [Device-accessible host memory] in core/pinned_host.h: cuda.h, "Unified Addressing":
// memory from cuMemAllocHost and cuMemHostAlloc "is always directly accessible from all
// contexts on all devices that support unified addressing", whatever its flags, and memory
// registered with CU_MEMHOSTREGISTER_DEVICEMAP is mapped. Its device address is its host
// address: cuda.h names registered and write-combined memory as exceptions with a distinct
// device address, but devices with CU_DEVICE_ATTRIBUTE_CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM
// (every simulated device answers 1) use the host pointer [inferred: the same address for
// write-combined memory too]. Memory registered without DEVICEMAP is mapped as well, and
// every pinned range reports CU_MEMHOSTALLOC_DEVICEMAP among its flags (Recording 2: the H100
// gave a device pointer for it, and flags 2 for cuMemAllocHost memory).
// A size of 0 succeeds and allocates nothing (Recording 2); [inferred] the pointer is NULL.
CUresult alloc_host(void** pointer, std::size_t bytes, unsigned flags)
    MOCKDEV_REQUIRES(core::g_engine_mutex) {
  if (pointer == nullptr) return CUDA_ERROR_INVALID_VALUE;
  const WorkContext current = context_for_work();
  if (current.ctx == nullptr) return current.error;
  if (auto sticky = sticky_error(current.ctx->physical_device)) return *sticky;
  if (bytes == 0) {
    *pointer = nullptr;
    return CUDA_SUCCESS;
  }
  if (bytes > SIZE_MAX - kHostAlignment) return CUDA_ERROR_OUT_OF_MEMORY;
  const std::size_t rounded = (bytes + kHostAlignment - 1) / kHostAlignment * kHostAlignment;
  void* memory = std::aligned_alloc(kHostAlignment, rounded);
  if (memory == nullptr) return CUDA_ERROR_OUT_OF_MEMORY;
  core::PinnedRange range{reinterpret_cast<std::uintptr_t>(memory), bytes, true};
  range.device_accessible = true;
  range.flags = flags | kMemHostAllocDeviceMap;
  range.device = current.ctx->physical_device;
  range.context = memory_key(current.ctx);
  core::add_pinned(range);
  *pointer = memory;
  return CUDA_SUCCESS;
}

}  // namespace

CUresult cuMemAllocHost_v2(void** pointer, std::size_t bytes) {
  return alloc_host(pointer, bytes, 0);
}

CUresult cuMemHostAlloc(void** pointer, std::size_t bytes, unsigned int flags) {
  if ((flags & ~kHostAllocFlags) != 0) return CUDA_ERROR_INVALID_VALUE;
  return alloc_host(pointer, bytes, flags);
}

// Recorded on the H200: memory that is not from cuMemAllocHost/cuMemHostAlloc -> 1
// (Recording 2: a registered range too); NULL succeeds and frees nothing (Recording 2). Freeing is
// an implicit synchronisation (CUDA Programming Guide, "Implicit Synchronization"): pending
// operations may still read or write the memory, so the call first completes all work, without
// telling the observers (it is no happens-before edge).
CUresult cuMemFreeHost(void* pointer) {
  if (pointer == nullptr) return CUDA_SUCCESS;
  const auto base = reinterpret_cast<std::uintptr_t>(pointer);
  std::optional<core::PinnedRange> range = core::pinned_at(base);
  if (!range || !range->allocated) return CUDA_ERROR_INVALID_VALUE;
  const std::vector<core::OpId> ops = all_work();
  if (core::wait_for(ops, "cuMemFreeHost", false) != core::WaitResult::kDone) {
    return kDeadlockResult;
  }
  if (!core::remove_pinned(base)) return CUDA_ERROR_INVALID_VALUE;  // freed meanwhile
  std::free(pointer);
  return CUDA_SUCCESS;
}

// 712 when the range overlaps a pinned range (CUDA Driver API, cuMemHostRegister).
CUresult cuMemHostRegister_v2(void* pointer, std::size_t bytes, unsigned int flags) {
  if (pointer == nullptr || bytes == 0) return CUDA_ERROR_INVALID_VALUE;
  if ((flags & ~kHostRegisterFlags) != 0) return CUDA_ERROR_INVALID_VALUE;
  const auto base = reinterpret_cast<std::uintptr_t>(pointer);
  if (base + bytes < base) return CUDA_ERROR_INVALID_VALUE;
  const WorkContext current = context_for_work();
  if (current.ctx == nullptr) return current.error;
  if (auto sticky = sticky_error(current.ctx->physical_device)) return *sticky;
  core::PinnedRange range{base, bytes, false};
  range.device_accessible = true;  // mapped whatever the flags (note above alloc_host)
  range.flags = flags | kMemHostRegisterDeviceMap;
  range.device = current.ctx->physical_device;
  range.context = memory_key(current.ctx);
  if (!core::add_pinned(range)) return CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED;
  return CUDA_SUCCESS;
}

// 713 unless `pointer` is the base of a registered or allocated range; memory from
// cuMemAllocHost / cuMemHostAlloc is CUDA_ERROR_INVALID_VALUE (Recording 2).
CUresult cuMemHostUnregister(void* pointer) {
  if (pointer == nullptr) return CUDA_ERROR_INVALID_VALUE;
  const auto base = reinterpret_cast<std::uintptr_t>(pointer);
  std::optional<core::PinnedRange> range = core::pinned_at(base);
  if (!range) return CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED;
  if (range->allocated) return CUDA_ERROR_INVALID_VALUE;
  core::remove_pinned(base);
  return CUDA_SUCCESS;
}

}  // namespace mockdev::cuda::impl
