// Device memory calls of the simulated driver (declared in driver_api.h) over the core's
// vendor-neutral memory (core/memory.h, Note [Device addresses]); the current context
// names the device.

#include <sys/mman.h>

#include "core/memory.h"
#include "core/pinned_host.h"
#include "core/timeline.h"
#include "cuda/cuda_state.h"
#include "cuda/driver_api.h"
#include "cuda/driver_call.h"
#include "cuda/stream_objects.h"

namespace mockdev::cuda::impl {

// A null output is skipped, not an error (recorded on real hardware, docs/HARDWARE.md). The
// total is the capacity now (a memory fault may have shrunk it); free is what is left of it
// after allocations and context reserves (Note [Allocation granularity] in core/memory.h).
CUresult cuMemGetInfo_v2(std::size_t* free_bytes, std::size_t* total_bytes) {
  const WorkContext current = context_for_work();
  if (current.ctx == nullptr) return current.error;
  const int device = current.ctx->physical_device;
  if (auto sticky = sticky_error(device)) return *sticky;
  const std::uint64_t total = core::capacity_bytes(device);
  const std::uint64_t used = core::used_bytes(device);
  if (total_bytes != nullptr) *total_bytes = total;
  if (free_bytes != nullptr) *free_bytes = used < total ? total - used : 0;
  return CUDA_SUCCESS;
}

// Small allocations share a granule, as the H100 did (Note [Small allocations] in
// core/memory.h).
CUresult cuMemAlloc_v2(CUdeviceptr* dptr, std::size_t bytes) {
  if (dptr == nullptr || bytes == 0) return CUDA_ERROR_INVALID_VALUE;
  const WorkContext current = context_for_work();
  if (current.ctx == nullptr) return current.error;
  CUctx_st* ctx = current.ctx;
  if (auto sticky = sticky_error(ctx->physical_device)) return *sticky;
  std::optional<std::uint64_t> address =
      core::allocate(Api::kCuda, ctx->physical_device, bytes, memory_key(ctx), true);
  if (!address) return CUDA_ERROR_OUT_OF_MEMORY;
  *dptr = *address;
  return CUDA_SUCCESS;
}

// Recorded on real hardware (docs/HARDWARE.md): freeing 0 succeeds and does nothing, with or
// without a current context; a live allocation is freed with no current context too (the
// address names its device); anything else is an invalid argument.
//
// Note [Freeing synchronises]
// CUDA Programming Guide, "Implicit Synchronization" (and the runtime's cudaFree): freeing
// memory synchronises the device. So cuMemFree first completes every operation still pending
// (work on other devices included [inferred: the simulation waits for all work, the
// conservative reading]) and only then frees: a pending copy out of the memory delivers its
// bytes. Like cuMemFreeHost's wait it is no synchronisation the program asked for, so the
// race detector is not told (an access the program did not order is still reported).
CUresult cuMemFree_v2(CUdeviceptr dptr) {
  if (dptr == 0) return CUDA_SUCCESS;
  // Managed memory (Note [Managed memory] in driver_managed.cpp): work still pending may
  // use it, so every stream completes first, as freeing pinned memory does.
  if (std::optional<core::PinnedRange> managed = core::pinned_at(dptr);
      managed && managed->managed) {
    if (core::wait_for(all_work(), "cuMemFree_v2", false) != core::WaitResult::kDone) {
      return kDeadlockResult;
    }
    if (!core::remove_pinned(dptr)) return CUDA_ERROR_INVALID_VALUE;  // freed meanwhile
    cuda_state().managed_advice.erase(managed->id);
    munmap(reinterpret_cast<void*>(static_cast<std::uintptr_t>(dptr)),
           managed_mapping_bytes(managed->bytes));
    return CUDA_SUCCESS;
  }
  // Step 5 before step 6 (Note [Driver call order]): an address that is not the start of a
  // live CUDA allocation is an invalid argument, whatever state the device is in.
  std::optional<core::Allocation> allocation = core::find_allocation(dptr);
  if (!allocation || allocation->owner != Api::kCuda) return CUDA_ERROR_INVALID_VALUE;
  if (auto sticky = sticky_error(allocation->device)) return *sticky;
  // Note [Freeing synchronises]: the work still pending completes first.
  if (core::wait_for(all_work(), "cuMemFree_v2", false) != core::WaitResult::kDone) {
    return kDeadlockResult;
  }
  if (!core::free_allocation(dptr)) return CUDA_ERROR_INVALID_VALUE;  // freed meanwhile
  return CUDA_SUCCESS;
}

}  // namespace mockdev::cuda::impl
