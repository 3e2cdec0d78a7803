// PLACEHOLDER from the contract commit: every method answers kUnsupported until the
// core work (level_zero_backend.cpp) and the queues work (pending_queues.cpp) replace it.
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include "backends/level_zero/level_zero_backend.h"
#include "backends/level_zero/ze_queues.h"

namespace accel::detail::level_zero {

int LevelZeroBackend::fork_safe_device_count() noexcept { return -1; }
Result<int> LevelZeroBackend::driver_device_count() noexcept { return unsupported("pending", "driver_device_count"); }
Status LevelZeroBackend::initialize() noexcept { return unsupported("pending", "initialize"); }
int LevelZeroBackend::device_count() const noexcept { return 0; }
Status LevelZeroBackend::configuration_status() noexcept { return unsupported("pending", "configuration_status"); }
std::string LevelZeroBackend::visibility_filter() const { return {}; }
// device (level_zero_backend.cpp)
Status LevelZeroBackend::set_device(int index) noexcept { return unsupported("pending", "set_device"); }
Status LevelZeroBackend::maybe_set_device(int index) noexcept { return unsupported("pending", "maybe_set_device"); }
Result<int> LevelZeroBackend::current_device() noexcept { return unsupported("pending", "current_device"); }
Result<DeviceProperties> LevelZeroBackend::device_properties(int index) noexcept { return unsupported("pending", "device_properties"); }
Result<DeviceCapability> LevelZeroBackend::device_capability(int index) noexcept { return unsupported("pending", "device_capability"); }
Status LevelZeroBackend::synchronize_device(int index) noexcept { return unsupported("pending", "synchronize_device"); }
// memory, virtual memory, pinned host (ze_memory.cpp)
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
// streams and events (ze_streams.cpp, ze_events.cpp)
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
void LevelZeroBackend::prepare_fork() noexcept {}
void LevelZeroBackend::after_fork_parent() noexcept {}
void LevelZeroBackend::after_fork_child() noexcept {}
BackendReport LevelZeroBackend::report() noexcept { return Backend::report(); }
Result<bool> LevelZeroBackend::can_access_peer(int index, int peer) noexcept { return unsupported("pending", "can_access_peer"); }

LevelZeroBackend::LevelZeroBackend(LevelZeroBackendPaths paths) : paths_(std::move(paths)) {}
LevelZeroBackend::~LevelZeroBackend() = default;

std::unique_ptr<Backend> create_level_zero_backend(LevelZeroBackendPaths paths) {
  return std::make_unique<LevelZeroBackend>(std::move(paths));
}
std::unique_ptr<Backend> make_backend() { return create_level_zero_backend(); }

}  // namespace accel::detail::level_zero
