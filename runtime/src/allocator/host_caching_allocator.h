#pragma once
// The pinned host caching allocator (spec torch_accelerator.md §4.14): page-locked host
// memory in power-of-two blocks, never split, cached on free and reused only after an
// event recorded at free time on every stream that used the block has completed.
//
// Statistics (flat, sorted, the keys of §4.14): allocations, allocated_bytes,
// active_requests, active_bytes (each .current/.peak/.allocated/.freed), num_host_alloc,
// num_host_free, host_alloc_time.* and host_free_time.* (microseconds: total, max, min,
// count, avg = total / count).
//
// Thread safety: every member is thread-safe. Errors: kValue for bad pointers,
// OutOfMemoryError when the provider has no pinned memory left.

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "allocator/allocator_config.h"
#include "allocator/memory_provider.h"

namespace accel::detail::alloc {

class HostCachingAllocator {
 public:
  HostCachingAllocator(std::unique_ptr<HostMemoryProvider> provider, AllocatorConfig config);
  ~HostCachingAllocator();  // returns nothing to the driver
  HostCachingAllocator(const HostCachingAllocator&) = delete;
  HostCachingAllocator& operator=(const HostCachingAllocator&) = delete;

  // 0 bytes: nullptr, no statistic changes.
  void* allocate(std::size_t bytes);
  // kValue "free: pointer 0x... is not a pinned block" (or "... was already freed").
  void free(void* pointer);
  // The block holding `pointer` is used by `stream` of `device` (PyTorch: record_event).
  // kValue when no live block holds it.
  void record_use(void* pointer, int device, StreamId stream);
  // Releases every cached block whose events have completed.
  void empty_cache();

  std::map<std::string, std::int64_t> stats() const;
  void reset_peak_stats();
  void reset_accumulated_stats();

  // While a graph capture is underway, blocks freed get no events (spec §2.12).
  void begin_capture();
  void end_capture();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace accel::detail::alloc
