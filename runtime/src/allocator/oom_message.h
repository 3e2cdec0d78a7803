#pragma once
// The text of the caching allocator's OutOfMemoryError: PyTorch's message word for word
// (CUDACachingAllocator.cpp; the per-process NVML part, proc_info, is empty), so
// users and tools that match on it keep working. The structured OutOfMemoryReport carries
// what the message cannot (largest free block, reserved-but-unallocated bytes per stream).

#include <cstddef>
#include <optional>
#include <string>

namespace accel::detail::alloc {

struct OomFigures {
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

}  // namespace accel::detail::alloc
