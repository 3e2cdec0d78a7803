#pragma once
// One device's caching allocator: PyTorch's CUDACachingAllocator policy
// (c10/cuda/CUDACachingAllocator.cpp), written once over DeviceMemoryProvider so that every backend
// gets the same allocator.
//
// Note [Caching allocator]
// Memory comes from the driver in segments (2 MiB for small requests, 20 MiB for 1-10 MiB,
// else rounded to 2 MiB; or one expandable segment per pool and stream, grown page by
// page, with expandable_segments:True), is split into blocks, and is cached on free: a
// freed block goes back to its pool's free set, merged with free neighbours, and serves
// later requests on the same stream (best fit; never another stream's). A block used on
// other streams (record_stream) is kept out of the free set until an event recorded on
// each of those streams at free time has completed. Memory goes back to the driver only
// through empty_cache(), the OOM retry chain and the garbage collector, and never while a
// graph is being captured. Allocations on a capturing stream come from the graph's
// private pool (begin_allocate_to_pool); a private pool lives until every graph using it
// has released it. Statistics follow PyTorch's update rules exactly; snapshot() and the memory
// history expose the blocks for tests (the statistics rebuilt from them are the live ones)
// and tools.
//
// Where the parts live (each unit-tested on its own): allocator_config.h (settings),
// device_stats.h (statistics), the size policy, the block pools, the stream/event tracking,
// expandable segments, private pools, the memory history; this class orchestrates them.
//
// Thread safety: every member is thread-safe (one mutex per device). Errors are thrown as
// accel::Error: OutOfMemoryError with PyTorch's message and an OutOfMemoryReport; kValue
// for bad pointers; a provider's other failures as they are (kDriver).

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "accel/graph.h"
#include "accel/memory.h"
#include "allocator/allocator_config.h"
#include "allocator/device_stats.h"
#include "allocator/memory_provider.h"

namespace accel::detail::alloc {

class DeviceCachingAllocator {
 public:
  // `device_type` is the backend's ("cuda", "xpu"): the error messages use PyTorch's
  // wording for it (Note [Out-of-memory wording per device type] in oom_message.h). The
  // trace replayer and the unit tests use CUDA's, PyTorch's reference allocator.
  DeviceCachingAllocator(std::unique_ptr<DeviceMemoryProvider> provider, AllocatorConfig config,
                         std::string device_type = "cuda");
  ~DeviceCachingAllocator();  // returns nothing to the driver (the process may be exiting)
  DeviceCachingAllocator(const DeviceCachingAllocator&) = delete;
  DeviceCachingAllocator& operator=(const DeviceCachingAllocator&) = delete;

  int device() const noexcept;

  // A block of at least `bytes` for use on `stream`; its address. 0 bytes: returns 0 and
  // changes nothing. PyTorch's malloc: process events (unless a capture is underway), round, find
  // a cached block, else a new segment, else free oversize cached blocks and retry, else
  // (no capture underway) release every cached segment and retry, else OutOfMemoryError.
  // `site` goes into the memory history.
  std::uint64_t allocate(std::size_t bytes, StreamId stream, const HostFrame& site);
  // Frees the block starting at `address` (an address allocate() returned and that is
  // live): kValue "free: pointer 0x... was not allocated by the caching allocator of
  // device <d>" (or "... was already freed").
  void free(std::uint64_t address, const HostFrame& site);
  // Whether `address` lies inside a block handed out and not yet freed.
  bool owns(std::uint64_t address) const;
  // Marks the live block containing `address` as used on `stream` (PyTorch's recordStream); the
  // allocation stream is ignored. kValue when no live block contains `address`.
  void record_stream(std::uint64_t address, StreamId stream);

  // PyTorch's empty_cache: waits for pending events, then releases every wholly free segment (and
  // private pools no graph uses any more). Returns nothing while a capture is underway
  // except the event wait (no frees to the driver during capture).
  void empty_cache();

  DeviceStats stats() const;
  // allocated_bytes.all.current and reserved_bytes.all.current alone: what a tool is told
  // after each call (core/tool_library.h), without copying every statistic.
  struct Usage {
    std::int64_t allocated = 0;
    std::int64_t reserved = 0;
  };
  Usage usage() const;
  void reset_peak_stats();
  void reset_accumulated_stats();

  // Reserved bytes may not exceed fraction * total (setMemoryFraction); [0, 1] checked by caller.
  void set_memory_fraction(double fraction);
  double memory_fraction() const;
  // New settings; segments already made keep their kind.
  void set_config(const AllocatorConfig& config);

  // Segments by address with their blocks (the statistics rebuilt from them are the live ones).
  std::vector<SegmentSnapshot> snapshot() const;
  // Memory history (accel::record_memory_history): a ring of `max_entries`.
  void record_history(bool enabled, std::size_t max_entries);
  std::vector<TraceEntry> trace() const;

  // Graph private pools (PyTorch's beginAllocateToPool / endAllocateToPool / releasePool): from
  // begin to end, allocations on `stream` come from `pool` (created on first use; use count +1 per
  // begin). release_pool: use count -1; at 0 the pool's cached segments go back at the next
  // empty_cache / OOM retry. While any begin is not ended, a capture is underway on this device.
  void begin_allocate_to_pool(MempoolId pool, StreamId stream);
  void end_allocate_to_pool(MempoolId pool);
  void release_pool(MempoolId pool);
  bool capture_underway() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace accel::detail::alloc
