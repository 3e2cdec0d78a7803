#pragma once
// What the caching allocators need from one device (DeviceMemoryProvider) and from the
// host (HostMemoryProvider): the backend SPI's memory, virtual-memory, pinned-host and event
// calls, narrowed so that the allocators are written once, for every backend, and can be
// unit-tested over a fake provider (fake addresses, scripted event completion) with no
// driver at all.
//
// Streams are named by their accel::Stream::id() (0 = the device's default stream);
// the provider knows how to reach the stream's native handle. Events are the provider's
// handles. Methods never throw; they return Status / Result as the SPI does (spi/status.h).
// Thread safety: called with the owning allocator's lock held, from any thread.

#include <cstddef>
#include <cstdint>

#include "accel/accelerator.h"
#include "spi/handles.h"
#include "spi/status.h"

namespace accel::detail::alloc {

using StreamId = std::int64_t;

class DeviceMemoryProvider {
 public:
  virtual ~DeviceMemoryProvider() = default;

  virtual int device() const noexcept = 0;
  // Device-wide free and total bytes, as the driver reports them.
  virtual Result<MemoryInfo> memory_info() noexcept = 0;

  // A new segment: kOutOfMemory when the driver has no room (any other failure is raised
  // as it is). Legal during graph capture (spi/backend.h).
  virtual Result<DevicePointer> allocate(std::size_t bytes) noexcept = 0;
  virtual Status deallocate(DevicePointer pointer) noexcept = 0;

  // An event recorded now on `stream` of this device: completes when the work queued on
  // that stream so far has completed.
  virtual Result<EventHandle> record_event(StreamId stream) noexcept = 0;
  virtual Result<bool> query_event(EventHandle event) noexcept = 0;
  virtual Status synchronize_event(EventHandle event) noexcept = 0;
  virtual Status destroy_event(EventHandle event) noexcept = 0;

  // Virtual memory for expandable segments; kUnsupported where the backend has none (the
  // allocator then refuses expandable_segments:True with a clear error).
  virtual Result<std::size_t> granularity() noexcept = 0;
  virtual Result<DevicePointer> reserve_address_range(std::size_t bytes) noexcept = 0;
  virtual Status free_address_range(DevicePointer base, std::size_t bytes) noexcept = 0;
  virtual Result<PhysicalMemoryHandle> create_physical(std::size_t bytes) noexcept = 0;
  virtual Status release_physical(PhysicalMemoryHandle memory) noexcept = 0;
  virtual Status map(DevicePointer address, std::size_t bytes,
                     PhysicalMemoryHandle memory) noexcept = 0;
  virtual Status unmap(DevicePointer address, std::size_t bytes) noexcept = 0;
};

class HostMemoryProvider {
 public:
  virtual ~HostMemoryProvider() = default;

  // Pinned host memory; kOutOfMemory when there is none left.
  virtual Result<void*> allocate(std::size_t bytes) noexcept = 0;
  virtual Status deallocate(void* pointer) noexcept = 0;

  // Events on a stream of any device (pinned blocks are used by every device's streams).
  virtual Result<EventHandle> record_event(int device, StreamId stream) noexcept = 0;
  virtual Result<bool> query_event(int device, EventHandle event) noexcept = 0;
  virtual Status synchronize_event(int device, EventHandle event) noexcept = 0;
  virtual Status destroy_event(int device, EventHandle event) noexcept = 0;
};

}  // namespace accel::detail::alloc
