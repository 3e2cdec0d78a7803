#pragma once
// The pinned host caching allocator (PyTorch's CachingHostAllocator): page-locked host
// memory in power-of-two blocks, never split, cached on free and reused only after an
// event recorded at free time on every stream that used the block has completed.
//
//   allocate(n)   n rounded up to the next power of two; the block comes from that size's
//                 bucket (index log2 size, most recently freed first), else from the provider.
//                 Completed events are processed first.
//   record_use    adds (device, stream) to a live block's stream set.
//   free          no recorded streams: straight back to its bucket. Otherwise one event per
//                 recorded stream (provider->record_event(device, stream), in (device,
//                 stream) order) and the block waits, out of every bucket, until all of them
//                 have completed (seen at the next allocate or empty_cache).
//   empty_cache   processes completed events, then releases every cached block to the
//                 provider. Checked-out and event-pending blocks are untouched.
//
// Statistics (flat, sorted, the keys of torch.cuda.host_memory_stats, host_stats.h): allocations,
// allocated_bytes, active_requests, active_bytes (each .current/.peak/.allocated/.freed),
// num_host_alloc, num_host_free, host_alloc_time.* and host_free_time.* (microseconds of the
// provider's allocate / deallocate calls: total, max, min, count, avg = total / count).
//
// Thread safety: every member is thread-safe (one mutex; provider calls are made with it
// held, as memory_provider.h says). Errors: kValue for bad pointers and devices,
// OutOfMemoryError when the provider has no pinned memory left; a failing provider call is
// raised as it is, after the allocator's state and statistics are made consistent again.
//
// Note [Host blocks and capture]: while a graph capture is underway (begin_capture /
// end_capture nest as a counter) the allocator records, queries and releases nothing:
// recording an event on a capturing stream would become a node of the graph, and querying
// or freeing pinned memory would break the capture. So, during capture:
//   * a block *allocated* during capture gets no events, ever (spec: "Host (pinned) blocks
//     allocated during capture do not get events recorded"): when it is freed it goes
//     straight back to its bucket. Such a block belongs to the graph; the allocator cannot
//     see replays, so its owner must keep it alive for as long as the graph may replay
//     (PyTorch's rule: the graph's tensors outlive the graph).
//   * a block allocated before the capture and freed during it, with recorded streams, is
//     deferred: it stays out of every bucket and its events are recorded when the last
//     capture ends, so eager work queued before the capture is still waited for.
//   * allocate takes only blocks already in a bucket or new provider memory; empty_cache
//     releases nothing (it is a no-op until the capture ends).

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "allocator/allocator_config.h"
#include "allocator/memory_provider.h"

namespace accel::detail::alloc {

class HostCachingAllocator {
 public:
  // Microseconds on a monotonic clock; the default reads std::chrono::steady_clock. Tests
  // pass a scripted clock so the duration statistics have exact values.
  using Clock = std::function<std::int64_t()>;

  HostCachingAllocator(std::unique_ptr<HostMemoryProvider> provider, AllocatorConfig config,
                       Clock clock = {});
  ~HostCachingAllocator();  // returns nothing to the driver
  HostCachingAllocator(const HostCachingAllocator&) = delete;
  HostCachingAllocator& operator=(const HostCachingAllocator&) = delete;

  // 0 bytes: nullptr, no statistic changes. More than 2^63 bytes: OutOfMemoryError naming
  // the size (no power of two holds it).
  void* allocate(std::size_t bytes);
  // kValue "free: pointer 0x... is not a pinned block" (or "... was already freed").
  // free(nullptr) does nothing.
  void free(void* pointer);
  // The block holding `pointer` (any address inside it) is used by `stream` of `device`
  // (PyTorch: record_event). kValue when no checked-out block holds it or device < 0.
  void record_use(void* pointer, int device, StreamId stream);
  // Releases every cached block whose events have completed (none during capture).
  void empty_cache();

  std::map<std::string, std::int64_t> stats() const;
  void reset_peak_stats();
  void reset_accumulated_stats();

  // Note [Host blocks and capture]. end_capture without a matching begin_capture: kRuntime.
  void begin_capture();
  void end_capture();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The bucket size for a request: the smallest power of two >= bytes (bytes >= 1), or 0 when
// none fits in size_t.
std::size_t host_block_size(std::size_t bytes) noexcept;

}  // namespace accel::detail::alloc
