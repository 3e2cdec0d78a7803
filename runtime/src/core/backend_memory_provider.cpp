// DeviceMemoryProvider and HostMemoryProvider over the Backend SPI (backend_memory_provider.h).
#include "core/backend_memory_provider.h"

#include <exception>

#include "spi/thread_device.h"

namespace accel::detail::alloc {

namespace {

// A failed backend call may have left the thread on another device's context.
template <class R>
R checked(R result) noexcept {
  if (!result.ok()) forget_thread_device();
  return result;
}

// The handle of stream `id` of `device`, or the pool's error as a Status (the provider
// never throws).
Result<StreamHandle> stream_of(Backend& backend, StreamPools& pools, int device,
                               StreamId id) noexcept {
  try {
    return pools.handle(backend, device, id);
  } catch (const Error& e) {
    try {
      return Status(e.kind(), e.what());
    } catch (...) {
      return host_out_of_memory();
    }
  } catch (...) {
    return host_out_of_memory();
  }
}

Result<EventHandle> record_on(Backend& backend, StreamPools& pools, int device,
                              StreamId stream) noexcept {
  Result<StreamHandle> handle = stream_of(backend, pools, device, stream);
  if (!handle.ok()) return handle.status();
  Result<EventHandle> event = checked(backend.create_event(device, EventOptions{}));
  if (!event.ok()) return event;
  Status recorded = checked(backend.record_event(device, *event, *handle));
  if (!recorded.ok()) {
    (void)backend.destroy_event(device, *event);
    return recorded;
  }
  return event;
}

class BackendDeviceProvider final : public DeviceMemoryProvider {
 public:
  BackendDeviceProvider(Backend& backend, StreamPools& pools, int device) noexcept
      : backend_(backend), pools_(pools), device_(device) {}

  int device() const noexcept override { return device_; }
  Result<MemoryInfo> memory_info() noexcept override {
    return checked(backend_.memory_info(device_));
  }
  Result<DevicePointer> allocate(std::size_t bytes) noexcept override {
    return checked(backend_.allocate(device_, bytes));
  }
  Status deallocate(DevicePointer pointer) noexcept override {
    return checked(backend_.deallocate(device_, pointer));
  }
  Result<EventHandle> record_event(StreamId stream) noexcept override {
    return record_on(backend_, pools_, device_, stream);
  }
  Result<bool> query_event(EventHandle event) noexcept override {
    return checked(backend_.query_event(device_, event));
  }
  Status synchronize_event(EventHandle event) noexcept override {
    return checked(backend_.synchronize_event(device_, event));
  }
  Status destroy_event(EventHandle event) noexcept override {
    return checked(backend_.destroy_event(device_, event));
  }
  Result<std::size_t> granularity() noexcept override {
    return checked(backend_.memory_granularity(device_));
  }
  Result<DevicePointer> reserve_address_range(std::size_t bytes) noexcept override {
    return checked(backend_.reserve_address_range(device_, bytes));
  }
  Status free_address_range(DevicePointer base, std::size_t bytes) noexcept override {
    return checked(backend_.free_address_range(device_, base, bytes));
  }
  Result<PhysicalMemoryHandle> create_physical(std::size_t bytes) noexcept override {
    return checked(backend_.create_physical_memory(device_, bytes));
  }
  Status release_physical(PhysicalMemoryHandle memory) noexcept override {
    return checked(backend_.release_physical_memory(device_, memory));
  }
  Status map(DevicePointer address, std::size_t bytes,
             PhysicalMemoryHandle memory) noexcept override {
    return checked(backend_.map_memory(device_, address, bytes, memory));
  }
  Status unmap(DevicePointer address, std::size_t bytes) noexcept override {
    return checked(backend_.unmap_memory(device_, address, bytes));
  }

 private:
  Backend& backend_;
  StreamPools& pools_;
  const int device_;
};

class BackendHostProvider final : public HostMemoryProvider {
 public:
  BackendHostProvider(Backend& backend, StreamPools& pools) noexcept
      : backend_(backend), pools_(pools) {}

  Result<void*> allocate(std::size_t bytes) noexcept override {
    return checked(backend_.allocate_host(bytes));
  }
  Status deallocate(void* pointer) noexcept override {
    return checked(backend_.free_host(pointer));
  }
  Result<EventHandle> record_event(int device, StreamId stream) noexcept override {
    return record_on(backend_, pools_, device, stream);
  }
  Result<bool> query_event(int device, EventHandle event) noexcept override {
    return checked(backend_.query_event(device, event));
  }
  Status synchronize_event(int device, EventHandle event) noexcept override {
    return checked(backend_.synchronize_event(device, event));
  }
  Status destroy_event(int device, EventHandle event) noexcept override {
    return checked(backend_.destroy_event(device, event));
  }

 private:
  Backend& backend_;
  StreamPools& pools_;
};

}  // namespace

std::unique_ptr<DeviceMemoryProvider> make_backend_device_provider(Backend& backend,
                                                                   StreamPools& pools,
                                                                   int device) {
  return std::make_unique<BackendDeviceProvider>(backend, pools, device);
}

std::unique_ptr<HostMemoryProvider> make_backend_host_provider(Backend& backend,
                                                               StreamPools& pools) {
  return std::make_unique<BackendHostProvider>(backend, pools);
}

}  // namespace accel::detail::alloc
