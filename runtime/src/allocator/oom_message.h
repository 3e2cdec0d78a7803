#pragma once
// The text of the caching allocator's OutOfMemoryError: PyTorch's message for the device
// type word for word, so users and tools that match on it keep working. The structured
// OutOfMemoryReport carries what the message cannot (largest free block,
// reserved-but-unallocated bytes per stream).
//
// Note [Out-of-memory wording per device type]
// The allocator is written once, but PyTorch words its OOM per device type:
//  * cuda: CUDACachingAllocator's message (the per-process NVML part, proc_info, is
//    empty), naming cached private-pool bytes and the settings variable
//    PYTORCH_CUDA_ALLOC_CONF;
//  * xpu: XPUCachingAllocator's message ("XPU out of memory. ... Please use `empty_cache`
//    to release all unoccupied cached memory."), which counts private pools as allocated;
//  * any other type: the CUDA wording under the type's upper-case name, naming the
//    device-agnostic variable PYTORCH_ALLOC_CONF [chosen: PyTorch has no such device type].
// Requests of 1 EiB or more are refused before any pool is looked at, with
// "<TYPE> out of memory. Tried to allocate more than 1EB memory." (oversize_message()).

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace accel::detail::alloc {

// The upper-case spelling of a device type ("cuda" -> "CUDA").
std::string upper_device_type(std::string_view device_type);

struct OomFigures {
  std::string_view device_type = "cuda";  // the backend's device type ("cuda", "xpu")
  int device = 0;
  std::size_t allocation_bytes = 0;  // the segment size that could not be had
  std::size_t total_bytes = 0;
  std::size_t free_bytes = 0;
  std::optional<std::size_t> allowed_bytes;  // with a per-process memory fraction
  std::size_t allocated_bytes = 0;           // allocated_bytes.all.current
  std::size_t reserved_bytes = 0;            // reserved_bytes.all.current
  std::size_t in_private_pools = 0;          // cached bytes of graph private pools
};

std::string oom_message(const OomFigures& figures);

// The message of a request of 1 EiB or more (kOneExbibyte, size_policy.h).
std::string oversize_message(std::string_view device_type);

}  // namespace accel::detail::alloc
