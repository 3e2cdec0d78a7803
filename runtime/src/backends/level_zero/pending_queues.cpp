// PLACEHOLDER from the contract commit (the queues work replaces this whole file): the
// methods of the memory, streams, events and peers part, moved here from
// level_zero_backend.cpp so that the core part and the queues part own separate files.
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include "backends/level_zero/level_zero_backend.h"
#include "backends/level_zero/ze_queues.h"

namespace accel::detail::level_zero {
std::unique_ptr<QueueState> QueueState::create(LevelZeroBackend&) {
  return std::make_unique<QueueState>();
}

Status LevelZeroBackend::synchronize_device(int index) noexcept { return unsupported("pending", "synchronize_device"); }
Result<MemoryInfo> LevelZeroBackend::memory_info(int index) noexcept { return unsupported("pending", "memory_info"); }
Result<DevicePointer> LevelZeroBackend::allocate(int index, std::size_t bytes) noexcept { return unsupported("pending", "allocate"); }
Status LevelZeroBackend::deallocate(int index, DevicePointer pointer) noexcept { return unsupported("pending", "deallocate"); }
Result<std::size_t> LevelZeroBackend::memory_granularity(int index) noexcept { return unsupported("pending", "memory_granularity"); }
Result<DevicePointer> LevelZeroBackend::reserve_address_range(int index, std::size_t bytes) noexcept { return unsupported("pending", "reserve_address_range"); }
Status LevelZeroBackend::free_address_range(int index, DevicePointer base, std::size_t bytes) noexcept { return unsupported("pending", "free_address_range"); }
Result<PhysicalMemoryHandle> LevelZeroBackend::create_physical_memory(int index, std::size_t bytes) noexcept { return unsupported("pending", "create_physical_memory"); }
Status LevelZeroBackend::release_physical_memory(int index, PhysicalMemoryHandle memory) noexcept { return unsupported("pending", "release_physical_memory"); }
Status LevelZeroBackend::map_memory(int index, DevicePointer address, std::size_t bytes, PhysicalMemoryHandle memory) noexcept { return unsupported("pending", "map_memory"); }
Status LevelZeroBackend::unmap_memory(int index, DevicePointer address, std::size_t bytes) noexcept { return unsupported("pending", "unmap_memory"); }
Result<void*> LevelZeroBackend::allocate_host(std::size_t bytes) noexcept { return unsupported("pending", "allocate_host"); }
Status LevelZeroBackend::free_host(void* pointer) noexcept { return unsupported("pending", "free_host"); }
Result<Backend::PriorityRange> LevelZeroBackend::stream_priority_range(int index) noexcept { return unsupported("pending", "stream_priority_range"); }
Result<StreamHandle> LevelZeroBackend::create_stream(int index, int priority) noexcept { return unsupported("pending", "create_stream"); }
Status LevelZeroBackend::destroy_stream(int index, StreamHandle stream) noexcept { return unsupported("pending", "destroy_stream"); }
Result<bool> LevelZeroBackend::query_stream(int index, StreamHandle stream) noexcept { return unsupported("pending", "query_stream"); }
Status LevelZeroBackend::synchronize_stream(int index, StreamHandle stream) noexcept { return unsupported("pending", "synchronize_stream"); }
Result<EventHandle> LevelZeroBackend::create_event(int index, EventOptions options) noexcept { return unsupported("pending", "create_event"); }
Status LevelZeroBackend::destroy_event(int index, EventHandle event) noexcept { return unsupported("pending", "destroy_event"); }
Status LevelZeroBackend::record_event(int index, EventHandle event, StreamHandle stream) noexcept { return unsupported("pending", "record_event"); }
Status LevelZeroBackend::stream_wait_event(int stream_index, StreamHandle stream, EventHandle event) noexcept { return unsupported("pending", "stream_wait_event"); }
Result<bool> LevelZeroBackend::query_event(int index, EventHandle event) noexcept { return unsupported("pending", "query_event"); }
Status LevelZeroBackend::synchronize_event(int index, EventHandle event) noexcept { return unsupported("pending", "synchronize_event"); }
Result<float> LevelZeroBackend::event_elapsed_time(int index, EventHandle start, EventHandle end) noexcept { return unsupported("pending", "event_elapsed_time"); }
Result<bool> LevelZeroBackend::can_access_peer(int index, int peer) noexcept { return unsupported("pending", "can_access_peer"); }

}  // namespace accel::detail::level_zero
