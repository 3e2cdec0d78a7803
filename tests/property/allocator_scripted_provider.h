#pragma once
// A DeviceMemoryProvider for the allocator properties: a device of fixed capacity with
// fake addresses, and streams whose work the test queues and completes by hand, so the
// property knows exactly which events have completed at every step.
//
// Memory: allocate() and create_physical() take bytes from the capacity (kOutOfMemory when
// they do not fit, as a driver does); addresses are never reused, so a stale address can
// never look valid by accident. The provider keeps what is live so the property can compare
// it with the allocator's reserved bytes.
//
// Streams: each stream has a count of queued work items and of completed ones. An event
// recorded on a stream completes when the work queued before it has completed; waiting on
// an event (synchronize_event) completes that work, as a host wait on a real device returns
// only once it has run.
//
// The allocator owns the provider; the test keeps a pointer to it. Not thread-safe (the
// allocator calls it under its own lock; the test calls it between allocator calls).

#include <cstddef>
#include <cstdint>
#include <map>

#include "allocator/memory_provider.h"

namespace accel::test::alloc_model {

using detail::Result;
using detail::Status;
using detail::alloc::StreamId;

class ScriptedDeviceProvider final : public detail::alloc::DeviceMemoryProvider {
 public:
  ScriptedDeviceProvider(int device, std::size_t capacity_bytes, std::size_t granularity_bytes);

  // ---- the test's side --------------------------------------------------------------
  void queue_work(StreamId stream) { ++streams_[stream].queued; }
  void complete_work(StreamId stream) { streams_[stream].completed = streams_[stream].queued; }
  std::uint64_t queued(StreamId stream) const;
  // Whether the first `count` work items queued on `stream` have completed.
  bool completed(StreamId stream, std::uint64_t count) const;
  // Bytes taken from the capacity: live allocations plus live physical memory.
  std::size_t used_bytes() const noexcept { return used_bytes_; }
  std::size_t capacity_bytes() const noexcept { return capacity_bytes_; }
  std::size_t live_events() const noexcept { return events_.size(); }
  std::uint64_t event_waits() const noexcept { return event_waits_; }
  // Calls that named an unknown handle (a double free, a stale event): always a bug.
  std::uint64_t misuse() const noexcept { return misuse_; }

  // ---- DeviceMemoryProvider -----------------------------------------------------------
  int device() const noexcept override { return device_; }
  Result<MemoryInfo> memory_info() noexcept override;
  Result<detail::DevicePointer> allocate(std::size_t bytes) noexcept override;
  Status deallocate(detail::DevicePointer pointer) noexcept override;
  Result<detail::EventHandle> record_event(StreamId stream) noexcept override;
  Result<bool> query_event(detail::EventHandle event) noexcept override;
  Status synchronize_event(detail::EventHandle event) noexcept override;
  Status destroy_event(detail::EventHandle event) noexcept override;
  Result<std::size_t> granularity() noexcept override { return granularity_bytes_; }
  Result<detail::DevicePointer> reserve_address_range(std::size_t bytes) noexcept override;
  Status free_address_range(detail::DevicePointer base, std::size_t bytes) noexcept override;
  Result<detail::PhysicalMemoryHandle> create_physical(std::size_t bytes) noexcept override;
  Status release_physical(detail::PhysicalMemoryHandle memory) noexcept override;
  Status map(detail::DevicePointer address, std::size_t bytes,
             detail::PhysicalMemoryHandle memory) noexcept override;
  Status unmap(detail::DevicePointer address, std::size_t bytes) noexcept override;

 private:
  struct StreamWork {
    std::uint64_t queued = 0;
    std::uint64_t completed = 0;
  };
  struct Event {
    StreamId stream = 0;
    std::uint64_t target = 0;  // completes once this many items of `stream` have completed
  };
  Status misused(const char* what);
  std::uint64_t take_addresses(std::size_t bytes);

  int device_;
  std::size_t capacity_bytes_;
  std::size_t granularity_bytes_;
  std::size_t used_bytes_ = 0;
  std::uint64_t next_address_ = 0x7f0000000000;
  std::uint64_t next_handle_ = 1;
  std::uint64_t event_waits_ = 0;
  std::uint64_t misuse_ = 0;
  std::map<StreamId, StreamWork> streams_;
  std::map<std::uint64_t, std::size_t> allocations_;  // address -> bytes
  std::map<std::uint64_t, std::size_t> ranges_;       // reserved address ranges
  std::map<std::uint64_t, std::size_t> physical_;     // handle -> bytes
  std::map<std::uint64_t, std::size_t> mappings_;     // mapped address -> bytes
  std::map<std::uint64_t, Event> events_;
};

}  // namespace accel::test::alloc_model
